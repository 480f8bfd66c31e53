// The events a plugin handler can respond to, named as the original platform names them:
// `<PREFIX>_COMMAND__<PHASE>` for each of the 15 command kinds (hpi's prefix is
// HISTORY_OF_PRESENT_ILLNESS), the kind-independent `<PHASE>_COMMAND_<ACTION>` events, one
// after-search event per autocomplete field (`<PREFIX>_COMMAND__<FIELD>__POST_SEARCH`), and the
// plugin's own PLUGIN_CREATED / PLUGIN_UPDATED. What each event carries: (docs/plugins.md, "Events").

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

/**
 * The autocomplete fields of each kind, in the order the instance's `/fields/` lists them: each
 * has an after-search event. goal, hpi and plan have none. (The server's tests check that this
 * list equals its kinds' AutocompleteFields.)
 */
export const SEARCH_FIELDS = {
  assess: ['condition'],
  diagnose: ['diagnose'],
  educationalMaterial: ['title', 'language'],
  goal: [],
  hpi: [],
  instruct: ['instruct'],
  labOrder: ['lab_partner', 'tests', 'ordering_provider', 'diagnosis'],
  medicationStatement: ['medication'],
  perform: ['perform'],
  plan: [],
  prescribe: ['prescribe', 'indications', 'type_to_dispense', 'pharmacy', 'prescriber', 'supervising_provider'],
  questionnaire: ['questionnaire'],
  reasonForVisit: ['coding'],
  stopMedication: ['medication'],
  updateGoal: ['goal_statement'],
} as const satisfies Record<CommandKindKey, readonly string[]>;

/** An autocomplete field of one kind: `SearchField<'prescribe'>` is `'prescribe' | 'indications' | …`. */
export type SearchField<K extends CommandKindKey = CommandKindKey> = (typeof SEARCH_FIELDS)[K][number];

type Prefix = (typeof COMMAND_EVENT_PREFIXES)[CommandKindKey];
type Phase = `${'PRE' | 'POST'}_${CommandAction}`;

/** `labPartner` → `LAB_PARTNER`, `lab_partner` → `LAB_PARTNER` (at the type level). */
type UpperSnake<S extends string> = S extends `${infer H}${infer T}` ? `${H extends Lowercase<H> ? Uppercase<H> : `_${H}`}${UpperSnake<T>}` : '';

/** `PLAN_COMMAND__POST_COMMIT`, `HISTORY_OF_PRESENT_ILLNESS_COMMAND__PRE_UPDATE`… */
export type CommandEventName = `${Prefix}_COMMAND__${Phase}`;
/** `POST_COMMAND_COMMIT`…: the same lifecycle for every kind. */
export type GenericCommandEventName = `${'PRE' | 'POST'}_COMMAND_${CommandAction}`;
/** `DIAGNOSE_COMMAND__DIAGNOSE__POST_SEARCH`, `PRESCRIBE_COMMAND__INDICATIONS__POST_SEARCH`… */
export type SearchEventName = {
  [K in CommandKindKey]: `${(typeof COMMAND_EVENT_PREFIXES)[K]}_COMMAND__${UpperSnake<SearchField<K>>}__POST_SEARCH`;
}[CommandKindKey];
export type PluginEventName = 'PLUGIN_CREATED' | 'PLUGIN_UPDATED';
export type EventName = CommandEventName | GenericCommandEventName | SearchEventName | PluginEventName;

/** A field name as event names spell it: `labPartner` and `lab_partner` are both `LAB_PARTNER`. */
function upperSnake(name: string): string {
  return name.replace(/([A-Z])/g, '_$1').toUpperCase();
}

function checkKind(kind: string): asserts kind is CommandKindKey {
  if (!Object.hasOwn(COMMAND_EVENT_PREFIXES, kind)) throw new TypeError(`unknown command kind ${JSON.stringify(kind)}`);
}

/** The after-search event of one autocomplete field: `searchEvent('prescribe', 'indications')`. */
export function searchEvent<K extends CommandKindKey, F extends SearchField<K>>(
  kind: K,
  field: F,
): `${(typeof COMMAND_EVENT_PREFIXES)[K]}_COMMAND__${UpperSnake<F>}__POST_SEARCH` {
  checkKind(kind);
  if (!(SEARCH_FIELDS[kind] as readonly string[]).includes(field)) {
    throw new TypeError(`${kind} has no autocomplete field ${JSON.stringify(field)}`);
  }
  return `${COMMAND_EVENT_PREFIXES[kind]}_COMMAND__${upperSnake(field)}__POST_SEARCH` as `${(typeof COMMAND_EVENT_PREFIXES)[K]}_COMMAND__${UpperSnake<F>}__POST_SEARCH`;
}

const searchEvents: ReadonlyMap<string, { kind: CommandKindKey; field: string }> = new Map(
  (Object.keys(SEARCH_FIELDS) as CommandKindKey[]).flatMap((kind) =>
    SEARCH_FIELDS[kind].map((field: string) => [`${COMMAND_EVENT_PREFIXES[kind]}_COMMAND__${upperSnake(field)}__POST_SEARCH`, { kind, field }] as const),
  ),
);

/** The kind and field an after-search event is about, or undefined for any other name. */
export function searchEventField(name: string): { kind: CommandKindKey; field: string } | undefined {
  const found = searchEvents.get(name);
  return found === undefined ? undefined : { ...found };
}

function eventNames(): EventName[] {
  const names: string[] = [];
  for (const prefix of Object.values(COMMAND_EVENT_PREFIXES)) {
    for (const action of COMMAND_ACTIONS) {
      names.push(`${prefix}_COMMAND__PRE_${action}`, `${prefix}_COMMAND__POST_${action}`);
    }
  }
  for (const action of COMMAND_ACTIONS) names.push(`PRE_COMMAND_${action}`, `POST_COMMAND_${action}`);
  names.push(...searchEvents.keys());
  names.push('PLUGIN_CREATED', 'PLUGIN_UPDATED');
  return names as EventName[];
}

/** Every event name: the kinds' lifecycle events, the generic ones, the after-search ones, the plugin's own. */
export const EVENT_NAMES: readonly EventName[] = Object.freeze(eventNames());

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

export const COMMAND_STATES = ['staged', 'committed', 'entered_in_error'] as const;
export type CommandState = (typeof COMMAND_STATES)[number];

/** A command as the API returns it (`GET /commands/<uuid>/`). */
export interface CommandSnapshot {
  uuid: string;
  state: CommandState;
  /** ISO 8601 with microseconds, `2026-11-22T05:26:28.123456Z`. */
  created_at: string;
  updated_at: string;
  schema_key: CommandKindKey;
  patient_key: string;
  note_key: string;
  /** Staff keys; a plugin's own key is `plugin:<name>`. */
  originated_by: string;
  edited_by: string[];
  committed_by: string | null;
  entered_in_error_by: string | null;
  /** The command's values keyed by field name (`{}` before the first update). */
  data: Record<string, unknown>;
}

/** What a command lifecycle event carries. */
export interface CommandEventContext {
  /**
   * The command as the API returns it: as it is after the change (as it was, for a delete). On a
   * PRE event the change is not written yet, and a validation error keeps it from being written.
   */
  command: CommandSnapshot;
  /** The command before the change; null when it is being originated. */
  previous: CommandSnapshot | null;
  /** `command.data`: the command's values keyed by field name. */
  fields: Record<string, unknown>;
  note: { uuid: string };
  patient: { key: string };
}

export interface Coding {
  code: string;
  display: string;
  system: string;
}

/** One option of an autocomplete field, as the instance's autocomplete returns it and `data` stores it. */
export interface AutocompleteOption {
  text: string;
  disabled: boolean;
  description: string | null;
  annotations: string[] | null;
  extra: { coding: Coding[] } & Record<string, unknown>;
  value: string | number;
}

/** What an after-search event carries: the search and the options found, best first. */
export interface SearchEventContext {
  schema_key: CommandKindKey;
  /** The field's name as the API spells it: `indications`, `lab_partner`. */
  field: string;
  search_term: string;
  results: AutocompleteOption[];
}

type TargetType<N extends EventName> = N extends PluginEventName ? 'plugin' : N extends SearchEventName ? 'field' : 'command';
type ContextOf<N extends EventName> = N extends PluginEventName
  ? Record<string, unknown>
  : N extends SearchEventName
    ? SearchEventContext
    : CommandEventContext;

export interface PluginEvent<N extends EventName = EventName> {
  /** The event's own id (a uuid): with the handler and an effect's index, the key that makes applying an effect twice harmless. */
  id: string;
  /** The event's name, e.g. `PLAN_COMMAND__POST_COMMIT`. */
  type: N;
  /**
   * What the event is about: a command's uuid for command events, `<schema_key>.<field>` for
   * after-search events, the plugin's name for plugin events.
   */
  target: { id: string; type: TargetType<N> };
  context: ContextOf<N>;
  /** The staff member whose request caused the event (`plugin:<name>` when a plugin's effect did). */
  actor: { id: string };
  /** 0 for a change a client asked for; n + 1 for a change made by an effect of an event at depth n. */
  depth: number;
}

/** A note uuid, event id, patient key and staff key for events built without one. */
export const EXAMPLE_IDS = Object.freeze({
  event: '00000000-0000-4000-8000-00000000e0e0',
  note: '00000000-0000-4000-8000-000000000000',
  patient: 'example-patient',
  actor: 'example-staff',
  time: '2026-01-01T00:00:00.000000Z',
});

/** The state a command is in after each action (a deleted command is described as it was). */
const STATE_AFTER: Record<CommandAction, CommandState> = {
  ORIGINATE: 'staged',
  UPDATE: 'staged',
  COMMIT: 'committed',
  DELETE: 'staged',
  ENTER_IN_ERROR: 'entered_in_error',
};
const STATE_BEFORE: Record<CommandAction, CommandState> = { ...STATE_AFTER, COMMIT: 'staged', ENTER_IN_ERROR: 'committed' };

/** The kind and action of a lifecycle event name (the kind is undefined for a generic one). */
function lifecycleOf(type: string): { kind: CommandKindKey | undefined; action: CommandAction } {
  const generic = /^(?:PRE|POST)_COMMAND_([A-Z_]+)$/.exec(type);
  if (generic) return { kind: undefined, action: generic[1] as CommandAction };
  const [prefix, phase] = type.split('_COMMAND__') as [string, string];
  const kind = (Object.keys(COMMAND_EVENT_PREFIXES) as CommandKindKey[]).find((k) => COMMAND_EVENT_PREFIXES[k] === prefix);
  return { kind, action: phase.replace(/^(PRE|POST)_/, '') as CommandAction };
}

export interface CreateEventOptions {
  /** The command's uuid. */
  target: string;
  /** The command's values (its `data`); `{}` when not given. */
  fields?: Record<string, unknown>;
  /** The note's uuid (`command.note_key`). */
  note?: string;
  /** The patient's key (`command.patient_key`). */
  patient?: string;
  /** The acting staff key. */
  actor?: string;
  /** The event's id. */
  id?: string;
  depth?: number;
  /** The kind of a generic event's command (a kind's own events know theirs); default `plan`. */
  kind?: CommandKindKey;
  /** Members of the command to set (they win over what the other options imply). */
  command?: Partial<CommandSnapshot>;
  /** The command before the change; by default null for ORIGINATE, else the command in its previous state. */
  previous?: CommandSnapshot | null;
}

/**
 * Builds a command event the way the instance does, e.g. for a handler's tests:
 * `createEvent('PLAN_COMMAND__POST_COMMIT', { target: uuid, fields: { narrative: '…' } })`.
 * `context.command` is filled consistently with the options: its uuid is the target, its data the
 * fields, its note and patient those of the context, its state the one the action leaves it in.
 */
export function createEvent<N extends CommandEventName | GenericCommandEventName>(type: N, options: CreateEventOptions): PluginEvent<N> {
  if (!isEventName(type) || searchEvents.has(type) || type.startsWith('PLUGIN_')) throw new TypeError(`unknown event name ${JSON.stringify(type)}`);
  const { kind, action } = lifecycleOf(type);
  const actor = options.actor ?? EXAMPLE_IDS.actor;
  const fields = options.fields ?? options.command?.data ?? {};
  const command: CommandSnapshot = {
    uuid: options.target,
    state: STATE_AFTER[action],
    created_at: EXAMPLE_IDS.time,
    updated_at: EXAMPLE_IDS.time,
    schema_key: kind ?? options.kind ?? 'plan',
    patient_key: options.patient ?? EXAMPLE_IDS.patient,
    note_key: options.note ?? EXAMPLE_IDS.note,
    originated_by: actor,
    edited_by: action === 'ORIGINATE' ? [] : [actor],
    committed_by: action === 'COMMIT' || action === 'ENTER_IN_ERROR' ? actor : null,
    entered_in_error_by: action === 'ENTER_IN_ERROR' ? actor : null,
    ...options.command,
    data: fields,
  };
  const previous: CommandSnapshot | null =
    options.previous !== undefined
      ? options.previous
      : action === 'ORIGINATE'
        ? null
        : {
            ...command,
            state: STATE_BEFORE[action],
            committed_by: action === 'ENTER_IN_ERROR' ? command.committed_by : null,
            entered_in_error_by: null,
          };
  const context: CommandEventContext = {
    command,
    previous,
    fields: command.data,
    note: { uuid: command.note_key },
    patient: { key: command.patient_key },
  };
  return {
    id: options.id ?? EXAMPLE_IDS.event,
    type,
    target: { id: command.uuid, type: 'command' },
    context,
    actor: { id: actor },
    depth: options.depth ?? 0,
  } as PluginEvent<N>;
}

/**
 * Builds an after-search event, e.g. for a handler's tests:
 * `createSearchEvent('PRESCRIBE_COMMAND__INDICATIONS__POST_SEARCH', { term: 'asth', results })`.
 */
export function createSearchEvent<N extends SearchEventName>(
  type: N,
  options: { term?: string; results?: AutocompleteOption[]; actor?: string; id?: string; depth?: number },
): PluginEvent<N> {
  const found = searchEvents.get(type);
  if (found === undefined) throw new TypeError(`unknown after-search event name ${JSON.stringify(type)}`);
  const context: SearchEventContext = {
    schema_key: found.kind,
    field: found.field,
    search_term: options.term ?? '',
    results: options.results ?? [],
  };
  return {
    id: options.id ?? EXAMPLE_IDS.event,
    type,
    target: { id: `${found.kind}.${found.field}`, type: 'field' },
    context,
    actor: { id: options.actor ?? EXAMPLE_IDS.actor },
    depth: options.depth ?? 0,
  } as PluginEvent<N>;
}
