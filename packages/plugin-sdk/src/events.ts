// The events a plugin handler can respond to and what each carries (docs/plugins.md, "Events").
// Their names are part of the wire contract, @charta/api, re-exported here for plugin authors.
import {
  COMMAND_EVENT_PREFIXES,
  RECORD_EVENTS,
  SEARCH_EVENTS,
  TICK_EVENT,
  isEventName,
  noteTakesCommands,
  type CommandAction,
  type CommandEventName,
  type CommandKindKey,
  type CommandState,
  type EventName,
  type GenericCommandEventName,
  type NoteEventName,
  type PatientEventName,
  type PluginEventName,
  type RecordAction,
  type RouteMethod,
  type SearchEventName,
} from '@charta/api/constants';
import type { Coding, Command, Note, OptionDocument, Patient } from '@charta/api';

export {
  CHANGE_TARGETS,
  COMMAND_ACTIONS,
  COMMAND_EVENT_PREFIXES,
  COMMAND_STATES,
  EVENT_NAMES,
  RECORD_ACTIONS,
  RECORD_EVENTS,
  SEARCH_FIELDS,
  commandEvent,
  isEventName,
  recordEvent,
  searchEvent,
  searchEventField,
  ROUTE_EVENT,
  TICK_EVENT,
} from '@charta/api/constants';
export type {
  ChangeTarget,
  CommandAction,
  CommandEventName,
  CommandKindKey,
  CommandState,
  EventName,
  EventRecord,
  GenericCommandEventName,
  NoteEventName,
  PatientEventName,
  PluginEventName,
  RecordAction,
  RecordEventName,
  SearchEventName,
  SearchField,
  SurfaceEventName,
} from '@charta/api/constants';

/**
 * A command as the API returns it (`GET /commands/<uuid>/`): timestamps ISO 8601 with
 * microseconds, staff keys (a plugin's own key is `plugin:<name>`), `data` the command's values
 * keyed by field name (`{}` before the first update).
 */
export type CommandSnapshot = Command;

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

/** A note as the API returns it (`GET /notes/<uuid>/`): timestamps ISO 8601 with microseconds. */
export type NoteSnapshot = Note;

/** What a note event carries (`NOTE_PRE_LOCK`, `NOTE_LOCKED`…). */
export interface NoteEventContext {
  /**
   * The note as the API returns it, as it is after the change (a deleted note with `deleted:
   * true`). On a PRE event the change is not written yet, and a validation error keeps it from
   * being written.
   */
  note: NoteSnapshot;
  /** The note before the change; null when it is being created. */
  previous: NoteSnapshot | null;
  patient: { key: string };
}

/** A patient as the API returns it (`GET /patients/<key>/`). */
export type PatientSnapshot = Patient;

/** What a patient event carries (`PATIENT_PRE_CREATE`, `PATIENT_CREATED`…). */
export interface PatientEventContext {
  /** The patient as the API returns it (its `key` among the rest), as it is after the change; on a PRE event not written yet. */
  patient: PatientSnapshot;
  /** The patient before the change; null when it is being created. */
  previous: PatientSnapshot | null;
}

/** One option of an autocomplete field, as the instance's autocomplete returns it and `data` stores it (@charta/api's OptionDocument). */
export type AutocompleteOption = OptionDocument;
export type { Coding };

/** What an after-search event carries: the search and the options found, best first. */
export interface SearchEventContext {
  schema_key: CommandKindKey;
  /** The field's name as the API spells it: `indications`, `lab_partner`. */
  field: string;
  search_term: string;
  results: AutocompleteOption[];
}

/**
 * A request to one of the plugin's routes (docs/plugins.md, "HTTP routes"), as the handler is given
 * it: only the headers of the safe list, never the instance's Authorization or cookies.
 */
export interface RouteRequest {
  method: RouteMethod;
  /** The path under the plugin's prefix, as requested (`/patients/p1/summary`). */
  path: string;
  /** The route that matched, as declared (`{ method: 'GET', path: '/patients/:key/summary' }`). */
  route: { method: RouteMethod; path: string };
  /** The pattern's `:name` segments, decoded. */
  params: Record<string, string>;
  /** The query string: a name given more than once has a list. */
  query: Record<string, string | string[]>;
  /** Lower-case names: content-type, accept, user-agent, content-length, every `x-` header, and the route's signature header. */
  headers: Record<string, string>;
  /** JSON: the parsed value; a form (application/x-www-form-urlencoded): its fields; text: the string; no body: null. */
  body: unknown;
  /** The body as sent, as text ('' when none): what a signature is computed over. */
  raw_body: string;
  /** The staff key of a `staff` or `api_key` route's caller; null on `secret` and `public` routes. */
  staff_key: string | null;
  /** The instance's id of this request (in its log lines and a 502's answer). */
  request_id: string;
}

/** What a `SIMPLE_API_REQUEST` event carries. */
export interface RouteEventContext {
  request: RouteRequest;
}

/** What a `CRON` event carries (docs/plugins.md, "Scheduled tasks"): the tick run, and the one before it that ran (null the first time). */
export interface TickEventContext {
  /** The tick's time, ISO 8601 UTC (`2026-11-26T02:00:00.000Z`). */
  tick: string;
  previous_tick: string | null;
  /** The handler's SCHEDULE. */
  schedule: string;
}

type TargetType<N extends EventName> = N extends 'SIMPLE_API_REQUEST'
  ? 'route'
  : N extends 'CRON'
    ? 'schedule'
    : N extends PluginEventName
      ? 'plugin'
      : N extends SearchEventName
        ? 'field'
        : N extends NoteEventName
          ? 'note'
          : N extends PatientEventName
            ? 'patient'
            : 'command';
type ContextOf<N extends EventName> = N extends 'SIMPLE_API_REQUEST'
  ? RouteEventContext
  : N extends 'CRON'
    ? TickEventContext
    : N extends PluginEventName
      ? Record<string, unknown>
      : N extends SearchEventName
        ? SearchEventContext
        : N extends NoteEventName
          ? NoteEventContext
          : N extends PatientEventName
            ? PatientEventContext
            : CommandEventContext;

export interface PluginEvent<N extends EventName = EventName> {
  /** The event's own id (a uuid): with the handler and an effect's index, the key that makes applying an effect twice harmless. */
  id: string;
  /** The event's name, e.g. `PLAN_COMMAND__POST_COMMIT`. */
  type: N;
  /**
   * What the event is about: a command's uuid for command events, a note's uuid for note events,
   * a patient's key for patient events, `<schema_key>.<field>` for after-search events, the
   * plugin's name for plugin events, the handler (`<entry>:<class>`) for a tick of its schedule.
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
  if (!isEventName(type) || SEARCH_EVENTS.has(type) || RECORD_EVENTS.has(type) || type.startsWith('PLUGIN_')) {
    throw new TypeError(`unknown event name ${JSON.stringify(type)}`);
  }
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
  const found = SEARCH_EVENTS.get(type);
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

/** The note's flags after each action (a deleted note keeps its lock), and before it. */
const NOTE_AFTER: Record<RecordAction<'note'>, Partial<Pick<NoteSnapshot, 'locked' | 'deleted'>>> = {
  CREATE: { locked: false, deleted: false },
  LOCK: { locked: true },
  UNLOCK: { locked: false },
  DELETE: { deleted: true },
};
const NOTE_BEFORE: Record<Exclude<RecordAction<'note'>, 'CREATE'>, Partial<Pick<NoteSnapshot, 'locked' | 'deleted'>>> = {
  LOCK: { locked: false },
  UNLOCK: { locked: true },
  DELETE: { deleted: false },
};

/** The action of a record's event name, and the record it is about. */
function recordOf(type: string, record: 'note' | 'patient'): RecordAction {
  const found = RECORD_EVENTS.get(type);
  if (found === undefined || found.record !== record) throw new TypeError(`unknown ${record} event name ${JSON.stringify(type)}`);
  return found.action;
}

export interface CreateNoteEventOptions {
  /** The note's uuid (default EXAMPLE_IDS.note). */
  target?: string;
  /** The patient's key (`note.patient_key`). */
  patient?: string;
  /** The acting staff key. */
  actor?: string;
  /** The event's id. */
  id?: string;
  depth?: number;
  /** Members of the note to set (they win over what the other options imply). */
  note?: Partial<NoteSnapshot>;
  /** The note before the change; by default null for CREATE, else the note in its previous state. */
  previous?: NoteSnapshot | null;
}

/**
 * Builds a note event the way the instance does, e.g. for a handler's tests:
 * `createNoteEvent('NOTE_PRE_LOCK', { target: uuid })`. `context.note` is the note as the action
 * leaves it (locked by LOCK, deleted by DELETE), `previous` as it was before.
 */
export function createNoteEvent<N extends NoteEventName>(type: N, options: CreateNoteEventOptions = {}): PluginEvent<N> {
  const action = recordOf(type, 'note') as RecordAction<'note'>;
  const shown = { note_type: 'encounter' as NoteSnapshot['note_type'], locked: false, deleted: false, ...NOTE_AFTER[action], ...options.note };
  const note: NoteSnapshot = {
    uuid: options.target ?? EXAMPLE_IDS.note,
    patient_key: options.patient ?? EXAMPLE_IDS.patient,
    title: 'Office visit',
    created_at: EXAMPLE_IDS.time,
    updated_at: EXAMPLE_IDS.time,
    ...options.note,
    ...shown,
    takes_commands: options.note?.takes_commands ?? noteTakesCommands(shown),
  };
  let previous: NoteSnapshot | null = null;
  if (options.previous !== undefined) previous = options.previous;
  else if (action !== 'CREATE') {
    const before = { ...note, ...NOTE_BEFORE[action] };
    previous = { ...before, takes_commands: noteTakesCommands(before) };
  }
  const context: NoteEventContext = { note, previous, patient: { key: note.patient_key } };
  return {
    id: options.id ?? EXAMPLE_IDS.event,
    type,
    target: { id: note.uuid, type: 'note' },
    context,
    actor: { id: options.actor ?? EXAMPLE_IDS.actor },
    depth: options.depth ?? 0,
  } as PluginEvent<N>;
}

export interface CreatePatientEventOptions {
  /** The patient's key (default EXAMPLE_IDS.patient). */
  target?: string;
  /** The acting staff key. */
  actor?: string;
  /** The event's id. */
  id?: string;
  depth?: number;
  /** Members of the patient to set. */
  patient?: Partial<PatientSnapshot>;
  /** The patient before the change; by default null for CREATE, else the patient as it is. */
  previous?: PatientSnapshot | null;
}

/** Builds a patient event the way the instance does, e.g. for a handler's tests: `createPatientEvent('PATIENT_CREATED', { target: key })`. */
export function createPatientEvent<N extends PatientEventName>(type: N, options: CreatePatientEventOptions = {}): PluginEvent<N> {
  const action = recordOf(type, 'patient');
  const patient: PatientSnapshot = {
    key: options.target ?? EXAMPLE_IDS.patient,
    first_name: 'Ada',
    last_name: 'Example',
    birth_date: null,
    sex_at_birth: null,
    created_at: EXAMPLE_IDS.time,
    ...options.patient,
  };
  const previous = options.previous !== undefined ? options.previous : action === 'CREATE' ? null : { ...patient };
  const context: PatientEventContext = { patient, previous };
  return {
    id: options.id ?? EXAMPLE_IDS.event,
    type,
    target: { id: patient.key, type: 'patient' },
    context,
    actor: { id: options.actor ?? EXAMPLE_IDS.actor },
    depth: options.depth ?? 0,
  } as PluginEvent<N>;
}

export interface CreateRouteEventOptions {
  /** The path under the plugin's prefix, as requested (`/webhooks/lab-result`). */
  path: string;
  method?: RouteMethod;
  /** The declared pattern that matched; the path itself by default. */
  route?: string;
  params?: Record<string, string>;
  query?: Record<string, string | string[]>;
  /** Lower-cased here, as the instance gives them. */
  headers?: Record<string, string>;
  /** The parsed body; its raw text is JSON of it unless `raw_body` is given. */
  body?: unknown;
  raw_body?: string;
  staff_key?: string | null;
  request_id?: string;
  id?: string;
  /** Who the event says acted: the staff key when there is one, else `route:<auth>` (the instance's), `route:test` by default. */
  actor?: string;
}

/**
 * Builds the `SIMPLE_API_REQUEST` event the instance gives a route's handler (the instance builds
 * its own with it), e.g. for its tests:
 * `createRouteEvent({ method: 'POST', path: '/webhooks/lab-result', body: { … }, headers: { 'x-signature': … } })`.
 */
export function createRouteEvent(options: CreateRouteEventOptions): PluginEvent<'SIMPLE_API_REQUEST'> {
  const method = options.method ?? 'GET';
  const raw = options.raw_body ?? (options.body === undefined ? '' : typeof options.body === 'string' ? options.body : JSON.stringify(options.body));
  const headers: Record<string, string> = {};
  if (options.body !== undefined && options.body !== null && typeof options.body !== 'string') headers['content-type'] = 'application/json';
  for (const [name, value] of Object.entries(options.headers ?? {})) headers[name.toLowerCase()] = value;
  const requestId = options.request_id ?? EXAMPLE_IDS.event;
  return {
    id: options.id ?? EXAMPLE_IDS.event,
    type: 'SIMPLE_API_REQUEST',
    target: { id: `${method} ${options.route ?? options.path}`, type: 'route' },
    context: {
      request: {
        method,
        path: options.path,
        route: { method, path: options.route ?? options.path },
        params: options.params ?? {},
        query: options.query ?? {},
        headers,
        body: options.body === undefined ? null : options.body,
        raw_body: raw,
        staff_key: options.staff_key ?? null,
        request_id: requestId,
      },
    },
    actor: { id: options.staff_key ?? options.actor ?? 'route:test' },
    depth: 0,
  };
}

export interface CreateTickEventOptions {
  /** The tick's time (default EXAMPLE_IDS.time): a Date or ISO 8601 text, given to the handler as ISO 8601 UTC. */
  tick?: Date | string;
  /** The tick before it that ran; null (the default) for the first. */
  previous_tick?: Date | string | null;
  /** The handler's SCHEDULE (default `* * * * *`). */
  schedule?: string;
  /** `<entry>:<class>` of the scheduled handler: the event's target (default `handlers.js:ScheduledHandler`). */
  handler?: string;
  /** The plugin's name: the instance's ticks act as `plugin:<name>` (default `plugin:example`). */
  plugin?: string;
  /** The event's id. */
  id?: string;
}

/** An ISO 8601 UTC text of a Date or of text Date understands; a TypeError for what it does not. */
function tickTime(value: Date | string, what: string): string {
  const date = typeof value === 'string' ? new Date(value) : value;
  if (!(date instanceof Date) || Number.isNaN(date.getTime())) throw new TypeError(`${what} ${JSON.stringify(String(value).slice(0, 60))} is not a time`);
  return date.toISOString();
}

/**
 * Builds a `CRON` event the way the instance does when a tick of a schedule is due (docs/plugins.md,
 * "Scheduled tasks"), e.g. for a scheduled handler's tests: `createTickEvent({ tick: '2026-11-26T02:00:00Z' })`.
 * The instance builds its ticks' events with it too.
 */
export function createTickEvent(options: CreateTickEventOptions = {}): PluginEvent<'CRON'> {
  const context: TickEventContext = {
    tick: tickTime(options.tick ?? EXAMPLE_IDS.time, 'tick'),
    previous_tick: options.previous_tick === undefined || options.previous_tick === null ? null : tickTime(options.previous_tick, 'previous_tick'),
    schedule: options.schedule ?? '* * * * *',
  };
  return {
    id: options.id ?? EXAMPLE_IDS.event,
    type: TICK_EVENT,
    target: { id: options.handler ?? 'handlers.js:ScheduledHandler', type: 'schedule' },
    context,
    actor: { id: `plugin:${options.plugin ?? 'example'}` },
    depth: 0,
  } as PluginEvent<'CRON'>;
}
