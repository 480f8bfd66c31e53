// What a read through `this.data` is held to, whatever answers it (docs/plugins.md, "Reading the
// record"): the instance's record (data-reads.ts) or a test's fixture (fixture-reads.ts, behind
// `charta plugin test` and `charta plugin run`: docs/plugins.md, "Testing a plugin"). One copy of
// these rules, so that a read refused on the instance is refused in a plugin's tests, with the
// same code and message:
//  * the call: a read is answered only while one of the plugin's handler calls runs;
//  * what the manifest declares (`data.read`): another resource answers `not_declared`;
//  * the call's budget (reads, then rows; runtime/calls.ts CallContext): past it, `budget_exceeded`,
//    and a call that does not catch it ends as over budget;
//  * the scope: by default only the patient of the event being handled; another patient answers
//    `out_of_scope` unless the manifest asks `data.scope: instance` and the source says the plugin
//    holds the `data:instance` grant (asked once per call, when a read first needs it);
//  * the arguments: keys of the right shape, a list's query checked by its REST route's schema;
//  * the record of each read (the audit trail, or a test's list of reads): an answered read is
//    recorded before the plugin is given it, a read refused as out of scope is recorded too.
// A source gives the read itself, the grant and the recording. Plugin code is hostile: every
// argument is checked, and a failure is a typed error ({error: {code, message}}), never a stack
// or a value of the server's.
import { Ajv, type ValidateFunction } from 'ajv';
import {
  DATA_RESOURCES,
  MAX_LIMIT,
  MAX_OFFSET,
  type DataErrorCode,
  type DataResource,
  REFERENCE_CATALOGUES,
  REFERENCE_CATALOGUE_NAMES,
  type ReferenceCatalogue,
  CodeSystems,
  MAX_SEARCH_TERM,
} from '@charta/api/constants';
import type { TSchema } from '@sinclair/typebox';
import { storageErrorOf, DatabaseUnavailableError } from '../storage/errors.ts';
import { Problem, type FieldProblem } from '../http/problem.ts';
import { schemaProblems } from '../http/error-handler.ts';
import type { List } from '../http/pagination.ts';
import type { Binding } from './bindings.ts';
import type { CallContext } from './calls.ts';
import { eventPatient } from './events.ts';
import type { JsonObject, JsonValue } from './sandbox/types.ts';

/** The binding's name: `__charta_binding('data', {resource, op, ...})`. */
export const DATA_BINDING = 'data';

/** A typed refusal, as the sandbox's DataError carries it. */
export class DataError extends Error {
  constructor(
    readonly code: DataErrorCode,
    message: string,
    readonly errors?: FieldProblem[],
    /** The patient a refused read was about (out_of_scope), for its record. */
    readonly patient?: string,
  ) {
    super(message);
  }
}

/** One read as it happened: what its record (an audit row) says. */
export interface Read {
  resource: DataResource;
  op: string;
  /** The patient it is about (the audit row's entity), when known. */
  patient: string | null;
  /** The keys of the rows given, or the key asked for. */
  keys: string[];
  rows: number;
}

/** A read as it is recorded: answered, or refused as out of scope (`refused`: why). */
export interface ReadRecord {
  resource: string;
  op: string;
  patient: string | null;
  keys: string[];
  rows: number;
  refused?: string;
}

/** Whom one call may read: the event's patient, or any once instance scope is granted. */
export interface ReadScope {
  /** Throws out_of_scope unless the call may read this patient. */
  reach(patient: string): Promise<void>;
  /** The patient filter of a list: the event's unless the call may read any, and then only one it may reach. */
  scopedPatient(asked: unknown): Promise<string | undefined>;
}

/** What answers the reads: the instance's record, or a test's fixture. */
export interface DataSource {
  /** Whether the calling plugin holds the `data:instance` grant (asked at most once per call). */
  instanceGranted(call: CallContext): Promise<boolean>;
  /** The read itself (declared, within the budget of reads): its answer and what its record says; a failure throws (a DataError or what dataErrorOf maps). */
  read(call: CallContext, resource: DataResource, op: string, args: JsonObject, scope: ReadScope): Promise<{ value: JsonValue; read: Read }>;
  /** Records a read; throws when it cannot, and the read then gives nothing. */
  record(call: CallContext, read: ReadRecord): Promise<void>;
}

const ajv = new Ajv({ allErrors: true, strict: false, coerceTypes: false, useDefaults: false, removeAdditional: false });
const compiled = new Map<TSchema, ValidateFunction>();
const validatorOf = (schema: TSchema): ValidateFunction => {
  let v = compiled.get(schema);
  if (v === undefined) compiled.set(schema, (v = ajv.compile(schema)));
  return v;
};

/** The query of a list read, checked by its REST route's schema: the same messages (`querystring.<name>`). */
export function checkedQuery(schema: TSchema, value: unknown): Record<string, unknown> {
  const query = value === undefined || value === null ? {} : value;
  if (typeof query !== 'object' || Array.isArray(query)) throw new DataError('invalid', 'the query must be an object of filters');
  const validate = validatorOf(schema);
  if (!validate(query)) {
    const errors = schemaProblems(validate.errors ?? [], 'querystring');
    throw new DataError('invalid', `Invalid ${errors.map((e) => `${e.field} (${e.message})`).join(', ')}`, errors);
  }
  return query as Record<string, unknown>;
}

/** A key argument of a read, of the shape `shape` (what: how the message names it). */
export const keyArg = (args: JsonObject, name: string, shape: RegExp, what: string): string => {
  const value = args[name];
  if (typeof value !== 'string' || !shape.test(value)) throw new DataError('invalid', `${name} must be ${what}`, [{ field: name, message: `must be ${what}` }]);
  return value;
};
export const PATIENT_KEY = 'a patient key (32 lowercase hexadecimal characters)';

const SYSTEMS: readonly string[] = Object.values(CodeSystems);
const invalidArg = (field: string, message: string) => new DataError('invalid', `${field} ${message}`, [{ field, message }]);

/** A terminology read's system: one of the coding system strings (CodeSystems). */
export function systemArg(value: unknown, field = 'system'): string {
  if (typeof value !== 'string' || !SYSTEMS.includes(value)) throw invalidArg(field, `must be one of ${SYSTEMS.join(', ')}`);
  return value;
}

/** A terminology search's systems: 1 to 10 of them. */
export function systemsArg(args: JsonObject): string[] {
  const systems = args.systems;
  if (!Array.isArray(systems) || systems.length === 0 || systems.length > 10) throw invalidArg('systems', 'must be a list of 1 to 10 coding systems');
  return [...new Set(systems.map((s, i) => systemArg(s, `systems[${i}]`)))];
}

/** A search term (1 to MAX_SEARCH_TERM characters) and the most concepts to answer (1 to 100, default 20). */
export function searchArgs(args: JsonObject): { term: string; limit: number } {
  const term = args.term;
  if (typeof term !== 'string' || term.trim() === '' || term.length > MAX_SEARCH_TERM) throw invalidArg('term', `must be 1 to ${MAX_SEARCH_TERM} characters`);
  const limit = args.limit ?? 20;
  if (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 1 || limit > 100) throw invalidArg('limit', 'must be an integer from 1 to 100');
  return { term, limit };
}

/** A code to look up: 1 to 64 characters. */
export function codeArg(args: JsonObject): string {
  const code = args.code;
  if (typeof code !== 'string' || code.trim() === '' || code.length > 64) throw invalidArg('code', 'must be 1 to 64 characters');
  return code;
}

/** The catalogue a reference read names, or `invalid` naming them all. */
export function catalogueArg(args: JsonObject): ReferenceCatalogue {
  const name = args.catalogue;
  if (typeof name !== 'string' || !Object.hasOwn(REFERENCE_CATALOGUES, name)) {
    const known = REFERENCE_CATALOGUE_NAMES.join(', ');
    throw new DataError('invalid', `catalogue must be one of ${known}`, [{ field: 'catalogue', message: `must be one of ${known}` }]);
  }
  return name as ReferenceCatalogue;
}

/** The id of a reference entry (`get`): 1 to 200 characters. */
export function entryIdArg(args: JsonObject): string {
  const id = args.id;
  if (typeof id !== 'string' || id.length === 0 || id.length > 200)
    throw new DataError('invalid', 'id must be 1 to 200 characters', [{ field: 'id', message: 'must be 1 to 200 characters' }]);
  return id;
}

/** The parent a nested catalogue's list needs (lab_tests: a lab partner's id), and none for another. */
export function parentOf(catalogue: ReferenceCatalogue, query: Record<string, unknown>): string | undefined {
  const nested = 'parent' in REFERENCE_CATALOGUES[catalogue];
  const parent = typeof query.parent === 'string' ? query.parent : undefined;
  if (nested && parent === undefined)
    throw new DataError('invalid', `${catalogue} is listed by its parent: give query.parent`, [{ field: 'querystring.parent', message: 'is required' }]);
  if (!nested && parent !== undefined)
    throw new DataError('invalid', `${catalogue} has no parent`, [{ field: 'querystring.parent', message: 'is not a known field' }]);
  return parent;
}
export const UUID = 'a dashed lowercase UUID';

/** The page a list read asks for, with the API's bounds (the schema checked them). */
export const pageOf = (query: Record<string, unknown>) => ({
  limit: typeof query.limit === 'number' ? Math.min(query.limit, MAX_LIMIT) : 20,
  offset: typeof query.offset === 'number' ? Math.min(query.offset, MAX_OFFSET) : 0,
});

/** A list as a plugin gets it: the API's page, with the next page's offset instead of links. */
export function listAnswer<T>(list: List<T>): JsonObject {
  return {
    count: list.count,
    count_is_estimate: list.countIsEstimate,
    next_offset: list.hasNext ? list.page.offset + list.page.limit : null,
    results: list.results as unknown as JsonValue[],
  };
}

export const failure = (code: DataErrorCode, message: string, errors?: FieldProblem[]): JsonObject => ({
  error: { code, message, ...(errors === undefined ? {} : { errors: errors as unknown as JsonValue[] }) },
});

/** Any failure of a read as the typed error the plugin gets: the API's message, never a stack. */
export function dataErrorOf(err: unknown): DataError {
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

/** The `data` binding over a source: every rule above, then the source's read. */
export function dataBinding(source: DataSource): Binding {
  const grants = new WeakMap<CallContext, Promise<boolean>>();
  const granted = (call: CallContext): Promise<boolean> => {
    let given = grants.get(call);
    if (given === undefined) {
      given = source.instanceGranted(call);
      grants.set(call, given);
    }
    return given;
  };

  const scopeOf = (call: CallContext): ReadScope => {
    const reach = async (patient: string): Promise<void> => {
      if (patient === eventPatient(call.event)) return;
      if (call.handler.data.scope === 'instance') {
        if (await granted(call)) return;
        throw new DataError(
          'out_of_scope',
          `patient ${patient} is not the event's patient, and the data:instance grant is not given to ${call.handler.plugin}`,
          undefined,
          patient,
        );
      }
      throw new DataError('out_of_scope', `patient ${patient} is not the event's patient (the manifest's data.scope is event_patient)`, undefined, patient);
    };
    const scopedPatient = async (asked: unknown): Promise<string | undefined> => {
      if (typeof asked === 'string') {
        await reach(asked);
        return asked;
      }
      if (call.handler.data.scope === 'instance' && (await granted(call))) return undefined;
      const own = eventPatient(call.event);
      if (own === null) throw new DataError('out_of_scope', 'this event is about no patient, so a list must name the patient_key');
      return own;
    };
    return { reach, scopedPatient };
  };

  return async (plugin, args, call) => {
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
      answer = await source.read(call, resource as DataResource, op, args, scopeOf(call));
    } catch (err) {
      const error = dataErrorOf(err);
      // A call that then throws is `unavailable` (retried; its PRE change answers 503): runtime/calls.ts.
      if (error.code === 'database_unavailable') budget.databaseUnavailable = true;
      if (error.code === 'out_of_scope') {
        await source.record(call, { resource, op, patient: error.patient ?? null, keys: [], rows: 0, refused: error.message }).catch(() => undefined);
      }
      return failure(error.code, error.message, error.errors);
    }
    if (budget.rows + answer.read.rows > access.rows) {
      budget.overBudget = `more than ${access.rows} rows in one call`;
      return failure('budget_exceeded', `a handler call may read ${access.rows} rows at most (${budget.rows} read, this read has ${answer.read.rows})`);
    }
    budget.rows += answer.read.rows;
    try {
      await source.record(call, answer.read);
    } catch (err) {
      // Nothing is given that the record of reads does not hold.
      const unavailable = storageErrorOf(err) instanceof DatabaseUnavailableError;
      if (unavailable) budget.databaseUnavailable = true;
      return failure(unavailable ? 'database_unavailable' : 'failed', 'the read could not be recorded in the audit trail');
    }
    return { value: answer.value };
  };
}
