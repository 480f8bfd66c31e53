// Reading the record from a handler (docs/plugins.md, "Reading the record"): the `data` binding
// behind `this.data` in the sandbox. Each read is answered by the operation its REST route calls
// (the same validation, the same views), as the plugin's own user `plugin:<name>`, and is held to:
//  * what the manifest declares (`data.read`): another resource answers `not_declared`;
//  * the scope: by default only the patient of the event being handled; another patient answers
//    `out_of_scope` unless the manifest asks `data.scope: instance` and an administrator gave the
//    `data:instance` grant (read once per call, when a read first needs it);
//  * the call's budget (reads and rows; runtime/calls.ts CallContext): past it, `budget_exceeded`,
//    and a call that does not catch it ends as over budget;
//  * the audit trail: one row per read (answered or refused), the plugin as actor, the event, what
//    was read and how many rows. Outside a PRE call the row is written before the data is given;
//    a PRE call's change is not written yet (its transaction may hold the only writer), so its
//    reads' rows are written right after, without waiting.
// Plugin code is hostile: every argument is checked here, and a failure is a typed error
// ({error: {code, message}}), never a stack or a server value.
import { Ajv, type ValidateFunction } from 'ajv';
import { ListCommandsQuery, ListNotesQuery, PageQuery } from '@charta/api';
import { DATA_RESOURCES, MAX_LIMIT, MAX_OFFSET, type DataErrorCode, type DataResource } from '@charta/api/constants';
import type { TSchema } from '@sinclair/typebox';
import type { Ctx } from '../context.ts';
import type { Storage } from '../storage/db.ts';
import type { Insertable } from 'kysely';
import type { AuditEventTable } from '../storage/schema.ts';
import type { LogBus } from '../logs/bus.ts';
import { appendAudit } from '../storage/audit-repository.ts';
import { getPluginGrants } from '../storage/plugins-repository.ts';
import { storageErrorOf, DatabaseUnavailableError } from '../storage/errors.ts';
import { Problem, type FieldProblem } from '../http/problem.ts';
import { schemaProblems } from '../http/error-handler.ts';
import type { List } from '../http/pagination.ts';
import { KEY_RE, UUID_RE } from '../lib/ids.ts';
import { nowMicros } from '../lib/time.ts';
import { getPatient } from '../patients/get.ts';
import { listPatientMetadata } from '../patients/list-metadata.ts';
import { getNote } from '../notes/get.ts';
import { listNotes } from '../notes/list.ts';
import { getCommand } from '../commands/get.ts';
import { listCommands } from '../commands/list.ts';
import { readChart } from '../chart/read.ts';
import { listBannerAlerts } from '../chart/banner-alerts.ts';
import type { Bindings } from './bindings.ts';
import { pluginActor, pluginPrincipal } from './effects.ts';
import type { CallContext } from './calls.ts';
import { eventPatient } from './events.ts';
import { storedGrants, type Grant } from './grants.ts';
import type { JsonObject, JsonValue } from './sandbox/types.ts';

/** The binding's name: `__charta_binding('data', {resource, op, ...})`. */
export const DATA_BINDING = 'data';

export interface DataEnv {
  storage: Storage;
  logs: LogBus;
  /** How far a list counts its rows exactly (CHARTA_LIST_COUNT_CAP). */
  listCountCap?: number;
}

/** A typed refusal, as the sandbox's DataError carries it. */
export class DataError extends Error {
  constructor(
    readonly code: DataErrorCode,
    message: string,
    readonly errors?: FieldProblem[],
    /** The patient a refused read was about (out_of_scope), for its audit row. */
    readonly patient?: string,
  ) {
    super(message);
  }
}

/** One read as it happened: what the audit row says. */
interface Read {
  resource: DataResource;
  op: string;
  /** The patient it is about (the audit row's entity), when known. */
  patient: string | null;
  /** The keys of the rows given (at most KEYS_AUDITED), or the key asked for. */
  keys: string[];
  rows: number;
}

/** Keys named in one audit row, at most. */
const KEYS_AUDITED = 2000;

const ajv = new Ajv({ allErrors: true, strict: false, coerceTypes: false, useDefaults: false, removeAdditional: false });
const compiled = new Map<TSchema, ValidateFunction>();
const validatorOf = (schema: TSchema): ValidateFunction => {
  let v = compiled.get(schema);
  if (v === undefined) compiled.set(schema, (v = ajv.compile(schema)));
  return v;
};

/** The query of a list read, checked by its REST route's schema: the same messages (`querystring.<name>`). */
function checkedQuery(schema: TSchema, value: unknown): Record<string, unknown> {
  const query = value === undefined || value === null ? {} : value;
  if (typeof query !== 'object' || Array.isArray(query)) throw new DataError('invalid', 'the query must be an object of filters');
  const validate = validatorOf(schema);
  if (!validate(query)) {
    const errors = schemaProblems(validate.errors ?? [], 'querystring');
    throw new DataError('invalid', `Invalid ${errors.map((e) => `${e.field} (${e.message})`).join(', ')}`, errors);
  }
  return query as Record<string, unknown>;
}

const keyArg = (args: JsonObject, name: string, shape: RegExp, what: string): string => {
  const value = args[name];
  if (typeof value !== 'string' || !shape.test(value)) throw new DataError('invalid', `${name} must be ${what}`, [{ field: name, message: `must be ${what}` }]);
  return value;
};
const PATIENT_KEY = 'a patient key (32 lowercase hexadecimal characters)';
const UUID = 'a dashed lowercase UUID';

/** The page a list read asks for, with the API's bounds (the schema checked them). */
const pageOf = (query: Record<string, unknown>) => ({
  limit: typeof query.limit === 'number' ? Math.min(query.limit, MAX_LIMIT) : 20,
  offset: typeof query.offset === 'number' ? Math.min(query.offset, MAX_OFFSET) : 0,
});

/** A list as a plugin gets it: the API's page, with the next page's offset instead of links. */
function listAnswer<T>(list: List<T>): JsonObject {
  return {
    count: list.count,
    count_is_estimate: list.countIsEstimate,
    next_offset: list.hasNext ? list.page.offset + list.page.limit : null,
    results: list.results as unknown as JsonValue[],
  };
}

/**
 * The audit rows of reads, written together: those appended in one turn of the event loop go in
 * one write transaction (one write, not one per read, beside the changes the reads' events come
 * from); each append's promise settles with that write.
 */
class AuditRows {
  private rows: Array<Insertable<AuditEventTable>> = [];
  private waiting: Array<{ resolve: () => void; reject: (err: unknown) => void }> = [];

  constructor(private readonly storage: Storage) {}

  append(row: Insertable<AuditEventTable>): Promise<void> {
    return new Promise((resolve, reject) => {
      this.rows.push(row);
      this.waiting.push({ resolve, reject });
      if (this.rows.length === 1) setImmediate(() => this.flush());
    });
  }

  private flush(): void {
    const rows = this.rows;
    const waiting = this.waiting;
    this.rows = [];
    this.waiting = [];
    this.storage
      .transact(async (trx) => {
        for (const row of rows) await appendAudit(trx, row);
      })
      .then(
        () => waiting.forEach((w) => w.resolve()),
        (err: unknown) => waiting.forEach((w) => w.reject(err)),
      );
  }
}

export function registerDataReads(bindings: Bindings, env: DataEnv): void {
  const auditRows = new AuditRows(env.storage);
  const grants = new WeakMap<CallContext, Promise<Grant[]>>();
  const grantsOf = (call: CallContext): Promise<Grant[]> => {
    let given = grants.get(call);
    if (given === undefined) {
      given = getPluginGrants(env.storage.reader, call.handler.plugin).then((row) => storedGrants(row?.grants));
      grants.set(call, given);
    }
    return given;
  };

  /** Throws out_of_scope unless the call may read this patient. */
  const reach = async (call: CallContext, patient: string): Promise<void> => {
    if (patient === eventPatient(call.event)) return;
    if (call.handler.data.scope === 'instance') {
      if ((await grantsOf(call)).includes('data:instance')) return;
      throw new DataError(
        'out_of_scope',
        `patient ${patient} is not the event's patient, and the data:instance grant is not given to ${call.handler.plugin}`,
        undefined,
        patient,
      );
    }
    throw new DataError('out_of_scope', `patient ${patient} is not the event's patient (the manifest's data.scope is event_patient)`, undefined, patient);
  };

  /** The patient filter of a list: the event's unless the call may read any, and then only one it may reach. */
  const scopedPatient = async (call: CallContext, asked: unknown): Promise<string | undefined> => {
    if (typeof asked === 'string') {
      await reach(call, asked);
      return asked;
    }
    if (call.handler.data.scope === 'instance' && (await grantsOf(call)).includes('data:instance')) return undefined;
    const own = eventPatient(call.event);
    if (own === null) throw new DataError('out_of_scope', 'this event is about no patient, so a list must name the patient_key');
    return own;
  };

  const ctxOf = (call: CallContext): Ctx => ({
    storage: env.storage,
    principal: pluginPrincipal(call.handler.plugin),
    requestId: call.requestId ?? '',
    logs: env.logs,
  });
  const countCap = env.listCountCap ?? 10_000;

  /** The read itself: its answer and what the audit says of it. */
  const read = async (call: CallContext, resource: DataResource, op: string, args: JsonObject): Promise<{ value: JsonValue; read: Read }> => {
    const ctx = ctxOf(call);
    const done = (value: JsonValue, patient: string | null, keys: string[], rows: number) => ({ value, read: { resource, op, patient, keys, rows } });
    /** A note or command by its uuid, if its patient is within reach. */
    const byUuid = async (find: (ctx: Ctx, uuid: string) => Promise<{ patient_key: string }>) => {
      const uuid = keyArg(args, 'uuid', UUID_RE, UUID);
      const found = await find(ctx, uuid);
      await reach(call, found.patient_key);
      return done(found as unknown as JsonValue, found.patient_key, [uuid], 1);
    };
    const page = (list: List<{ uuid: string }>, patient: string | undefined) =>
      done(
        listAnswer(list),
        patient ?? null,
        list.results.map((r) => r.uuid),
        list.results.length,
      );
    switch (`${resource}.${op}`) {
      case 'patients.get': {
        const key = keyArg(args, 'key', KEY_RE, PATIENT_KEY);
        await reach(call, key);
        return done((await getPatient(ctx, key)) as unknown as JsonValue, key, [key], 1);
      }
      case 'patients.metadata': {
        const key = keyArg(args, 'key', KEY_RE, PATIENT_KEY);
        await reach(call, key);
        const list = await listPatientMetadata(ctx, key, pageOf(checkedQuery(PageQuery, args.page)));
        return done(listAnswer(list), key, [key], list.results.length);
      }
      case 'notes.get':
        return byUuid(getNote);
      case 'notes.list': {
        const query = checkedQuery(ListNotesQuery, args.query);
        const patient = await scopedPatient(call, query.patient_key);
        return page(await listNotes(ctx, { ...query, patient_key: patient }, pageOf(query), countCap), patient);
      }
      case 'commands.get':
        return byUuid(getCommand);
      case 'commands.list': {
        const query = checkedQuery(ListCommandsQuery, args.query);
        const patient = await scopedPatient(call, query.patient_key);
        const filters: Record<string, string> = {};
        for (const [name, value] of Object.entries(query)) if (typeof value === 'string') filters[name] = value;
        if (patient !== undefined) filters.patient_key = patient;
        return page(await listCommands(ctx, filters, pageOf(query), countCap), patient);
      }
      case 'chart.get': {
        const key = keyArg(args, 'patient_key', KEY_RE, PATIENT_KEY);
        await reach(call, key);
        const all = { limit: MAX_LIMIT, offset: 0 };
        const [conditions, medications, goals, alerts] = await Promise.all([
          readChart(ctx, 'condition', key, {}, all),
          readChart(ctx, 'medication', key, {}, all),
          readChart(ctx, 'goal', key, {}, all),
          listBannerAlerts(ctx, key, all),
        ]);
        const rows = conditions.results.length + medications.results.length + goals.results.length + alerts.results.length;
        const value = {
          patient_key: key,
          conditions: conditions.results,
          medications: medications.results,
          goals: goals.results,
          banner_alerts: alerts.results,
        } as unknown as JsonValue;
        return done(value, key, [key], rows);
      }
      default:
        throw new DataError('invalid', `${resource} has no read ${JSON.stringify(op.slice(0, 40))}`);
    }
  };

  /** The audit row of a read, answered or refused (written before the answer, but for a PRE call's). */
  const audit = async (call: CallContext, what: { resource: string; op: string; patient: string | null; keys: string[]; rows: number; refused?: string }) => {
    const actor = pluginActor(call.handler.plugin);
    const row = {
      occurred_at: nowMicros(),
      actor,
      credential: actor,
      action: what.refused === undefined ? 'plugin.read' : 'plugin.read_refused',
      entity_type: what.patient === null ? `data.${what.resource}` : 'patient',
      entity_id: what.patient ?? '',
      before: null,
      after: JSON.stringify({
        event_id: call.event.id ?? null,
        event_type: call.type,
        handler: call.handler.id,
        read: `${what.resource}.${what.op}`,
        keys: what.keys.slice(0, KEYS_AUDITED),
        rows: what.rows,
        ...(what.refused === undefined ? {} : { refused: what.refused }),
      }),
      request_id: call.requestId ?? null,
    };
    const written = auditRows.append(row);
    if (!call.pre) {
      await written;
      return;
    }
    written.catch((err: unknown) =>
      env.logs.emit({
        level: 'error',
        event: `plugin ${call.handler.plugin}: the audit row of a read by ${call.handler.id} could not be written: ${err instanceof Error ? err.message : String(err)}`,
        plugin: call.handler.plugin,
        success: false,
      }),
    );
  };

  bindings.register(DATA_BINDING, async (plugin, args, call) => {
    if (call === undefined || call.handler.plugin !== plugin) return failure('failed', 'a read is answered only while one of the plugin’s handler calls runs');
    if (typeof args !== 'object' || args === null || Array.isArray(args)) return failure('invalid', 'a read is {resource, op, …}');
    const resource = args.resource;
    const op = typeof args.op === 'string' ? args.op : '';
    if (typeof resource !== 'string' || !(DATA_RESOURCES as readonly string[]).includes(resource)) {
      return failure('invalid', `resource must be one of ${DATA_RESOURCES.join(', ')}`);
    }
    const access = call.handler.data;
    const budget = call.reads;
    if (!access.read.includes(resource as DataResource)) {
      return failure('not_declared', `${plugin} does not declare reading ${resource} (the manifest's data.read: ${access.read.join(', ') || 'nothing'})`);
    }
    if (budget.count >= access.reads) {
      budget.overBudget = `more than ${access.reads} reads in one call`;
      return failure('budget_exceeded', `a handler call may read ${access.reads} times at most`);
    }
    budget.count++;
    let answer: { value: JsonValue; read: Read };
    try {
      answer = await read(call, resource as DataResource, op, args);
    } catch (err) {
      const error = dataErrorOf(err);
      if (error.code === 'database_unavailable') budget.databaseUnavailable = true;
      if (error.code === 'out_of_scope') {
        await audit(call, { resource, op, patient: error.patient ?? null, keys: [], rows: 0, refused: error.message }).catch(() => undefined);
      }
      return failure(error.code, error.message, error.errors);
    }
    if (budget.rows + answer.read.rows > access.rows) {
      budget.overBudget = `more than ${access.rows} rows in one call`;
      return failure('budget_exceeded', `a handler call may read ${access.rows} rows at most (${budget.rows} read, this read has ${answer.read.rows})`);
    }
    budget.rows += answer.read.rows;
    try {
      await audit(call, answer.read);
    } catch (err) {
      // Nothing is given that the audit trail does not hold.
      const unavailable = storageErrorOf(err) instanceof DatabaseUnavailableError;
      if (unavailable) budget.databaseUnavailable = true;
      return failure(unavailable ? 'database_unavailable' : 'failed', 'the read could not be recorded in the audit trail');
    }
    return { value: answer.value };
  });
}

const failure = (code: DataErrorCode, message: string, errors?: FieldProblem[]): JsonObject => ({
  error: { code, message, ...(errors === undefined ? {} : { errors: errors as unknown as JsonValue[] }) },
});

/** Any failure of a read as the typed error the plugin gets: the API's message, never a stack. */
function dataErrorOf(err: unknown): DataError {
  if (err instanceof DataError) return err;
  if (err instanceof Problem) {
    if (err.status === 404) return new DataError('not_found', err.detail);
    if (err.status === 400) return new DataError('invalid', err.detail, err.errors);
    if (err.status === 503) return new DataError('database_unavailable', err.detail);
    return new DataError('failed', err.detail);
  }
  const storage = storageErrorOf(err);
  if (storage instanceof DatabaseUnavailableError) return new DataError('database_unavailable', 'the database is unavailable');
  return new DataError('failed', 'the read failed');
}
