// The names of the events a plugin handler can respond to, named as the original platform names them:
// `<PREFIX>_COMMAND__<PHASE>` for each of the 15 command kinds (hpi's prefix is
// HISTORY_OF_PRESENT_ILLNESS), the kind-independent `<PHASE>_COMMAND_<ACTION>` events, one
// after-search event per autocomplete field (`<PREFIX>_COMMAND__<FIELD>__POST_SEARCH`), the
// events of a note's and a patient's changes (`NOTE_PRE_LOCK` before, `NOTE_LOCKED` after), and
// the plugin's own PLUGIN_CREATED / PLUGIN_UPDATED. What each event carries: (docs/plugins.md, "Events").

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

export const COMMAND_STATES = ['staged', 'committed', 'entered_in_error'] as const;
export type CommandState = (typeof COMMAND_STATES)[number];

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
/**
 * Events that are not a record's change: a request to one of the plugin's HTTP routes, and a tick
 * of one of its schedules (docs/plugins.md, "HTTP routes", "Scheduled tasks"). They go to one
 * handler, the route's or the schedule's, never through the outbox.
 */
export const ROUTE_EVENT = 'SIMPLE_API_REQUEST';
export const TICK_EVENT = 'CRON';
export type SurfaceEventName = typeof ROUTE_EVENT | typeof TICK_EVENT;

/**
 * The records other than commands whose changes have events, and what the API can do to each
 * (docs/plugins.md, "Event names"): a note is created, locked, unlocked and deleted; a patient is
 * created, and updated (nothing updates a patient yet: the API has no such route).
 */
export const RECORD_ACTIONS = {
  note: ['CREATE', 'LOCK', 'UNLOCK', 'DELETE'],
  patient: ['CREATE', 'UPDATE'],
} as const;

/** What the event of a change (PRE or POST) is about, as its `target.type` says: a command, a note, a patient. */
export const CHANGE_TARGETS = ['command', 'note', 'patient'] as const;
export type ChangeTarget = (typeof CHANGE_TARGETS)[number];

/** A record whose changes have events: `note`, `patient`. */
export type EventRecord = keyof typeof RECORD_ACTIONS;
/** What can happen to a record: `RecordAction<'note'>` is `'CREATE' | 'LOCK' | 'UNLOCK' | 'DELETE'`. */
export type RecordAction<R extends EventRecord = EventRecord> = (typeof RECORD_ACTIONS)[R][number];

/** Each action done, as its POST event names it. */
const DONE = { CREATE: 'CREATED', LOCK: 'LOCKED', UNLOCK: 'UNLOCKED', DELETE: 'DELETED', UPDATE: 'UPDATED' } as const satisfies Record<RecordAction, string>;

/**
 * The event of a record's change: before it `<RECORD>_PRE_<ACTION>` (`NOTE_PRE_LOCK`), after it
 * `<RECORD>_<ACTION>ED` (`NOTE_LOCKED`). The POST names are the original platform's
 * (`PATIENT_CREATED`, `PATIENT_UPDATED`), the PRE ones its pattern for a refusable change
 * (`NOTE_STATE_CHANGE_EVENT_PRE_CREATE`).
 */
export type RecordEventName<R extends EventRecord = EventRecord, W extends 'PRE' | 'POST' = 'PRE' | 'POST'> = {
  [K in R]: {
    [A in RecordAction<K>]: (W extends 'PRE' ? `${Uppercase<K>}_PRE_${A}` : never) | (W extends 'POST' ? `${Uppercase<K>}_${(typeof DONE)[A]}` : never);
  }[RecordAction<K>];
}[R];
/** `NOTE_PRE_CREATE`, `NOTE_CREATED`, `NOTE_PRE_LOCK`, `NOTE_LOCKED`… */
export type NoteEventName = RecordEventName<'note'>;
/** `PATIENT_PRE_CREATE`, `PATIENT_CREATED`, `PATIENT_PRE_UPDATE`, `PATIENT_UPDATED`. */
export type PatientEventName = RecordEventName<'patient'>;

export type EventName = CommandEventName | GenericCommandEventName | SearchEventName | RecordEventName | PluginEventName | SurfaceEventName;

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

/** Every after-search event name → its kind and field. */
export const SEARCH_EVENTS: ReadonlyMap<string, { kind: CommandKindKey; field: string }> = new Map(
  (Object.keys(SEARCH_FIELDS) as CommandKindKey[]).flatMap((kind) =>
    SEARCH_FIELDS[kind].map((field: string) => [`${COMMAND_EVENT_PREFIXES[kind]}_COMMAND__${upperSnake(field)}__POST_SEARCH`, { kind, field }] as const),
  ),
);

/** The kind and field an after-search event is about, or undefined for any other name. */
export function searchEventField(name: string): { kind: CommandKindKey; field: string } | undefined {
  const found = SEARCH_EVENTS.get(name);
  return found === undefined ? undefined : { ...found };
}

/** The event of one phase of a record's change: `recordEvent('note', 'PRE', 'LOCK')` is `NOTE_PRE_LOCK`, with POST `NOTE_LOCKED`. */
export function recordEvent<R extends EventRecord, W extends 'PRE' | 'POST', A extends RecordAction<R>>(record: R, when: W, action: A): RecordEventName<R, W> {
  if (!Object.hasOwn(RECORD_ACTIONS, record) || !(RECORD_ACTIONS[record] as readonly string[]).includes(action)) {
    throw new TypeError(`a ${String(record)} has no action ${JSON.stringify(action)}`);
  }
  const name = record.toUpperCase();
  return (when === 'PRE' ? `${name}_PRE_${action}` : `${name}_${DONE[action]}`) as RecordEventName<R, W>;
}

/** Every event of a record's change → its record, phase and action. */
export const RECORD_EVENTS: ReadonlyMap<string, { record: EventRecord; when: 'PRE' | 'POST'; action: RecordAction }> = new Map(
  (Object.keys(RECORD_ACTIONS) as EventRecord[]).flatMap((record) =>
    (RECORD_ACTIONS[record] as readonly RecordAction[]).flatMap((action) =>
      (['PRE', 'POST'] as const).map((when) => [recordEvent(record, when, action as never), { record, when, action }] as const),
    ),
  ),
);

function eventNames(): EventName[] {
  const names: string[] = [];
  for (const prefix of Object.values(COMMAND_EVENT_PREFIXES)) {
    for (const action of COMMAND_ACTIONS) {
      names.push(`${prefix}_COMMAND__PRE_${action}`, `${prefix}_COMMAND__POST_${action}`);
    }
  }
  for (const action of COMMAND_ACTIONS) names.push(`PRE_COMMAND_${action}`, `POST_COMMAND_${action}`);
  names.push(...SEARCH_EVENTS.keys());
  names.push(...RECORD_EVENTS.keys());
  names.push('PLUGIN_CREATED', 'PLUGIN_UPDATED', ROUTE_EVENT, TICK_EVENT);
  return names as EventName[];
}

/** Every event name: the kinds' lifecycle events, the generic ones, the after-search ones, the notes' and patients', the plugin's own. */
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
