// The `audit` scenario (docs/performance.md, "Audit list"; issue 23: "the audit list's first page
// at 1M and 10M rows"). On each engine, one fresh database that grows: migrated by a first
// `charta-server start`, then, with no server on it, bulk-filled with audit rows up to the first
// size of BENCH_AUDIT_ROWS (1M) and ANALYZEd; a copy of it is kept (SQLite: its data directory;
// PostgreSQL: CREATE DATABASE … TEMPLATE); then the same database grows to the next size (10M:
// the rows after the ones it has), and so on. Each size is then served by a real
// `charta-server start` (lib/workers.ts), all at once, and GET /core/api/v1/audit/ is measured,
// authorised by the bootstrap API key (admin scope): the unfiltered first page, a heavy
// patient's (a fifth of all rows), a light patient's, an action's, an actor's, and second pages
// by the `before` cursor of a first page's `next` link (of the unfiltered list, of the heavy
// patient, of the light patients); each at BENCH_CONNECTIONS and at 1 connection.
// This shared 2-core machine's speed drifts by 2× within minutes, so, as in the Commands scale
// scenario (lib/scale.ts), each request is measured at every size in turn, BENCH_AUDIT_ROUNDS
// times over (odd rounds from the smallest size up, even rounds from the largest down): the
// figure is each request's server CPU µs per request at a size ÷ at the smallest in the same
// round, the median over the rounds, with the same flatness target (SCALE_TARGET).
// Beside it each query's plan and its time alone (SQLite: the statement on a connection of the
// bench's own; PostgreSQL: EXPLAIN ANALYZE's execution time), measured the same way, at every size
// in turn: a growth of the server's figure that the query's does not share is the server's own.
//
// The rows (one SQL statement per engine: a recursive CTE on SQLite, generate_series on
// PostgreSQL; row i of the trail is the same on both, whatever size it is written at):
// - occurred_at increasing, 3 s apart, the largest size's last row just before the seeding;
// - patient_key: every fifth row the heavy patient's, the others spread over `patients`
//   patients (about 100 rows each at the smallest size, so their first page is full at every size);
// - action: command.read 30 %, patient.read 15 %, command.created and command.updated 12 % each,
//   commands.listed 10 %, command.committed 8 %, notes.listed 5 %, note.created 3 %, plugin.read
//   2 %, banner_alerts.read, chart.conditions.read and note.locked 1 % each (docs/operations.md,
//   "Audit trail"), with the entity, note_key, before and after such a row has;
// - actor: one of 200 staff keys (credential client:clinic-web, or an API key for 10 of them), or
//   plugin:vitals-watch for the plugin's reads; request_id a uuid.
// The table's secondary indexes (and PostgreSQL's primary key) are dropped before each fill and
// rebuilt from their own definitions after it, as lib/seed.ts does for the commands.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import type BetterSqlite3 from 'better-sqlite3';
import {
  DummyDriver,
  Kysely,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  SqliteAdapter,
  SqliteIntrospector,
  SqliteQueryCompiler,
  type CompiledQuery,
} from 'kysely';
import type autocannon from 'autocannon';
import type { Engine } from '../../packages/server/src/storage/db.ts';
import type { Database } from '../../packages/server/src/storage/schema.ts';
import { SQLITE_CACHE_PRAGMAS } from '../../packages/server/src/storage/sqlite-settings.ts';
import { auditListQuery, type AuditListFilters } from '../../packages/server/src/storage/audit-repository.ts';
import { createDatabase, dropPostgresDatabase, PG_ADMIN_URL, TEST_API_KEY, type TestDatabase } from '../../packages/server/test/support/harness.ts';
import { cpuMeter, waitForIdle, type CpuShare } from './cpu.ts';
import { f0, f1, f2, median, mdTable, mergeRounds, table, type RoundResult } from './format.ts';
import { measure, type LoadResult } from './load.ts';
import type { BenchOptions } from './options.ts';
import { GROWTH_HEAD, SCALE_TARGET } from './scale.ts';
import { openForBulkWrites } from './seed.ts';
import { startServed, stopServed, type Served } from './workers.ts';

export const AUDIT_SCENARIO = 'audit';

const serverPackage = path.resolve(import.meta.dirname, '../../packages/server/package.json');
const requireServer = createRequire(serverPackage);
const Sqlite = requireServer('better-sqlite3') as typeof BetterSqlite3;
const pg = requireServer('pg') as typeof import('pg');

const API = '/core/api/v1/audit/';
const LIMIT = 50;
/** Staff members acting; the first API_KEY_STAFF of them through API keys, the others through the clinic's OAuth client. */
const STAFF = 200;
const API_KEY_STAFF = 10;
const PLUGIN = 'vitals-watch';
/** Between two rows of the trail, µs. */
const STEP = 3_000_000;
/** Light patients and actors whose pages are requested, in turn (as many keys as the Commands scenarios use). */
const SAMPLE = 250;
/** The action whose first page is measured. */
const MEASURED_ACTION = 'command.committed';

/** The trail's shape for a run: fixed by the smallest size. */
export interface AuditShape {
  /** Light patients (the heavy one besides). */
  patients: number;
  staff: number;
  /** occurred_at of row 0, µs. */
  start: number;
}

export interface AuditSeed {
  engine: Engine;
  /** Rows in the trail once filled (the server's own few rows of its first start included). */
  rows: number;
  /** Rows written by this fill (the rest were there from the smaller size). */
  inserted: number;
  seconds: {
    /** The first start's migrations (the first size only). */
    migrate: number;
    insert: number;
    indexes: number;
    /** SQLite ANALYZE; PostgreSQL VACUUM ANALYZE audit_events. */
    analyze: number;
    /** The copy kept of this size before the database grew on (0 for the largest). */
    copy: number;
    /** `charta-server start` on it, to listening. */
    start: number;
  };
  /** SQLite: the file and its WAL; PostgreSQL: pg_database_size. */
  bytes: number;
}

/** What the query alone does at one size: its plan, and its time outside the server. */
export interface AuditPlan {
  engine: Engine;
  rows: number;
  kind: string;
  /** SQLite: EXPLAIN QUERY PLAN; PostgreSQL: EXPLAIN (ANALYZE, BUFFERS) of one of its requests. */
  plan: string[];
  /**
   * SQLite: µs of the statement run on the bench's own connection (every request's values in turn);
   * PostgreSQL: EXPLAIN ANALYZE's execution time over the same. The median of the rounds' medians.
   */
  queryMicros: number;
  /** queryMicros ÷ that at the smallest size in the same round: the median over the rounds. */
  queryGrowth: number;
}

/** One request kind at one size: medians over the rounds. */
export interface AuditRow extends LoadResult {
  engine: Engine;
  /** The trail's size. */
  rows: number;
  kind: string;
  request: string;
  connections: number;
  /** Rows in the first request's page. */
  pageRows: number;
  cpu: CpuShare;
  /** The server process's CPU, with that database's PostgreSQL backends, per 2xx response, µs. */
  serverMicrosPerRequest: number;
  /** serverMicrosPerRequest ÷ that at the smallest size (`baseRows`) in the same round: the median over the rounds. */
  growth: number;
  /** Each round's growth. */
  growths: number[];
  baseRows: number;
}

export interface AuditReport {
  sizes: number[];
  rounds: number;
  shape: Omit<AuditShape, 'start'>;
  seeds: AuditSeed[];
  rows: AuditRow[];
  plans: AuditPlan[];
}

// --- the rows, in SQL ---------------------------------------------------------------------------

const SCRAMBLE = 2654435761;
const TWO32 = 4294967296;

/** A key as the rows' SQL writes it: 8 hex digits of a scramble of n, then n in 24. */
export function key32(n: number): string {
  return ((n * SCRAMBLE) % TWO32).toString(16).padStart(8, '0') + n.toString(16).padStart(24, '0');
}
const patientKey = (p: number) => key32(p + 1);
const staffKey = (s: number) => key32(1_000_000 + s);

type EntityKind = 'command' | 'patient' | 'note';
interface ActionSpec {
  action: string;
  percent: number;
  entity: EntityKind;
  plugin?: boolean;
  /** SQL of `before` and `after`, given the row's patient key, command uuid and note uuid expressions. */
  before?: (x: RowExprs) => string;
  after: (x: RowExprs) => string;
}
interface RowExprs {
  patient: string;
  command: string;
  note: string;
}
const lit = (s: string) => `'${s.replace(/'/g, "''")}'`;
const read = (route: string) => (x: RowExprs) => `${lit(`{"read":"${route}","keys":["`)} || ${x.patient} || ${lit('"]}')}`;
const NARRATIVE = 'Follow up in two weeks; recheck blood pressure and renal function.';
const ACTIONS: ActionSpec[] = [
  { action: 'command.read', percent: 30, entity: 'command', after: read('GET /core/api/v1/commands/:uuid') },
  { action: 'patient.read', percent: 15, entity: 'patient', after: read('GET /core/api/v1/patients/:key') },
  {
    action: 'command.created',
    percent: 12,
    entity: 'command',
    after: (x) =>
      `${lit('{"uuid":"')} || ${x.command} || ${lit('","schemaKey":"plan","state":"staged","noteKey":"')} || ${x.note} || ${lit(`","values":{"narrative":"${NARRATIVE}"},"originatedBy":"staff"}`)}`,
  },
  {
    action: 'command.updated',
    percent: 12,
    entity: 'command',
    before: () => lit('{"values":{"narrative":"Follow up in two weeks."}}'),
    after: () => lit(`{"values":{"narrative":"${NARRATIVE}"}}`),
  },
  { action: 'commands.listed', percent: 10, entity: 'patient', after: read('GET /core/api/v1/commands') },
  { action: 'command.committed', percent: 8, entity: 'command', before: () => lit('{"state":"staged"}'), after: () => lit('{"state":"committed"}') },
  { action: 'notes.listed', percent: 5, entity: 'patient', after: read('GET /core/api/v1/notes') },
  {
    action: 'note.created',
    percent: 3,
    entity: 'note',
    after: (x) => `${lit('{"uuid":"')} || ${x.note} || ${lit('","noteType":"encounter","patientKey":"')} || ${x.patient} || ${lit('"}')}`,
  },
  { action: 'plugin.read', percent: 2, entity: 'patient', plugin: true, after: read('patients.get') },
  { action: 'banner_alerts.read', percent: 1, entity: 'patient', after: read('GET /core/api/v1/patients/:key/banner-alerts') },
  { action: 'chart.conditions.read', percent: 1, entity: 'patient', after: read('GET /core/api/v1/patients/:key/conditions') },
  { action: 'note.locked', percent: 1, entity: 'note', before: () => lit('{"locked":false}'), after: () => lit('{"locked":true}') },
];

/** The INSERT that writes rows `from` to `to` (inclusive) of the trail. */
function insertSql(engine: Engine, shape: AuditShape, from: number, to: number): string {
  const hex = (e: string, width: number) => (engine === 'sqlite' ? `printf('%0${width}x', ${e})` : `lpad(to_hex(${e}), ${width}, '0')`);
  // Below 2^31 first: the product stays within 64-bit integers (key32 takes n below that).
  const scramble = (e: string) => `(((${e}) % 2147483648) * ${SCRAMBLE}) % ${TWO32}`;
  const key = (e: string) => `${hex(scramble(e), 8)} || ${hex(e, 24)}`;
  // n below 16^12: the last group is n itself, so two rows' uuids differ when their n do.
  const uuid = (e: string) =>
    `${hex(scramble(e), 8)} || '-' || ${hex(`(${e}) % 65536`, 4)} || '-4' || ${hex(`((${e}) * 40503) % 4096`, 3)} || '-8' || ${hex(`((${e}) * 9973) % 4096`, 3)} || '-' || ${hex(e, 12)}`;
  const x: RowExprs = {
    patient: key('p + 1'),
    // About six rows a command, a note every 20,000 rows of each patient's.
    command: uuid('i / 6'),
    note: uuid('p * 1000003 + i / 20000'),
  };
  const column = (value: (a: ActionSpec) => string) => {
    let upper = 0;
    return `CASE ${ACTIONS.map((a) => `WHEN a < ${(upper += a.percent)} THEN ${value(a)}`).join(' ')} END`;
  };
  const staff = key(`1000000 + s`);
  const columns: Record<string, string> = {
    occurred_at: `${shape.start} + i * ${STEP}`,
    actor: column((a) => (a.plugin ? lit(`plugin:${PLUGIN}`) : staff)),
    credential: column((a) =>
      a.plugin ? lit(`plugin:${PLUGIN}`) : `CASE WHEN s < ${API_KEY_STAFF} THEN 'api_key:integration-' || s ELSE 'client:clinic-web' END`,
    ),
    action: column((a) => lit(a.action)),
    entity_type: column((a) => lit(a.entity)),
    entity_id: column((a) => (a.entity === 'command' ? x.command : a.entity === 'note' ? x.note : x.patient)),
    before: column((a) => (a.before ? a.before(x) : 'NULL')),
    after: column((a) => a.after(x)),
    request_id: uuid(`i + 1000000000000`),
    patient_key: x.patient,
    note_key: column((a) => (a.entity === 'patient' ? 'NULL' : x.note)),
  };
  const names = Object.keys(columns).join(', ');
  const values = Object.values(columns).join(',\n  ');
  // h: a scramble of i; a: the action's percentile; p: the patient (0 the heavy one); s: the staff member.
  const pick = `(h / 256) % 100 AS a, CASE WHEN i % 5 = 0 THEN 0 ELSE 1 + h % ${shape.patients} END AS p, (h / 65536) % ${shape.staff} AS s`;
  if (engine === 'sqlite')
    return `WITH RECURSIVE n(i) AS (SELECT ${from} UNION ALL SELECT i + 1 FROM n WHERE i < ${to}),
  x AS (SELECT i, (i * ${SCRAMBLE}) % ${TWO32} AS h FROM n),
  y AS (SELECT i, h, ${pick} FROM x)
INSERT INTO audit_events (${names}) SELECT
  ${values}
FROM y`;
  return `INSERT INTO audit_events (${names}) SELECT
  ${values}
FROM (SELECT i, h, ${pick} FROM (SELECT i, (i * ${SCRAMBLE}) % ${TWO32} AS h FROM generate_series(${from}::bigint, ${to}::bigint) AS g(i)) x) y`;
}

// --- filling the database -----------------------------------------------------------------------

interface Fill {
  inserted: number;
  rows: number;
  seconds: { insert: number; indexes: number; analyze: number };
}

const since = (t: number) => (performance.now() - t) / 1000;

/** Rows `from` to `to` of the trail into the SQLite file, the server stopped (lib/seed.ts's settings: the file to itself, no WAL, a large cache). */
function fillSqlite(file: string, shape: AuditShape, from: number, to: number): Fill {
  const db = openForBulkWrites(file);
  try {
    const indexes = db.prepare("SELECT name, sql FROM sqlite_schema WHERE type = 'index' AND tbl_name = 'audit_events' AND sql IS NOT NULL").all() as Array<{
      name: string;
      sql: string;
    }>;
    for (const i of indexes) db.exec(`DROP INDEX "${i.name}"`);
    let t = performance.now();
    const { changes } = db.prepare(insertSql('sqlite', shape, from, to)).run();
    const insert = since(t);
    t = performance.now();
    for (const i of indexes) db.exec(i.sql);
    const built = since(t);
    t = performance.now();
    db.exec('ANALYZE');
    const analyze = since(t);
    const { n } = db.prepare('SELECT count(*) AS n FROM audit_events').get() as { n: number };
    return { inserted: changes, rows: n, seconds: { insert, indexes: built, analyze } };
  } finally {
    db.pragma('journal_mode = WAL');
    db.close();
    // Exclusive locking mode keeps its (empty) rollback journal: nothing is left in it.
    fs.rmSync(`${file}-journal`, { force: true });
  }
}

/** The same on PostgreSQL: one transaction with the table's indexes and primary key set aside, then VACUUM ANALYZE as autovacuum would have by then. */
async function fillPostgres(url: string, shape: AuditShape, from: number, to: number): Promise<Fill> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query("SET maintenance_work_mem = '512MB'");
    await client.query('BEGIN');
    const pk = (
      await client.query<{ name: string; definition: string }>(
        "SELECT conname AS name, pg_get_constraintdef(oid) AS definition FROM pg_constraint WHERE conrelid = 'audit_events'::regclass AND contype = 'p'",
      )
    ).rows[0];
    const { rows: indexes } = await client.query<{ name: string; definition: string }>(
      "SELECT indexname AS name, indexdef AS definition FROM pg_indexes WHERE schemaname = current_schema() AND tablename = 'audit_events' AND indexname <> $1",
      [pk?.name ?? ''],
    );
    for (const i of indexes) await client.query(`DROP INDEX "${i.name}"`);
    if (pk !== undefined) await client.query(`ALTER TABLE audit_events DROP CONSTRAINT "${pk.name}"`);
    let t = performance.now();
    const { rowCount } = await client.query(insertSql('postgres', shape, from, to));
    const insert = since(t);
    t = performance.now();
    if (pk !== undefined) await client.query(`ALTER TABLE audit_events ADD CONSTRAINT "${pk.name}" ${pk.definition}`);
    for (const i of indexes) await client.query(i.definition);
    await client.query('COMMIT');
    const built = since(t);
    t = performance.now();
    await client.query('VACUUM ANALYZE audit_events');
    const analyze = since(t);
    const { rows } = await client.query<{ n: string }>('SELECT count(*) AS n FROM audit_events');
    return { inserted: rowCount ?? 0, rows: Number(rows[0]!.n), seconds: { insert, indexes: built, analyze } };
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    await client.end();
  }
}

async function databaseBytes(database: TestDatabase): Promise<number> {
  if (database.url.startsWith('sqlite:')) {
    const file = database.url.slice('sqlite:'.length);
    return [file, `${file}-wal`].reduce((sum, f) => sum + (fs.existsSync(f) ? fs.statSync(f).size : 0), 0);
  }
  const client = new pg.Client({ connectionString: database.url });
  await client.connect();
  try {
    const { rows } = await client.query<{ n: string }>('SELECT pg_database_size(current_database()) AS n');
    return Number(rows[0]!.n);
  } finally {
    await client.end();
  }
}

/** A copy of the database as it is now (no server on it), to be served beside the one that grows on. */
async function snapshot(database: TestDatabase): Promise<TestDatabase> {
  if (database.url.startsWith('sqlite:')) {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'charta-bench-audit-'));
    fs.cpSync(database.dataDir, dataDir, { recursive: true });
    const url = `sqlite:${path.join(dataDir, path.basename(database.url.slice('sqlite:'.length)))}`;
    return { url, dataDir, env: {}, drop: async () => fs.rmSync(dataDir, { recursive: true, force: true }) };
  }
  const from = new URL(database.url).pathname.slice(1);
  const name = `${from}_copy`;
  const admin = new pg.Client({ connectionString: PG_ADMIN_URL });
  await admin.connect();
  try {
    // Refused while anything is connected to the original: an autovacuum worker may be, for a moment.
    for (let attempt = 1; ; attempt++) {
      try {
        await admin.query(`CREATE DATABASE ${name} TEMPLATE ${from}`);
        break;
      } catch (err) {
        if (attempt === 30 || !/being accessed by other users/.test(String(err))) throw err;
        await new Promise((resolve) => setTimeout(resolve, 1000));
      }
    }
  } finally {
    await admin.end();
  }
  const url = new URL(database.url);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    // The original's secret key (its file is in the original's data directory, which outlives the copy).
    dataDir: database.dataDir,
    env: database.env,
    drop: () => dropPostgresDatabase(name),
  };
}

// --- the requests -------------------------------------------------------------------------------

interface AuditKind {
  name: string;
  request: string;
  /** The filters of each path, as the route hands them to the query (list.ts asks for one row more than the page). */
  filters: AuditListFilters[];
  paths: string[];
}

const query = (f: Record<string, string | number | undefined>) =>
  `${API}?${new URLSearchParams(Object.entries(f).flatMap(([k, v]) => (v === undefined ? [] : [[k, String(v)]]))).toString()}`;

async function call(url: string, p: string): Promise<{ results: unknown[]; next: string | null }> {
  const res = await fetch(url + p, { headers: { authorization: TEST_API_KEY } });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`GET ${p} answered ${res.status}: ${text.slice(0, 300)}`);
  return JSON.parse(text) as { results: unknown[]; next: string | null };
}

/** The `before` of a page's `next` link. */
async function cursorOf(url: string, p: string): Promise<number> {
  const { next } = await call(url, p);
  const before = next === null ? null : new URL(next).searchParams.get('before');
  if (before === null) throw new Error(`GET ${p}: no next page`);
  return Number(before);
}

/** The requests on one server (the cursors are of its own first pages). */
async function auditKinds(url: string, shape: AuditShape): Promise<AuditKind[]> {
  const heavy = patientKey(0);
  const n = Math.min(SAMPLE, shape.patients);
  const lights = Array.from({ length: n }, (_, i) => patientKey(1 + Math.floor((i * shape.patients) / n)));
  const actors = Array.from({ length: Math.min(SAMPLE, shape.staff) }, (_, s) => staffKey(s));
  const page2 = await cursorOf(url, query({ limit: LIMIT }));
  const heavy2 = await cursorOf(url, query({ patient_key: heavy, limit: LIMIT }));
  const lights2: number[] = [];
  for (const k of lights) lights2.push(await cursorOf(url, query({ patient_key: k, limit: LIMIT })));
  const kind = (name: string, request: string, filters: Array<Omit<AuditListFilters, 'limit'>>): AuditKind => ({
    name,
    request,
    filters: filters.map((f) => ({ ...f, limit: LIMIT + 1 })),
    paths: filters.map((f) => query({ patient_key: f.patientKey, actor: f.actor, action: f.action, limit: LIMIT, before: f.before })),
  });
  const patients = `${n} of ${shape.patients.toLocaleString('en-US')} patients in turn`;
  return [
    kind('first-page', `GET ${API}?limit=${LIMIT} (no filter: the newest rows)`, [{}]),
    kind('patient-heavy', `GET ${API}?patient_key={the heavy patient}&limit=${LIMIT} (a fifth of all rows)`, [{ patientKey: heavy }]),
    kind(
      'patient-light',
      `GET ${API}?patient_key={key}&limit=${LIMIT} (${patients})`,
      lights.map((k) => ({ patientKey: k })),
    ),
    kind('action', `GET ${API}?action=${MEASURED_ACTION}&limit=${LIMIT} (8 % of the rows)`, [{ action: MEASURED_ACTION }]),
    kind(
      'actor',
      `GET ${API}?actor={staff key}&limit=${LIMIT} (${actors.length} staff members in turn, each about ${(98 / shape.staff).toFixed(1)} % of the rows)`,
      actors.map((a) => ({ actor: a })),
    ),
    kind('page-2', `GET ${API}?limit=${LIMIT}&before={the first page's cursor} (no filter: the second page)`, [{ before: page2 }]),
    kind('patient-heavy-page-2', `GET ${API}?patient_key={the heavy patient}&limit=${LIMIT}&before={its first page's cursor}`, [
      { patientKey: heavy, before: heavy2 },
    ]),
    kind(
      'patient-light-page-2',
      `GET ${API}?patient_key={key}&limit=${LIMIT}&before={its first page's cursor} (${patients})`,
      lights.map((k, i) => ({ patientKey: k, before: lights2[i]! })),
    ),
  ];
}

// --- the query alone ----------------------------------------------------------------------------

function compiler(engine: Engine): Kysely<Database> {
  const sqlite = engine === 'sqlite';
  return new Kysely<Database>({
    dialect: {
      createAdapter: () => (sqlite ? new SqliteAdapter() : new PostgresAdapter()),
      createDriver: () => new DummyDriver(),
      createIntrospector: (db) => (sqlite ? new SqliteIntrospector(db) : new PostgresIntrospector(db)),
      createQueryCompiler: () => (sqlite ? new SqliteQueryCompiler() : new PostgresQueryCompiler()),
    },
  });
}

/** The list's SQL on one served database, outside the server: its plan, and its time. */
interface QueryProbe {
  plan(kind: AuditKind): Promise<string[]>;
  /** One batch of the kind's statements (every request's values in turn), the median µs. */
  time(kind: AuditKind): Promise<number>;
  close(): Promise<void>;
}

/** The list's SQL as the server runs it (auditListQuery), compiled for the engine. */
const compilers = new Map<Engine, Kysely<Database>>();
function compiled(engine: Engine, f: AuditListFilters): CompiledQuery {
  if (!compilers.has(engine)) compilers.set(engine, compiler(engine));
  return auditListQuery(compilers.get(engine)!, f).compile();
}

function sqliteProbe(database: TestDatabase): QueryProbe {
  const db = new Sqlite(database.url.slice('sqlite:'.length), { readonly: true });
  // The page cache of the server's connections (storage/sqlite-settings.ts).
  for (const pragma of SQLITE_CACHE_PRAGMAS) db.pragma(pragma);
  return {
    plan: async (kind) => {
      const c = compiled('sqlite', kind.filters[0]!);
      return (db.prepare(`EXPLAIN QUERY PLAN ${c.sql}`).all(...(c.parameters as unknown[])) as Array<{ detail: string }>).map((r) => r.detail);
    },
    time: async (kind) => {
      const statements = kind.filters.map((f) => compiled('sqlite', f)).map((c) => ({ statement: db.prepare(c.sql), parameters: c.parameters as unknown[] }));
      const times: number[] = [];
      // A first pass untimed (each statement prepared and its pages read once), then at least 250 timed.
      for (let i = 0; i < statements.length + Math.max(250, statements.length); i++) {
        const { statement, parameters } = statements[i % statements.length]!;
        const t = performance.now();
        statement.all(...parameters);
        if (i >= statements.length) times.push((performance.now() - t) * 1000);
      }
      return median(times);
    },
    close: async () => void db.close(),
  };
}

async function postgresProbe(database: TestDatabase): Promise<QueryProbe> {
  const client = new pg.Client({ connectionString: database.url });
  await client.connect();
  const explain = async (f: AuditListFilters) => {
    const c = compiled('postgres', f);
    const { rows } = await client.query<{ 'QUERY PLAN': string }>(`EXPLAIN (ANALYZE, BUFFERS) ${c.sql}`, c.parameters as unknown[]);
    return rows.map((l) => l['QUERY PLAN']);
  };
  const executionMicros = (plan: string[]) => {
    const m = plan.map((l) => /^Execution Time: ([\d.]+) ms/.exec(l)).find((x) => x !== null);
    return m ? Number(m[1]) * 1000 : NaN;
  };
  return {
    plan: (kind) => explain(kind.filters[0]!),
    time: async (kind) => {
      const sample = kind.filters.slice(0, 25);
      const times: number[] = [];
      for (let i = 0; i < sample.length + Math.max(10, sample.length); i++) {
        const micros = executionMicros(await explain(sample[i % sample.length]!));
        if (i >= sample.length) times.push(micros);
      }
      return median(times);
    },
    close: () => client.end(),
  };
}

/**
 * Each kind's plan at every size, and its time alone measured at every size in turn, `rounds`
 * times over (as the requests are, for the same reason): per size the median over the rounds, and
 * its time ÷ the smallest size's in the same round, the median over the rounds.
 */
async function queryPlans(engine: Engine, sizes: Array<{ rows: number; database: TestDatabase; kinds: AuditKind[] }>, rounds: number): Promise<AuditPlan[]> {
  const probes: QueryProbe[] = [];
  const out: AuditPlan[] = [];
  try {
    for (const s of sizes) probes.push(engine === 'sqlite' ? sqliteProbe(s.database) : await postgresProbe(s.database));
    for (const [k, kind] of sizes[0]!.kinds.entries()) {
      const times = sizes.map(() => [] as number[]);
      const growths = sizes.map(() => [] as number[]);
      for (let round = 0; round < rounds; round++) {
        const order = [...sizes.keys()];
        if (round % 2 === 1) order.reverse();
        for (const i of order) times[i]!.push(await probes[i]!.time(sizes[i]!.kinds[k]!));
        for (const i of order) growths[i]!.push(times[i]![round]! / times[0]![round]!);
      }
      for (const [i, s] of sizes.entries())
        out.push({
          engine,
          rows: s.rows,
          kind: kind.name,
          plan: await probes[i]!.plan(s.kinds[k]!),
          queryMicros: median(times[i]!),
          queryGrowth: median(growths[i]!),
        });
    }
  } finally {
    for (const p of probes) await p.close();
  }
  return out;
}

/** The plan in a line: SQLite's steps; PostgreSQL's scan nodes and the top node's buffers. */
export function planSummary(p: AuditPlan): string {
  if (p.engine === 'sqlite') return p.plan.join('; ');
  const nodes = p.plan.filter((l) => /Scan|Sort/.test(l)).map((l) => l.replace(/^[\s>-]*/, '').replace(/\s+\(cost.*$/, ''));
  const buffers = p.plan.find((l) => /Buffers:/.test(l))?.trim();
  return `${nodes.join(' → ')}${buffers ? `; ${buffers}` : ''}`;
}

// --- measuring ----------------------------------------------------------------------------------

type Measured = RoundResult;

async function measureOnce(opts: BenchOptions, served: Served, postgresDatabase: string | undefined, kind: AuditKind, connections: number): Promise<Measured> {
  const pid = served.child.pid!;
  const requests: autocannon.Request[] = kind.paths.map((p) => ({ method: 'GET', path: p }));
  const spec = { url: served.url, connections, headers: { authorization: TEST_API_KEY }, requests };
  if (opts.warmup > 0) {
    await measure({ ...spec, duration: opts.warmup });
    await waitForIdle(pid, 60);
  }
  const stop = cpuMeter(pid, postgresDatabase);
  const result = await measure({ ...spec, duration: opts.duration });
  const cpu = stop();
  const waited = await waitForIdle(pid, 60);
  if (waited > 1) console.log(`  (audit ${kind.name}: the server worked ${waited.toFixed(1)} s after the measurement on requests already queued)`);
  const cores = cpu.server + (postgresDatabase !== undefined ? cpu.postgres : 0);
  return { ...result, cpu, serverMicrosPerRequest: result.ok > 0 ? (cores * cpu.seconds * 1e6) / result.ok : NaN };
}

const count = (n: number) => n.toLocaleString('en-US');

/** The trail's shape: about 100 rows a light patient at the smallest size (their first page full at every size). */
export function auditShape(sizes: number[], now: number): AuditShape {
  const smallest = Math.min(...sizes);
  return { patients: Math.max(10, Math.round((smallest * 0.8) / 100)), staff: STAFF, start: now - Math.max(...sizes) * STEP };
}

interface Size {
  rows: number;
  database: TestDatabase;
  seed: AuditSeed;
  served?: Served;
  kinds?: AuditKind[];
  postgresDatabase: string | undefined;
}

/** One engine: a database grown through every size (a copy kept of each smaller one), then all served and measured side by side. */
async function auditEngine(opts: BenchOptions, engine: Engine, report: AuditReport, shape: AuditShape): Promise<void> {
  const database = await createDatabase(engine);
  const envOf = (db: TestDatabase) => ({ ...db.env, CHARTA_DATA_DIR: db.dataDir });
  const sizes: Size[] = [];
  try {
    // The first start migrates (and makes the bootstrap credentials); the rows go in with no server on the database.
    let t = performance.now();
    const first = await startServed(database.url, 1, envOf(database));
    // It says it listens a moment before it handles SIGTERM (main.ts): a request answered first.
    await fetch(`${first.url}/readyz`).then((res) => res.arrayBuffer());
    await stopServed(first, `audit ${engine} (migrations)`);
    let migrate = since(t);
    let written = 0;
    for (const [i, size] of report.sizes.entries()) {
      const fill =
        engine === 'sqlite'
          ? fillSqlite(database.url.slice('sqlite:'.length), shape, written + 1, size)
          : await fillPostgres(database.url, shape, written + 1, size);
      written = size;
      const bytes = await databaseBytes(database);
      t = performance.now();
      const last = i === report.sizes.length - 1;
      const db = last ? database : await snapshot(database);
      const seed: AuditSeed = {
        engine,
        rows: fill.rows,
        inserted: fill.inserted,
        seconds: { migrate, ...fill.seconds, copy: last ? 0 : since(t), start: 0 },
        bytes,
      };
      migrate = 0;
      sizes.push({ rows: fill.rows, database: db, seed, postgresDatabase: engine === 'postgres' ? new URL(db.url).pathname.slice(1) : undefined });
      console.log(
        `audit ${engine} ${count(size)}: ${count(fill.inserted)} rows written in ${fill.seconds.insert.toFixed(1)} s (${count(Math.round(fill.inserted / fill.seconds.insert))}/s), ` +
          `indexes ${fill.seconds.indexes.toFixed(1)} s, ${engine === 'postgres' ? 'VACUUM ANALYZE' : 'ANALYZE'} ${fill.seconds.analyze.toFixed(1)} s` +
          `${last ? '' : `, copied in ${seed.seconds.copy.toFixed(1)} s`}; ${count(fill.rows)} rows, ${f0(bytes / 2 ** 20)} MiB on disk`,
      );
    }
    const pageRows = new Map<string, number>();
    for (const s of sizes) {
      t = performance.now();
      s.served = await startServed(s.database.url, 1, envOf(s.database));
      s.seed.seconds.start = since(t);
      report.seeds.push(s.seed);
      s.kinds = await auditKinds(s.served.url, shape);
      for (const kind of s.kinds) pageRows.set(`${s.rows} ${kind.name}`, (await call(s.served.url, kind.paths[0]!)).results.length);
    }
    for (const [k, kind] of sizes[0]!.kinds!.entries()) {
      for (const connections of [opts.connections, 1]) {
        const measured = sizes.map(() => [] as Measured[]);
        const growths = sizes.map(() => [] as number[]);
        for (let round = 0; round < opts.auditRounds; round++) {
          // Odd rounds from the smallest size up, even rounds from the largest down: neither always goes first.
          const order = [...sizes.keys()];
          if (round % 2 === 1) order.reverse();
          for (const i of order) {
            const s = sizes[i]!;
            measured[i]!.push(await measureOnce(opts, s.served!, s.postgresDatabase, s.kinds![k]!, connections));
          }
          for (const i of order) {
            const m = measured[i]![round]!;
            growths[i]!.push(m.serverMicrosPerRequest / measured[0]![round]!.serverMicrosPerRequest);
            console.log(
              `${engine.padEnd(8)}  ${count(sizes[i]!.rows).padStart(10)}  ${`${kind.name} (${connections} conn)`.padEnd(31)} round ${round + 1}  ${f0(m.okPerSecond).padStart(6)} req/s  p50 ${f2(m.p50)} ms  p99 ${f2(m.p99)} ms  ` +
                `server ${f0(m.serverMicrosPerRequest)} µs/req  cpu client ${f2(m.cpu.client)} server ${f2(m.cpu.server)} pg ${f2(m.cpu.postgres)} other ${f2(m.cpu.other)}  ×${f2(growths[i]![round]!)}` +
                (m.non2xx + m.errors + m.timeouts ? `  non-2xx ${m.non2xx} errors ${m.errors} timeouts ${m.timeouts} ${JSON.stringify(m.statusCodes)}` : ''),
            );
          }
        }
        for (const [i, s] of sizes.entries()) {
          report.rows.push({
            ...mergeRounds(measured[i]!),
            engine,
            rows: s.rows,
            kind: kind.name,
            request: kind.request,
            connections,
            pageRows: pageRows.get(`${s.rows} ${kind.name}`) ?? NaN,
            growth: median(growths[i]!),
            growths: growths[i]!,
            baseRows: sizes[0]!.rows,
          });
        }
      }
    }
    const plans = await queryPlans(
      engine,
      sizes.map((s) => ({ rows: s.rows, database: s.database, kinds: s.kinds! })),
      opts.auditRounds,
    );
    report.plans.push(...plans);
    for (const p of plans)
      console.log(`  (${engine} ${count(p.rows)} ${p.kind}: the query alone ${f0(p.queryMicros)} µs, ×${f2(p.queryGrowth)}; ${planSummary(p)})`);
  } finally {
    for (const s of sizes) if (s.served !== undefined) await stopServed(s.served, `audit ${engine} ${count(s.rows)}`);
    // The copies first: on PostgreSQL they use the original's secret key file.
    for (const s of sizes) if (s.database !== database) await s.database.drop();
    await database.drop();
  }
}

export async function auditScenario(opts: BenchOptions): Promise<{ report: AuditReport; failed: boolean }> {
  const sizes = opts.auditRows;
  const shape = auditShape(sizes, Date.now() * 1000);
  const report: AuditReport = { sizes, rounds: opts.auditRounds, shape: { patients: shape.patients, staff: shape.staff }, seeds: [], rows: [], plans: [] };
  let failed = false;
  console.log(
    `audit: trails of ${sizes.map(count).join(', ')} rows; the heavy patient a fifth of them, ${count(shape.patients)} other patients, ${shape.staff} staff members`,
  );
  for (const engine of opts.engines) {
    try {
      await auditEngine(opts, engine, report, shape);
    } catch (err) {
      failed = true;
      console.error(`audit ${engine}: ${err instanceof Error ? err.stack : err}`);
    }
  }
  for (const r of report.rows)
    if (r.rows !== r.baseRows && r.growth > SCALE_TARGET)
      console.log(
        `audit ${r.engine} ${r.kind} (${r.connections} conn): ${f2(r.growth)}× the server µs per request at ${count(r.rows)} rows as at ${count(r.baseRows)} (target ≤ ${SCALE_TARGET})`,
      );
  return { report, failed };
}

// --- the tables ---------------------------------------------------------------------------------

const SEED_HEAD = ['engine', 'rows', 'written', 'migrations s', 'insert s', 'rows/s', 'indexes s', 'analyze s', 'copy s', 'server start s', 'database MiB'];
const seedCells = (s: AuditSeed) => [
  s.engine,
  count(s.rows),
  count(s.inserted),
  f1(s.seconds.migrate),
  f1(s.seconds.insert),
  f0(s.inserted / s.seconds.insert),
  f1(s.seconds.indexes),
  f1(s.seconds.analyze),
  f1(s.seconds.copy),
  f1(s.seconds.start),
  f0(s.bytes / 2 ** 20),
];
const ROW_HEAD = ['request', 'engine', 'rows', 'conn', 'page', ...GROWTH_HEAD, 'query alone µs', 'query alone growth', 'CPU server', 'CPU other'];
const rowCells = (r: AuditReport) => (x: AuditRow) => {
  const base = x.rows === x.baseRows;
  const plan = r.plans.find((p) => p.engine === x.engine && p.rows === x.rows && p.kind === x.kind);
  return [
    x.kind,
    x.engine,
    count(x.rows),
    String(x.connections),
    String(x.pageRows),
    f0(x.okPerSecond),
    f2(x.p50),
    f2(x.p99),
    String(x.non2xx + x.errors + x.timeouts),
    f0(x.serverMicrosPerRequest),
    base ? '1' : f2(x.growth),
    base ? '–' : x.growths.map(f2).join(' '),
    base ? '–' : x.growth <= SCALE_TARGET ? 'met' : 'not met',
    f0(plan?.queryMicros ?? NaN),
    base ? '1' : f2(plan?.queryGrowth ?? NaN),
    f2(x.engine === 'postgres' ? x.cpu.server + x.cpu.postgres : x.cpu.server),
    f2(x.engine === 'postgres' ? x.cpu.other : x.cpu.other + x.cpu.postgres),
  ];
};

export function auditTextTables(r: AuditReport): string {
  return [table(SEED_HEAD, r.seeds, seedCells, 1), table(ROW_HEAD, r.rows, rowCells(r), 2)].join('\n\n');
}

export function auditMarkdown(r: AuditReport | undefined, settings: { duration: number; warmup: number; connections: number }): string[] {
  if (r === undefined) return [];
  const requests = [...new Map(r.rows.map((x) => [x.kind, x.request])).entries()];
  return [
    '## Audit list',
    '',
    `GET /core/api/v1/audit/ against \`charta-server start\`, with the bootstrap API key, on one database per engine grown through ${r.sizes.map(count).join(', ')} rows of audit trail ` +
      `(a heavy patient with a fifth of them, ${count(r.shape.patients)} other patients, ${r.shape.staff} staff members), a copy kept of each smaller size; all sizes served at once, ` +
      `each request for ${settings.duration} s after ${settings.warmup} s of warm-up at ${settings.connections} connections and at 1, at every size in turn, ${r.rounds} rounds (odd rounds from the smallest size up, even rounds from the largest down). ` +
      "Figures are medians over the rounds; server µs/req: the server process's CPU, with that database's PostgreSQL backends, per 2xx response; " +
      `growth: server µs/req ÷ the same request's at the smallest size in the same round (median; each round's beside it), the target ≤ ${SCALE_TARGET}; ` +
      "query alone: the list's SQL outside the server (SQLite: on a connection of the bench's own; PostgreSQL: EXPLAIN ANALYZE's execution time), measured the same way, at every size in turn, and its growth likewise; page: rows in the first request's page.",
    '',
    mdTable(SEED_HEAD, r.seeds, seedCells, 1),
    '',
    mdTable(ROW_HEAD, r.rows, rowCells(r), 2),
    '',
    ...requests.map(([name, request]) => `- **${name}**: \`${request}\``),
    '',
    '### Plans',
    '',
    ...r.plans.map((p) => `- ${p.engine}, ${count(p.rows)} rows, **${p.kind}** (${f0(p.queryMicros)} µs, ×${f2(p.queryGrowth)}): ${planSummary(p)}`),
    '',
  ];
}
