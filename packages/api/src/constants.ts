// The constants of the wire contract (docs/architecture.md, "The contract package"): what the API
// takes and answers, named once for the server, the client, the console, the plugin SDK and the
// CLI. Nothing here imports a schema library, so a browser bundle that needs a list pays for the
// list only.
export * from './events.ts';
export * from './effects.ts';
import type { CommandKindKey } from './events.ts';
export { CodeSystems, CODE_SYSTEM_NAMES, codeSystemName } from './code-systems.ts';
export { LANGUAGE_CODES, LANGUAGE_NAMES, languageName } from './languages.ts';

/** A patient's sex at birth (docs/api.md, "Patients"): the values of FHIR's administrative gender. */
export const SEXES_AT_BIRTH = ['female', 'male', 'other', 'unknown'] as const;
export type SexAtBirth = (typeof SEXES_AT_BIRTH)[number];

/** The name a person reads of each command kind (the kinds are the keys of COMMAND_EVENT_PREFIXES; docs/command-kinds.md). */
export const COMMAND_KIND_LABELS: Readonly<Record<CommandKindKey, string>> = {
  assess: 'Assess',
  diagnose: 'Diagnose',
  educationalMaterial: 'Educational material',
  goal: 'Goal',
  hpi: 'History of present illness',
  instruct: 'Instruct',
  labOrder: 'Lab order',
  medicationStatement: 'Medication statement',
  perform: 'Perform',
  plan: 'Plan',
  prescribe: 'Prescribe',
  questionnaire: 'Questionnaire',
  reasonForVisit: 'Reason for visit',
  stopMedication: 'Stop medication',
  updateGoal: 'Update goal',
};

/** The filters of `GET /core/api/v1/commands` (docs/api.md, "Filters"). */
export const LIST_FILTERS = ['patient_key', 'note_key', 'originator_key', 'committer_key', 'schema_key', 'state'] as const;
/** `created_at__gte`…: typed as the literal names, so the list query's type (`CommandsQuery`, `this.data.commands.list`) keeps every filter. */
export type TimeFilter = `${'created_at' | 'updated_at'}${'' | '__lt' | '__lte' | '__gt' | '__gte'}`;
export const TIME_FILTERS: readonly TimeFilter[] = (['created_at', 'updated_at'] as const).flatMap((c) =>
  (['', '__lt', '__lte', '__gt', '__gte'] as const).map((s): TimeFilter => `${c}${s}`),
);
export const ORDERINGS = ['created_at', '-created_at', 'updated_at', '-updated_at'] as const;

/** The longest autocomplete `search_term`, in characters. */
/** The field type names of the fields endpoint, as the original Commands API reports them. */
export const FIELD_TYPES = [
  'MultiLineTextField',
  'TextField',
  'AutocompleteField',
  'ChoiceField',
  'MultipleChoiceField',
  'DateField',
  'ApproximateDateField',
  'IntegerField',
  'DecimalField',
  'CheckboxField',
] as const;
export type FieldType = (typeof FIELD_TYPES)[number];

export const MAX_SEARCH_TERM = 200;

/** Page parameters of every list (docs/api.md, "Pagination"). */
export const DEFAULT_LIMIT = 20;
export const MAX_LIMIT = 1000;
export const MAX_OFFSET = 10_000_000;

export const NOTE_TYPES = ['encounter', 'review', 'data_import', 'letter', 'message', 'phone_call'] as const;
export type NoteType = (typeof NOTE_TYPES)[number];
/** Notes of these types take commands (docs/api.md, "Notes"). */
export const NOTE_TYPES_TAKING_COMMANDS: readonly NoteType[] = ['encounter', 'review', 'data_import'];
/** The note rule: commands can be added to a note, or changed in it, when its type takes them and it is neither locked nor deleted. */
export const noteTakesCommands = (note: { note_type: string; locked: boolean; deleted: boolean }): boolean =>
  (NOTE_TYPES_TAKING_COMMANDS as readonly string[]).includes(note.note_type) && !note.locked && !note.deleted;

/** The levels of the log stream, least severe first. */
export const LOG_LEVELS = ['debug', 'info', 'warning', 'error'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** A chart entry's kinds and the statuses each may have (docs/api.md, "The patient's chart"). */
export const CHART_STATUSES = {
  condition: ['active', 'entered_in_error'],
  medication: ['active', 'stopped', 'entered_in_error'],
  goal: ['open', 'closed', 'entered_in_error'],
} as const satisfies Record<string, readonly string[]>;
export type ChartEntity = keyof typeof CHART_STATUSES;

/** The grants an administrator may give a plugin, each with what it allows (docs/plugins.md, "Grants"). */
export const GRANTS = {
  'effects:any-command': 'Effects may commit, enter in error, edit or delete commands the plugin did not originate (of the patients it may reach).',
  'effects:instance': "Effects may reach any patient of the instance, not only the event's.",
  'data:instance': "Reads (this.data) may reach any patient of the instance, not only the event's (the manifest's data.scope: instance).",
} as const satisfies Record<string, string>;
export type Grant = keyof typeof GRANTS;
/** Every grant name, sorted. */
export const GRANT_NAMES = (Object.keys(GRANTS) as Grant[]).sort();

/**
 * A plugin's name as a path or a filter names it (docs/api.md, "Plugins"): the original tool
 * writes `plugin_boilerplate` where Charta's slug is `plugin-boilerplate`, so `_` and `-` are the
 * same character in a plugin name.
 */
export const normalizePluginName = (raw: string): string => raw.replace(/_/g, '-');

/** What a plugin's handlers may read of the record through `this.data` (docs/plugins.md, "Reading the record"). */
export const DATA_RESOURCES = ['patients', 'notes', 'commands', 'chart', 'reference', 'terminology'] as const;
export type DataResource = (typeof DATA_RESOURCES)[number];
/**
 * The reference data catalogues a plugin reads (`this.data.reference.<catalogue>`), each with the
 * field of its entries that `get` finds one by, and for a nested one the field naming its parent
 * (docs/api.md, "Admin API": the same entries as the admin lists show them).
 */
export const REFERENCE_CATALOGUES = {
  staff: { key: 'key' },
  lab_partners: { key: 'id' },
  lab_tests: { key: 'id', parent: 'lab_partner' },
  pharmacies: { key: 'ncpdp_id' },
  reason_for_visit_codings: { key: 'id' },
  questionnaires: { key: 'id' },
  educational_materials: { key: 'id' },
  dispense_units: { key: 'ncpdp_quantity_qualifier_code' },
} as const satisfies Record<string, { key: string; parent?: string }>;
export type ReferenceCatalogue = keyof typeof REFERENCE_CATALOGUES;
export const REFERENCE_CATALOGUE_NAMES = Object.keys(REFERENCE_CATALOGUES) as ReferenceCatalogue[];

/** `event_patient` (the default): only the patient of the event handled; `instance`: any, with the `data:instance` grant. */
export const DATA_SCOPES = ['event_patient', 'instance'] as const;
export type DataScope = (typeof DATA_SCOPES)[number];
/** The typed errors a read throws inside the sandbox (`error.code`). */
export const DATA_ERROR_CODES = [
  'out_of_scope',
  'not_declared',
  'budget_exceeded',
  'invalid',
  'not_found',
  'database_unavailable',
  'failed',
  // this.cache's (docs/plugins.md, "Cache"):
  'too_large',
  'cache_full',
  'not_allowed',
] as const;
export type DataErrorCode = (typeof DATA_ERROR_CODES)[number];
/** this.cache (docs/plugins.md, "Cache"): a key's longest length, a value's longest JSON, a plugin's whole cache (keys and values), the longest time to live. */
export const CACHE_KEY_MAX_CHARS = 256;
export const CACHE_VALUE_MAX_CHARS = 64 * 1024;
export const CACHE_PLUGIN_MAX_CHARS = 1024 * 1024;
export const CACHE_TTL_MAX_SECONDS = 30 * 24 * 3600;

/** A handler call's read budget: at most this many reads and rows in all, unless the manifest or the instance set fewer. */
export const DEFAULT_DATA_READS_PER_CALL = 50;
export const DEFAULT_DATA_ROWS_PER_CALL = 2000;

/**
 * Plugin routes (docs/plugins.md, "HTTP routes"): served under this prefix + the plugin's name; the
 * methods a route may declare; how a route authenticates (there is no default: a route names one,
 * or says `public: true`).
 */
export const PLUGIN_ROUTE_PREFIX = '/plugin-io/api/';
export const ROUTE_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;
export type RouteMethod = (typeof ROUTE_METHODS)[number];
export const ROUTE_AUTHS = ['staff', 'api_key', 'secret', 'public'] as const;
export type RouteAuth = (typeof ROUTE_AUTHS)[number];
/** The most routes one plugin may declare, a route's longest path pattern, and a request's or answer's largest body. */
export const MAX_ROUTES_PER_PLUGIN = 64;
export const MAX_ROUTE_PATH_CHARS = 200;
export const ROUTE_BODY_MAX_BYTES = 1024 * 1024;
/** The effect a route handler's answer carries its response in (exactly one, first; the SDK's RouteHandler makes it). */
export const ROUTE_RESPONSE_EFFECT = 'HTTP_RESPONSE';

/** Where a plugin stands in the runtime (docs/plugins.md, "Faults"). */
export const PLUGIN_RUNTIME_STATES = ['running', 'loading', 'failing', 'cannot-run', 'stopped'] as const;
export type PluginRuntimeState = (typeof PLUGIN_RUNTIME_STATES)[number];

export const STAFF_ROLES = ['provider', 'nurse', 'staff'] as const;
export type StaffRole = (typeof STAFF_ROLES)[number];

export const QUESTION_KINDS = ['TXT', 'INT', 'SING', 'MULT'] as const;
export type QuestionKind = (typeof QUESTION_KINDS)[number];

/** Codes local to the instance (reason-for-visit codings, questionnaire codes), as the original names them. */
export const INTERNAL_SYSTEM = 'INTERNAL';
