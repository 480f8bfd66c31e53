// The events a plugin handler can respond to, named as the original platform names them:
// `<PREFIX>_COMMAND__<PHASE>` for each of the 15 command kinds (hpi's prefix is
// HISTORY_OF_PRESENT_ILLNESS), the kind-independent `<PHASE>_COMMAND_<ACTION>` events, and the
// plugin's own PLUGIN_CREATED / PLUGIN_UPDATED.

/** Each command kind's schema key with the UPPER_SNAKE prefix of its events. */
export const COMMAND_EVENT_PREFIXES = {
  assess: 'ASSESS',
  diagnose: 'DIAGNOSE',
  educationalMaterial: 'EDUCATIONAL_MATERIAL',
  goal: 'GOAL',
  hpi: 'HISTORY_OF_PRESENT_ILLNESS',
  instruct: 'INSTRUCT',
  labOrder: 'LAB_ORDER',
  medicationStatement: 'MEDICATION_STATEMENT',
  perform: 'PERFORM',
  plan: 'PLAN',
  prescribe: 'PRESCRIBE',
  questionnaire: 'QUESTIONNAIRE',
  reasonForVisit: 'REASON_FOR_VISIT',
  stopMedication: 'STOP_MEDICATION',
  updateGoal: 'UPDATE_GOAL',
} as const;

/** A command kind's schema key: `plan`, `hpi`, `labOrder`… */
export type CommandKindKey = keyof typeof COMMAND_EVENT_PREFIXES;

export const COMMAND_ACTIONS = ['ORIGINATE', 'UPDATE', 'COMMIT', 'DELETE', 'ENTER_IN_ERROR'] as const;
export type CommandAction = (typeof COMMAND_ACTIONS)[number];

type Prefix = (typeof COMMAND_EVENT_PREFIXES)[CommandKindKey];
type Phase = `${'PRE' | 'POST'}_${CommandAction}`;

/** `PLAN_COMMAND__POST_COMMIT`, `HISTORY_OF_PRESENT_ILLNESS_COMMAND__PRE_UPDATE`… */
export type CommandEventName = `${Prefix}_COMMAND__${Phase}`;
/** `POST_COMMAND_COMMIT`…: the same lifecycle for every kind. */
export type GenericCommandEventName = `${'PRE' | 'POST'}_COMMAND_${CommandAction}`;
export type PluginEventName = 'PLUGIN_CREATED' | 'PLUGIN_UPDATED';
export type EventName = CommandEventName | GenericCommandEventName | PluginEventName;

function commandEventNames(): EventName[] {
  const names: EventName[] = [];
  for (const prefix of Object.values(COMMAND_EVENT_PREFIXES)) {
    for (const action of COMMAND_ACTIONS) {
      names.push(`${prefix}_COMMAND__PRE_${action}`, `${prefix}_COMMAND__POST_${action}`);
    }
  }
  for (const action of COMMAND_ACTIONS) names.push(`PRE_COMMAND_${action}`, `POST_COMMAND_${action}`);
  return names;
}

/** Every event name, command kinds first. */
export const EVENT_NAMES: readonly EventName[] = Object.freeze([...commandEventNames(), 'PLUGIN_CREATED', 'PLUGIN_UPDATED']);

const known: ReadonlySet<string> = new Set(EVENT_NAMES);

export function isEventName(name: string): name is EventName {
  return known.has(name);
}

/** The event name of one command kind's lifecycle phase: `commandEvent('plan', 'POST', 'COMMIT')`. */
export function commandEvent<K extends CommandKindKey, W extends 'PRE' | 'POST', A extends CommandAction>(
  kind: K,
  when: W,
  action: A,
): `${(typeof COMMAND_EVENT_PREFIXES)[K]}_COMMAND__${W}_${A}` {
  return `${COMMAND_EVENT_PREFIXES[kind]}_COMMAND__${when}_${action}`;
}

/** What a command event carries: the command's fields as the API shows them and its note. */
export interface CommandEventContext {
  /** The command's values keyed by field name (`{}` before the first update). */
  fields: Record<string, unknown>;
  note: { uuid: string };
  patient?: { key: string };
}

export interface PluginEvent<N extends EventName = EventName> {
  /** The event's name, e.g. `PLAN_COMMAND__POST_COMMIT`. */
  type: N;
  /** What the event is about: a command's uuid for command events, the plugin's name for plugin events. */
  target: { id: string; type: N extends PluginEventName ? 'plugin' : 'command' };
  context: N extends PluginEventName ? Record<string, unknown> : CommandEventContext;
  /** The staff member or API client whose request caused the event, when known. */
  actor?: { id: string };
}

/**
 * Builds an event, e.g. for a handler's tests:
 * `createEvent('PLAN_COMMAND__POST_COMMIT', { target: uuid, fields: { narrative: '…' } })`.
 */
export function createEvent<N extends CommandEventName | GenericCommandEventName>(
  type: N,
  options: { target: string; fields?: Record<string, unknown>; note?: string; patient?: string; actor?: string },
): PluginEvent<N> {
  if (!isEventName(type)) throw new TypeError(`unknown event name ${JSON.stringify(type)}`);
  const context: CommandEventContext = {
    fields: options.fields ?? {},
    note: { uuid: options.note ?? '00000000-0000-4000-8000-000000000000' },
    ...(options.patient !== undefined ? { patient: { key: options.patient } } : {}),
  };
  return {
    type,
    target: { id: options.target, type: 'command' },
    context,
    ...(options.actor !== undefined ? { actor: { id: options.actor } } : {}),
  } as PluginEvent<N>;
}
