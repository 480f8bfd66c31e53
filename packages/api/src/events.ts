// The names of the events a plugin handler can respond to, named as the original platform names them:
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

/** What the event of a change (PRE or POST) is about, as its `target.type` says: a command, a note, a patient. */
export const CHANGE_TARGETS = ['command', 'note', 'patient'] as const;
export type ChangeTarget = (typeof CHANGE_TARGETS)[number];
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

function eventNames(): EventName[] {
  const names: string[] = [];
  for (const prefix of Object.values(COMMAND_EVENT_PREFIXES)) {
    for (const action of COMMAND_ACTIONS) {
      names.push(`${prefix}_COMMAND__PRE_${action}`, `${prefix}_COMMAND__POST_${action}`);
    }
  }
  for (const action of COMMAND_ACTIONS) names.push(`PRE_COMMAND_${action}`, `POST_COMMAND_${action}`);
  names.push(...SEARCH_EVENTS.keys());
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
