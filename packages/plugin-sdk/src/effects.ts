// The effects a handler returns: what it asks the instance to do. Shapes follow the original
// platform's effects (`ORIGINATE_PLAN_COMMAND` with `{command, note, data, line_number, commit}`,
// `ADD_BANNER_ALERT`…), so a handler's output reads the same on either.
import { COMMAND_EVENT_PREFIXES, type CommandKindKey } from './events.ts';

export interface Effect<T extends string = string, P = unknown> {
  type: T;
  payload: P;
}

/** The effect key of a kind: hpi's is HPI (its events say HISTORY_OF_PRESENT_ILLNESS). */
function effectKey(kind: CommandKindKey): string {
  return kind === 'hpi' ? 'HPI' : COMMAND_EVENT_PREFIXES[kind];
}

function checkKind(kind: CommandKindKey): void {
  if (!Object.hasOwn(COMMAND_EVENT_PREFIXES, kind)) throw new TypeError(`unknown command kind ${JSON.stringify(kind)}`);
}

/** Adds a new command of `kind` to a note, with these values; `commit: true` commits it at once. */
export function originateCommand(
  kind: CommandKindKey,
  note: string,
  data: Record<string, unknown>,
  options: { commit?: boolean } = {},
): Effect<string, { command: null; note: string; data: Record<string, unknown>; line_number: -1; commit: boolean }> {
  checkKind(kind);
  return { type: `ORIGINATE_${effectKey(kind)}_COMMAND`, payload: { command: null, note, data, line_number: -1, commit: options.commit ?? false } };
}

/** Changes values of an existing command. */
export function editCommand(
  kind: CommandKindKey,
  command: string,
  data: Record<string, unknown>,
): Effect<string, { command: string; data: Record<string, unknown> }> {
  checkKind(kind);
  return { type: `EDIT_${effectKey(kind)}_COMMAND`, payload: { command, data } };
}

type CommandStep = 'COMMIT' | 'DELETE' | 'ENTER_IN_ERROR';

/** Commits, deletes or enters in error an existing command. */
export function commandStep(step: CommandStep, kind: CommandKindKey, command: string): Effect<string, { command: string }> {
  checkKind(kind);
  return { type: `${step}_${effectKey(kind)}_COMMAND`, payload: { command } };
}

export const BANNER_PLACEMENTS = ['chart', 'timeline', 'appointment_card', 'scheduling_card', 'profile'] as const;
export const BANNER_INTENTS = ['info', 'warning', 'alert'] as const;

export interface BannerAlert {
  /** The patient whose chart shows the banner. */
  patient: string;
  /** Identifies the banner, so a later effect can remove it. */
  key: string;
  /** At most 90 characters. */
  narrative: string;
  placement: (typeof BANNER_PLACEMENTS)[number][];
  intent: (typeof BANNER_INTENTS)[number];
}

/** Shows a banner on a patient's chart. Throws a RangeError for a narrative over 90 characters or no placement. */
export function addBannerAlert(alert: BannerAlert): Effect<'ADD_BANNER_ALERT', BannerAlert> {
  if (alert.narrative.length === 0 || alert.narrative.length > 90) throw new RangeError('a banner narrative has 1 to 90 characters');
  if (alert.placement.length === 0) throw new RangeError('a banner needs at least one placement');
  for (const p of alert.placement) if (!BANNER_PLACEMENTS.includes(p)) throw new RangeError(`unknown banner placement ${JSON.stringify(p)}`);
  if (!BANNER_INTENTS.includes(alert.intent)) throw new RangeError(`unknown banner intent ${JSON.stringify(alert.intent)}`);
  return { type: 'ADD_BANNER_ALERT', payload: { ...alert, placement: [...alert.placement] } };
}

export function removeBannerAlert(patient: string, key: string): Effect<'REMOVE_BANNER_ALERT', { patient: string; key: string }> {
  return { type: 'REMOVE_BANNER_ALERT', payload: { patient, key } };
}
