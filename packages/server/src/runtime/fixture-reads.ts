// `this.data` answered from a fixture (docs/plugins.md, "Testing a plugin"): the source of the
// `data` binding when a plugin's handlers run outside an instance (runtime/local.ts, behind
// `charta plugin test` and `charta plugin run --fixture`). The record is a JSON object of rows in
// the API's shapes (@charta/api DataFixture); every read is held to the same rules as on the
// instance (data-access.ts: the manifest's resources, the scope, the budget, the arguments), so a
// read the instance refuses is refused here with the same code and message. A list filters,
// orders and pages as its REST route does; an unknown key answers the route's 404. Each read is
// recorded as its audit row would say it (the `reads` a test sees), answered or refused as out
// of scope. Nothing is written anywhere.
import { ListCommandsQuery, ListNotesQuery, PageQuery, ReferenceReadQuery } from '@charta/api';
import {
  COMMAND_KIND_LABELS,
  COMMAND_STATES,
  ORDERINGS,
  REFERENCE_CATALOGUES,
  REFERENCE_CATALOGUE_NAMES,
  TIME_FILTERS,
  type DataResource,
  type ReferenceCatalogue,
} from '@charta/api/constants';
import { invalid, problem, type FieldProblem } from '../http/problem.ts';
import { exactList } from '../http/pagination.ts';
import { KEY_RE, UUID_RE } from '../lib/ids.ts';
import { DAY_MICROS, parseDateMicros, parseTimestampMicros } from '../lib/time.ts';
import { codeKey, matchesAllWords, normalizeText, parseSearchTerm } from '../terminology/normalize.ts';
import type { Binding } from './bindings.ts';
import type { CallContext } from './calls.ts';
import {
  catalogueArg,
  codeArg,
  searchArgs,
  systemArg,
  systemsArg,
  checkedQuery,
  dataBinding,
  DataError,
  entryIdArg,
  keyArg,
  listAnswer,
  pageOf,
  parentOf,
  PATIENT_KEY,
  UUID,
  type Read,
  type ReadScope,
} from './data-access.ts';
import type { JsonObject, JsonValue } from './sandbox/types.ts';

type Row = Record<string, unknown>;

/** A fixture as checkFixture leaves it: every member present. */
export interface Fixture {
  patients: Row[];
  notes: Row[];
  commands: Row[];
  chart: Record<string, Row>;
  metadata: Record<string, Row[]>;
  /** By catalogue: its entries (each with its key field, REFERENCE_CATALOGUES). */
  reference: Partial<Record<ReferenceCatalogue, Row[]>>;
  /** Concepts: {system, code, display, extra?}. */
  terminology: Row[];
}

/** A read as the audit trail would hold it (the fields of GET /core/api/v1/plugins/{name}/reads/ that a local call has). */
export interface LocalRead {
  read: string;
  patient_key: string | null;
  keys: string[];
  rows: number;
  refused: string | null;
}

/** What one call reads from: its fixture, the grants its plugin holds, and where its reads are recorded. */
export interface FixtureCall {
  fixture: Fixture;
  grants: readonly string[];
  reads: LocalRead[];
}

const MEMBERS = ['patients', 'notes', 'commands', 'chart', 'metadata', 'reference', 'terminology'] as const;
const CHART_LISTS = ['conditions', 'medications', 'goals', 'banner_alerts'] as const;
/** The statuses the chart read gives by default (chart/options.ts PICKABLE): active conditions and medications, open goals. */
const CHART_STATUS: Partial<Record<(typeof CHART_LISTS)[number], string>> = { conditions: 'active', medications: 'active', goals: 'open' };
const KIND_KEYS = Object.keys(COMMAND_KIND_LABELS);

const isObject = (value: unknown): value is Row => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The fixture, or every reason it cannot be one (rows without their key, keys of the wrong shape, unknown members). */
export function checkFixture(value: unknown): { ok: true; fixture: Fixture } | { ok: false; reasons: string[] } {
  const reasons: string[] = [];
  if (!isObject(value)) return { ok: false, reasons: ['a fixture is a JSON object of patients, notes, commands, chart, metadata, reference and terminology'] };
  for (const name of Object.keys(value)) {
    if (!(MEMBERS as readonly string[]).includes(name)) reasons.push(`${name} is not a member of a fixture (${MEMBERS.join(', ')})`);
  }
  const rows = (member: 'patients' | 'notes' | 'commands', keys: Array<[string, RegExp, string]>): Row[] => {
    const list = value[member] ?? [];
    if (!Array.isArray(list)) {
      reasons.push(`${member} must be a list of rows`);
      return [];
    }
    const seen = new Set<string>();
    list.forEach((row, i) => {
      if (!isObject(row)) return void reasons.push(`${member}[${i}] must be an object`);
      for (const [name, shape, what] of keys) {
        if (typeof row[name] !== 'string' || !shape.test(row[name])) reasons.push(`${member}[${i}].${name} must be ${what}`);
      }
      const id = String(row[keys[0]![0]]);
      if (seen.has(id)) reasons.push(`${member}[${i}]: ${keys[0]![0]} ${id} is there twice`);
      seen.add(id);
    });
    return list.filter(isObject);
  };
  const byPatient = <T>(member: 'chart' | 'metadata', check: (entry: unknown, where: string) => T | undefined): Record<string, T> => {
    const map = value[member] ?? {};
    const out: Record<string, T> = {};
    if (!isObject(map)) {
      reasons.push(`${member} must be an object by patient key`);
      return out;
    }
    for (const [key, entry] of Object.entries(map)) {
      if (!KEY_RE.test(key)) reasons.push(`${member}: ${JSON.stringify(key.slice(0, 64))} must be ${PATIENT_KEY}`);
      const checked = check(entry, `${member}.${key}`);
      if (checked !== undefined) out[key] = checked;
    }
    return out;
  };
  const fixture: Fixture = {
    patients: rows('patients', [['key', KEY_RE, PATIENT_KEY]]),
    notes: rows('notes', [
      ['uuid', UUID_RE, UUID],
      ['patient_key', KEY_RE, PATIENT_KEY],
    ]),
    commands: rows('commands', [
      ['uuid', UUID_RE, UUID],
      ['patient_key', KEY_RE, PATIENT_KEY],
    ]),
    chart: byPatient('chart', (entry, where) => {
      if (!isObject(entry)) return void reasons.push(`${where} must be an object of ${CHART_LISTS.join(', ')}`);
      for (const name of Object.keys(entry)) {
        if (!(CHART_LISTS as readonly string[]).includes(name)) reasons.push(`${where}.${name} is not part of a chart (${CHART_LISTS.join(', ')})`);
        else if (!Array.isArray(entry[name]) || !entry[name].every(isObject)) reasons.push(`${where}.${name} must be a list of objects`);
      }
      return entry;
    }),
    metadata: byPatient('metadata', (entry, where) => {
      if (!Array.isArray(entry) || !entry.every(isObject)) return void reasons.push(`${where} must be a list of {namespace, key, value} pairs`);
      return entry;
    }),
    reference: {},
    terminology: [],
  };
  const concepts = value.terminology ?? [];
  if (
    !Array.isArray(concepts) ||
    !concepts.every((c) => isObject(c) && typeof c.system === 'string' && typeof c.code === 'string' && typeof c.display === 'string')
  ) {
    reasons.push('terminology must be a list of {system, code, display} concepts');
  } else fixture.terminology = concepts;
  const reference = value.reference ?? {};
  if (!isObject(reference)) reasons.push('reference must be an object by catalogue');
  else {
    for (const [name, entries] of Object.entries(reference)) {
      if (!Object.hasOwn(REFERENCE_CATALOGUES, name)) {
        reasons.push(`reference.${name} is not a catalogue (${REFERENCE_CATALOGUE_NAMES.join(', ')})`);
        continue;
      }
      const key = REFERENCE_CATALOGUES[name as ReferenceCatalogue].key;
      if (!Array.isArray(entries) || !entries.every(isObject)) reasons.push(`reference.${name} must be a list of entries`);
      else if (!entries.every((e) => typeof e[key] === 'string' && e[key] !== '')) reasons.push(`reference.${name}: every entry needs its ${key}`);
      else fixture.reference[name as ReferenceCatalogue] = entries;
    }
  }
  return reasons.length > 0 ? { ok: false, reasons } : { ok: true, fixture };
}

/** An empty record: what a call given no fixture reads. */
export const EMPTY_FIXTURE: Fixture = Object.freeze({ patients: [], notes: [], commands: [], chart: {}, metadata: {}, reference: {}, terminology: [] });

const copy = (value: unknown): JsonValue => JSON.parse(JSON.stringify(value)) as JsonValue;
const micros = (value: unknown): number => (typeof value === 'string' ? (parseTimestampMicros(value) ?? 0) : 0);

/** A page of rows, as the REST route pages it. */
const paged = (rows: Row[], query: Record<string, unknown>) => {
  const page = pageOf(query);
  return exactList(page, rows.length, rows.slice(page.offset, page.offset + page.limit));
};

/** The conditions of a time filter (`created_at__gte=2026-11-22`…) as commands/list.ts reads it: a date is the whole UTC day. */
function timeTest(name: string, text: string): ((us: number) => boolean) | undefined {
  const suffix = name.split('__')[1] ?? '';
  const day = parseDateMicros(text);
  if (day !== undefined) {
    const end = day + DAY_MICROS;
    return (
      { '': (us: number) => us >= day && us < end, lt: (us: number) => us < day, lte: (us: number) => us < end, gt: (us: number) => us >= end }[suffix] ??
      ((us) => us >= day)
    );
  }
  const at = parseTimestampMicros(text);
  if (at === undefined) return undefined;
  return (
    { '': (us: number) => us === at, lt: (us: number) => us < at, lte: (us: number) => us <= at, gt: (us: number) => us > at }[suffix] ?? ((us) => us >= at)
  );
}

/** The commands of a list's filters, with the messages of GET /core/api/v1/commands for values it refuses. */
function filteredCommands(commands: Row[], query: Record<string, unknown>, patient: string | undefined): Row[] {
  // The patient is the scoped one (data-access.ts), checked as the route checks its filter.
  const q: Record<string, string | undefined> = { ...(query as Record<string, string | undefined>), patient_key: patient };
  const errors: FieldProblem[] = [];
  const need = (name: string, ok: boolean, message: string) => void (ok ? undefined : errors.push({ field: name, message }));
  for (const name of ['patient_key', 'originator_key', 'committer_key']) {
    if (q[name] !== undefined) need(name, KEY_RE.test(q[name]), 'must be 32 lowercase hexadecimal characters');
  }
  if (q.note_key !== undefined) need('note_key', UUID_RE.test(q.note_key), 'must be a dashed lowercase UUID');
  if (q.schema_key !== undefined) need('schema_key', KIND_KEYS.includes(q.schema_key), `must be one of ${KIND_KEYS.join(', ')}`);
  if (q.state !== undefined) need('state', (COMMAND_STATES as readonly string[]).includes(q.state), `must be one of ${COMMAND_STATES.join(', ')}`);
  const times: Array<{ column: string; test: (us: number) => boolean }> = [];
  for (const name of TIME_FILTERS) {
    const text = q[name];
    if (text === undefined) continue;
    const test = timeTest(name, text);
    if (test === undefined)
      errors.push({ field: name, message: 'must be a date (2026-11-22) or an ISO 8601 timestamp with a zone (2026-11-22T05:26:28.123456Z)' });
    else times.push({ column: name.split('__')[0]!, test });
  }
  const ordering = q.ordering ?? 'created_at';
  need('ordering', (ORDERINGS as readonly string[]).includes(ordering), `must be one of ${ORDERINGS.join(', ')}`);
  if (errors.length > 0) throw invalid(errors);
  const equal: Array<[string, string | undefined]> = [
    ['patient_key', q.patient_key],
    ['note_key', q.note_key],
    ['originated_by', q.originator_key],
    ['committed_by', q.committer_key],
    ['schema_key', q.schema_key],
    ['state', q.state],
  ];
  const column = ordering.replace('-', '');
  const direction = ordering.startsWith('-') ? -1 : 1;
  return commands
    .filter((row) => equal.every(([name, value]) => value === undefined || row[name] === value) && times.every((t) => t.test(micros(row[t.column]))))
    .sort((a, b) => direction * (micros(a[column]) - micros(b[column]) || String(a.uuid).localeCompare(String(b.uuid))));
}

/** The fixture's answer to one read (its rules checked by data-access.ts before and around it). */
async function read(fixture: Fixture, resource: DataResource, op: string, args: JsonObject, scope: ReadScope): Promise<{ value: JsonValue; read: Read }> {
  const done = (value: JsonValue, patient: string | null, keys: string[], rows: number) => ({ value, read: { resource, op, patient, keys, rows } });
  const known = (key: string) => fixture.patients.some((p) => p.key === key) || Object.hasOwn(fixture.chart, key) || Object.hasOwn(fixture.metadata, key);
  const byUuid = async (rows: Row[], missing: 'note_not_found' | 'command_not_found') => {
    const uuid = keyArg(args, 'uuid', UUID_RE, UUID);
    const found = rows.find((row) => row.uuid === uuid);
    if (found === undefined) throw problem(missing);
    await scope.reach(found.patient_key as string);
    return done(copy(found), found.patient_key as string, [uuid], 1);
  };
  const page = (rows: Row[], query: Record<string, unknown>, patient: string | undefined) => {
    const list = paged(rows, query);
    return done(
      listAnswer(list),
      patient ?? null,
      list.results.map((r) => String(r.uuid)),
      list.results.length,
    );
  };
  switch (`${resource}.${op}`) {
    case 'patients.get': {
      const key = keyArg(args, 'key', KEY_RE, PATIENT_KEY);
      await scope.reach(key);
      const found = fixture.patients.find((p) => p.key === key);
      if (found === undefined) throw problem('patient_not_found');
      return done(copy(found), key, [key], 1);
    }
    case 'patients.metadata': {
      const key = keyArg(args, 'key', KEY_RE, PATIENT_KEY);
      await scope.reach(key);
      const query = checkedQuery(PageQuery, args.page);
      if (!known(key)) throw problem('patient_not_found');
      const pairs = [...(fixture.metadata[key] ?? [])].sort(
        (a, b) => String(a.namespace).localeCompare(String(b.namespace)) || String(a.key).localeCompare(String(b.key)),
      );
      const list = paged(pairs, query);
      return done(copy(listAnswer(list)), key, [key], list.results.length);
    }
    case 'notes.get':
      return byUuid(fixture.notes, 'note_not_found');
    case 'notes.list': {
      const query = checkedQuery(ListNotesQuery, args.query);
      const patient = await scope.scopedPatient(query.patient_key);
      const errors: FieldProblem[] = [];
      if (patient !== undefined && !KEY_RE.test(patient)) errors.push({ field: 'patient_key', message: 'must be 32 lowercase hexadecimal characters' });
      const deleted = query.deleted === undefined ? undefined : ({ true: true, false: false } as Record<string, boolean>)[query.deleted as string];
      if (query.deleted !== undefined && deleted === undefined) errors.push({ field: 'deleted', message: 'must be true or false' });
      if (errors.length > 0) throw invalid(errors);
      const rows = fixture.notes
        .filter((n) => (patient === undefined || n.patient_key === patient) && (deleted === undefined || (n.deleted === true) === deleted))
        .sort((a, b) => micros(a.created_at) - micros(b.created_at) || String(a.uuid).localeCompare(String(b.uuid)));
      return page(copy(rows) as Row[], query, patient);
    }
    case 'commands.get':
      return byUuid(fixture.commands, 'command_not_found');
    case 'commands.list': {
      const query = checkedQuery(ListCommandsQuery, args.query);
      const patient = await scope.scopedPatient(query.patient_key);
      return page(copy(filteredCommands(fixture.commands, query, patient)) as Row[], query, patient);
    }
    case 'terminology.search': {
      // As the instance's search (terminology/search.ts), simply: an exact code first, then every concept whose display has every word.
      const systems = systemsArg(args);
      const { term, limit } = searchArgs(args);
      const { words, code } = parseSearchTerm(term);
      const of = fixture.terminology.filter((c) => systems.includes(String(c.system)));
      const found = [
        ...of.filter((c) => code !== '' && codeKey(String(c.code)) === code),
        ...of.filter((c) => matchesAllWords(normalizeText(String(c.display)), words)),
      ];
      const concepts = [...new Set(found)].slice(0, limit).map((c) => ({ system: c.system, code: c.code, display: c.display, extra: c.extra ?? null }));
      return done(
        copy(concepts),
        null,
        concepts.map((c) => `${String(c.system)}|${String(c.code)}`),
        concepts.length,
      );
    }
    case 'terminology.lookup': {
      const system = systemArg(args.system);
      const code = codeArg(args);
      const c = fixture.terminology.find((t) => t.system === system && codeKey(String(t.code)) === codeKey(code));
      if (c === undefined) throw new DataError('not_found', `${system} has no active concept ${code}`);
      return done(copy({ system: c.system, code: c.code, display: c.display, extra: c.extra ?? null }), null, [`${system}|${String(c.code)}`], 1);
    }
    case 'reference.list': {
      const name = catalogueArg(args);
      const query = checkedQuery(ReferenceReadQuery, args.query);
      const parent = parentOf(name, query);
      const { key, ...nested } = REFERENCE_CATALOGUES[name] as { key: string; parent?: string };
      const entries = (fixture.reference[name] ?? []).filter((e) => nested.parent === undefined || e[nested.parent] === parent);
      const list = paged(entries, query);
      return done(
        listAnswer(list),
        null,
        list.results.map((e) => String(e[key])),
        list.results.length,
      );
    }
    case 'reference.get': {
      const name = catalogueArg(args);
      const id = entryIdArg(args);
      const key = REFERENCE_CATALOGUES[name].key;
      const entry = (fixture.reference[name] ?? []).find((e) => e[key] === id);
      if (entry === undefined) throw new DataError('not_found', `${name} has no entry ${id}`);
      return done(copy(entry), null, [id], 1);
    }
    case 'chart.get': {
      const key = keyArg(args, 'patient_key', KEY_RE, PATIENT_KEY);
      await scope.reach(key);
      if (!known(key)) throw problem('patient_not_found');
      const chart = fixture.chart[key] ?? {};
      const value: JsonObject = { patient_key: key };
      let rows = 0;
      for (const name of CHART_LISTS) {
        const status = CHART_STATUS[name];
        const entries = ((chart[name] as Row[] | undefined) ?? []).filter((e) => status === undefined || e.status === undefined || e.status === status);
        value[name] = copy(entries);
        rows += entries.length;
      }
      return done(value, key, [key], rows);
    }
    default:
      throw new DataError('invalid', `${resource} has no read ${JSON.stringify(op.slice(0, 40))}`);
  }
}

/** The `data` binding of calls that read a fixture: `callOf` names each call's fixture, grants and list of reads. */
export function fixtureBinding(callOf: (call: CallContext) => FixtureCall | undefined): Binding {
  const binding = dataBinding({
    instanceGranted: async (call) => callOf(call)?.grants.includes('data:instance') ?? false,
    read: (call, resource, op, args, scope) => read(callOf(call)?.fixture ?? EMPTY_FIXTURE, resource, op, args, scope),
    record: async (call, what) => {
      callOf(call)?.reads.push({
        read: `${what.resource}.${what.op}`,
        patient_key: what.patient,
        keys: what.keys,
        rows: what.rows,
        refused: what.refused ?? null,
      });
    },
  });
  return (plugin, args, call) =>
    call !== undefined && callOf(call) === undefined ? { error: { code: 'failed', message: 'this call has no fixture' } } : binding(plugin, args, call);
}
