// The effects a handler returns: what it asks the instance to do. Shapes follow the original
// platform's effects (`ORIGINATE_PLAN_COMMAND` with `{command, note, data, line_number, commit}`,
// `ADD_BANNER_ALERT`…), so a handler's output reads the same on either. Which event each
// effect may answer: (docs/plugins.md, "Effects").
import { COMMAND_EVENT_PREFIXES, type AutocompleteOption, type CommandKindKey } from './events.ts';

export interface Effect<T extends string = string, P = unknown> {
  type: T;
  payload: P;
}

/** The effect key of each kind: the prefix of its events, except hpi's, which is HPI. */
type EffectKeys = Omit<typeof COMMAND_EVENT_PREFIXES, 'hpi'> & { hpi: 'HPI' };
/** `PLAN`, `HPI`, `LAB_ORDER`…: the middle of a command effect's type. */
export type CommandEffectKey = EffectKeys[CommandKindKey];

type CommandStep = 'COMMIT' | 'DELETE' | 'ENTER_IN_ERROR';

/** `ORIGINATE_PLAN_COMMAND`, `EDIT_HPI_COMMAND`, `ENTER_IN_ERROR_LAB_ORDER_COMMAND`… */
export type CommandEffectType = `${'ORIGINATE' | 'EDIT' | CommandStep}_${CommandEffectKey}_COMMAND`;
/** Every effect type a handler may return. */
export type EffectType = CommandEffectType | 'ADD_BANNER_ALERT' | 'REMOVE_BANNER_ALERT' | 'EVENT_VALIDATION_ERROR' | 'AUTOCOMPLETE_SEARCH_RESULTS';

/** The effect key of a kind: hpi's is HPI (its events say HISTORY_OF_PRESENT_ILLNESS). */
function effectKey<K extends CommandKindKey>(kind: K): EffectKeys[K] {
  return (kind === 'hpi' ? 'HPI' : COMMAND_EVENT_PREFIXES[kind]) as EffectKeys[K];
}

/** Every effect type, command effects first (five per kind), in a fixed order. */
export const EFFECT_TYPES: readonly EffectType[] = Object.freeze([
  ...(Object.keys(COMMAND_EVENT_PREFIXES) as CommandKindKey[]).flatMap((kind) =>
    (['ORIGINATE', 'EDIT', 'COMMIT', 'DELETE', 'ENTER_IN_ERROR'] as const).map((step): EffectType => `${step}_${effectKey(kind)}_COMMAND`),
  ),
  'ADD_BANNER_ALERT',
  'REMOVE_BANNER_ALERT',
  'EVENT_VALIDATION_ERROR',
  'AUTOCOMPLETE_SEARCH_RESULTS',
]);

const effectTypes: ReadonlySet<string> = new Set(EFFECT_TYPES);

export function isEffectType(type: string): type is EffectType {
  return effectTypes.has(type);
}

/** The kind and step of a command effect type (`EDIT_LAB_ORDER_COMMAND` → labOrder, EDIT), else undefined. */
export function commandEffectOf(type: string): { kind: CommandKindKey; step: 'ORIGINATE' | 'EDIT' | CommandStep } | undefined {
  const m = /^(ORIGINATE|EDIT|COMMIT|DELETE|ENTER_IN_ERROR)_([A-Z_]+)_COMMAND$/.exec(type);
  if (!m) return undefined;
  const kind = (Object.keys(COMMAND_EVENT_PREFIXES) as CommandKindKey[]).find((k) => effectKey(k) === m[2]);
  return kind === undefined ? undefined : { kind, step: m[1] as 'ORIGINATE' | 'EDIT' | CommandStep };
}

export interface OriginatePayload {
  /** Always null: the instance gives the new command its uuid. */
  command: null;
  /** The note's uuid. */
  note: string;
  data: Record<string, unknown>;
  /** Always -1: the command goes at the end of the note. */
  line_number: -1;
  commit: boolean;
}

export interface EditPayload {
  command: string;
  data: Record<string, unknown>;
}

function checkKind(kind: CommandKindKey): void {
  if (!Object.hasOwn(COMMAND_EVENT_PREFIXES, kind)) throw new TypeError(`unknown command kind ${JSON.stringify(kind)}`);
}

/** Adds a new command of `kind` to a note, with these values; `commit: true` commits it at once. */
export function originateCommand<K extends CommandKindKey>(
  kind: K,
  note: string,
  data: Record<string, unknown>,
  options: { commit?: boolean } = {},
): Effect<`ORIGINATE_${EffectKeys[K]}_COMMAND`, OriginatePayload> {
  checkKind(kind);
  return { type: `ORIGINATE_${effectKey(kind)}_COMMAND`, payload: { command: null, note, data, line_number: -1, commit: options.commit ?? false } };
}

/** Changes values of an existing command. */
export function editCommand<K extends CommandKindKey>(
  kind: K,
  command: string,
  data: Record<string, unknown>,
): Effect<`EDIT_${EffectKeys[K]}_COMMAND`, EditPayload> {
  checkKind(kind);
  return { type: `EDIT_${effectKey(kind)}_COMMAND`, payload: { command, data } };
}

/** Commits, deletes or enters in error an existing command. */
export function commandStep<S extends CommandStep, K extends CommandKindKey>(
  step: S,
  kind: K,
  command: string,
): Effect<`${S}_${EffectKeys[K]}_COMMAND`, { command: string }> {
  if (!['COMMIT', 'DELETE', 'ENTER_IN_ERROR'].includes(step)) throw new TypeError(`unknown command step ${JSON.stringify(step)}`);
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

/** The longest message of a validation error. */
export const VALIDATION_MESSAGE_MAX = 500;

export interface ValidationErrorPayload {
  errors: { message: string; field?: string }[];
}

/**
 * Refuses the change a PRE event (`…__PRE_COMMIT`, `PRE_COMMAND_UPDATE`…) announces: the API
 * answers 400 with this message, and nothing is written. Returned for any other event, it is
 * not applied (the instance logs it as an error). `field` names the command field at fault.
 * Throws a RangeError for a message that is empty or longer than 500 characters.
 */
export function validationError(message: string, options: { field?: string } = {}): Effect<'EVENT_VALIDATION_ERROR', ValidationErrorPayload> {
  if (typeof message !== 'string' || message.length === 0 || message.length > VALIDATION_MESSAGE_MAX) {
    throw new RangeError(`a validation message has 1 to ${VALIDATION_MESSAGE_MAX} characters`);
  }
  if (options.field !== undefined && (typeof options.field !== 'string' || options.field.length === 0)) {
    throw new RangeError('a validation error names its field with a non-empty string');
  }
  return { type: 'EVENT_VALIDATION_ERROR', payload: { errors: [options.field === undefined ? { message } : { message, field: options.field }] } };
}

/**
 * The options an autocomplete search shows, in this order, in place of those it found: answers
 * an after-search event (`…__POST_SEARCH`) to reorder, filter or annotate its `results`. The
 * next plugin's handler sees this list. Returned for any other event, it is not applied (the
 * instance logs it as an error). Throws a TypeError when `options` is not a list of objects.
 */
export function autocompleteResults(options: readonly AutocompleteOption[]): Effect<'AUTOCOMPLETE_SEARCH_RESULTS', AutocompleteOption[]> {
  if (!Array.isArray(options)) throw new TypeError('autocomplete results are a list of options');
  for (const option of options) {
    if (typeof option !== 'object' || option === null) throw new TypeError('an autocomplete result is an option object');
  }
  return { type: 'AUTOCOMPLETE_SEARCH_RESULTS', payload: [...options] };
}
