// A Charta instance for the benchmark, in its own process: a fresh database, startServer with
// silent logs and the test harness's bootstrap client and API key, a bearer token, then the
// seeded data (or, for the console scenario, the demo data). For the log fan-out it also emits entries on the server's own log bus, the way
// an operation does after its commit (logs/events.ts); for plugin-isolation it records the lines of
// the plugins it watches on that bus and reads the plugin runner's own stats.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { sql } from 'kysely';
import type { Running } from '../../packages/server/src/server.ts';
import { entryFor, importEntry } from '../../scripts/bundles.js';
import { bundleBuiltByThisRun } from './bundle.ts';
import { CodeSystems } from '@charta/api/constants';
import { storeConcepts } from '../../packages/server/src/terminology/store.ts';
import { STARTER_FILES, readStarterRows } from '../../packages/server/src/terminology/starter.ts';
import type { ConceptRecord } from '../../packages/server/src/terminology/systems.ts';
import { loadDemoReference } from '../../packages/server/src/reference/starter.ts';
import { nowMicros } from '../../packages/server/src/lib/time.ts';
import type { RunnerStats } from '../../packages/server/src/runtime/runner/client.ts';
import { matchesAllWords, parseSearchTerm } from '../../packages/server/src/terminology/normalize.ts';
import type { Engine } from '../../packages/server/src/storage/db.ts';
import { createDatabase, testConfig, TEST_API_KEY, TEST_CLIENT_ID, TEST_CLIENT_SECRET, type TestDatabase } from '../../packages/server/test/support/harness.ts';
import { Child, serve } from './child.ts';
import { clockMs, fanoutEvent, paced, type PaceResult } from './fanout.ts';
import { startProfile, stopProfile } from './profiler.ts';
import { writeHeapSnapshot } from './heap.ts';
import type { SeedPlan, Seeded } from './seed.ts';
import { generateConcepts } from './terminology.ts';
import { barePg, closeBarePg } from './bare-pg.ts';
import { bareSqlite, bareSqliteBatches, closeBareSqlite } from './bare-sqlite.ts';
import type { WriteCounters } from './writes.ts';

// The server as it ships: the bundle `npm start` runs (scripts/bundles.js, entry `server`, which
// bench/run.ts brings up to date before it starts this process), not the TypeScript sources through
// tsx, whose keepNames wraps every named closure each time it is made (docs/performance.md, "Speed,
// second pass"). BENCH_SERVER=sources measures the sources instead; the report says which ran.
const fromSources = process.env.BENCH_SERVER === 'sources';
async function serverModule(): Promise<unknown> {
  if (fromSources) return import('../../packages/server/src/server.ts');
  if (!entryFor('server').needsTsx) return importEntry('server');
  // Stale since bench/run.ts built it: a source edited during the run (lib/bundle.ts).
  const built = bundleBuiltByThisRun();
  if (built !== undefined) return import(built);
  throw new Error('the server bundle is stale: run npm run build:bins (bench/run.ts does)');
}
const { prepareStorage, startServer } = (await serverModule()) as typeof import('../../packages/server/src/server.ts');

// The server's own pg: the bare-pg routes (lib/bare-pg.ts) use Charta's pool, and the SQL
// capture below sees every statement Charta sends through it.
const serverPackage = path.resolve(import.meta.dirname, '../../packages/server/package.json');
const pg = createRequire(serverPackage)('pg') as typeof import('pg');
const pools = new Set<import('pg').Pool>();
const poolConnect = pg.Pool.prototype.connect;
pg.Pool.prototype.connect = function (this: import('pg').Pool, ...args: any[]) {
  pools.add(this);
  return (poolConnect as (...a: any[]) => any).apply(this, args);
} as typeof poolConnect;
let captured: Array<{ text: string; values: unknown[] }> | undefined;
const clientQuery = pg.Client.prototype.query;
pg.Client.prototype.query = function (this: import('pg').Client, ...args: any[]) {
  const [first, second] = args as [unknown, unknown];
  if (captured !== undefined) {
    const text = typeof first === 'string' ? first : (first as { text?: string }).text;
    const values = Array.isArray(second) ? second : ((first as { values?: unknown[] }).values ?? []);
    if (text !== undefined) captured.push({ text, values });
  }
  return (clientQuery as (...a: any[]) => any).apply(this, args);
} as typeof clientQuery;
// The same on SQLite: every statement run on any of Charta's better-sqlite3 connections. Wrapped
// only once a capture is asked for (bench/capture-sql.ts): the wrapper would cost every statement
// of a measured run about 5 % of the server's time.
const BetterSqlite3 = createRequire(serverPackage)('better-sqlite3') as typeof import('better-sqlite3');
let sqliteWrapped = false;
function wrapSqlite(): void {
  if (sqliteWrapped) return;
  sqliteWrapped = true;
  const probe = new BetterSqlite3(':memory:');
  const statement = Object.getPrototypeOf(probe.prepare('select 1')) as Record<'all' | 'get' | 'run' | 'iterate', (...a: unknown[]) => unknown>;
  probe.close();
  for (const method of ['all', 'get', 'run', 'iterate'] as const) {
    const original = statement[method]!;
    statement[method] = function (this: { source: string }, ...values: unknown[]) {
      if (captured !== undefined) captured.push({ text: this.source, values });
      return original.apply(this, values);
    };
  }
}

export interface SetupArgs {
  engine: Engine;
  plan: Omit<SeedPlan, 'staffKey'>;
}

export interface SetupResult extends Seeded {
  url: string;
  token: string;
  /** The bootstrap API key (plugin routes and the log stream take it raw in Authorization). */
  apiKey: string;
  /** The SQLite file (undefined on PostgreSQL). */
  sqliteFile: string | undefined;
  /** The PostgreSQL database's name (undefined on SQLite). */
  postgresDatabase: string | undefined;
  /** The database's URL, for other server processes on it (the workers scenario). */
  databaseUrl: string;
  /** What else such a process needs in its environment: the secret key's file on PostgreSQL (docs/operations.md, "Sealed secrets"). */
  databaseEnv: Record<string, string>;
  /** Rows in the commands table once seeded (base + fixtures). */
  totalCommands: number;
}

let running: Running | undefined;
let database: TestDatabase | undefined;
let staffKey: string | undefined;
/** The SQLite `synchronous` setting the server was started with (the bare-sqlite twins use the same). */
let synchronous: 'normal' | 'full' = 'normal';

async function setup({ engine, plan }: SetupArgs): Promise<SetupResult> {
  database = await createDatabase(engine);
  // The route rate limit (docs/plugins.md, "HTTP routes") would cap plugin-route's load: raised.
  const config = testConfig(database, { logLevel: 'silent', pluginRouteRateLimit: 1_000_000_000, streamsPerPrincipal: 1000 }); // log-fanout's subscribers share one key
  synchronous = config.sqliteSynchronous;
  // Migrations and the bootstrap client first; then the bulk load (lib/seed.ts, in a process of its
  // own) with the database to itself; then the server, on the seeded database.
  const prepared = (await prepareStorage(config)).storage;
  try {
    const client = await prepared.db.selectFrom('oauth_clients').select('staff_key').where('client_id', '=', TEST_CLIENT_ID).executeTakeFirstOrThrow();
    staffKey = client.staff_key;
  } finally {
    await prepared.close();
    pools.clear(); // barePg looks for the running server's pool
  }
  const seeder = new Child(path.join(import.meta.dirname, 'seed-child.ts'));
  let seeded: Seeded;
  try {
    seeded = await seeder.call<Seeded>('seed', { url: database.url, engine, plan: { ...plan, staffKey: staffKey! } });
  } finally {
    await seeder.stop();
  }
  running = await startServer(config, () => undefined);
  const reply = await fetch(`${running.url}/auth/token/`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: `grant_type=client_credentials&client_id=${TEST_CLIENT_ID}&client_secret=${TEST_CLIENT_SECRET}`,
  });
  if (reply.status !== 200) throw new Error(`token: ${reply.status} ${await reply.text()}`);
  const token = ((await reply.json()) as { access_token: string }).access_token;
  // The server refreshed the planner statistics at start (SQLite's PRAGMA optimize), as it does
  // every 10 minutes: the first refresh of a database it had never seen.
  const { n } = await running.storage.db
    .selectFrom('commands')
    .select((eb) => eb.fn.countAll().as('n'))
    .executeTakeFirstOrThrow();
  return {
    ...seeded,
    url: running.url,
    token,
    apiKey: TEST_API_KEY,
    sqliteFile: sqliteFile(),
    postgresDatabase: engine === 'postgres' ? new URL(database.url).pathname.slice(1) : undefined,
    databaseUrl: database.url,
    databaseEnv: database.env,
    totalCommands: Number(n),
  };
}

/** The console scenario's instance (lib/console.ts): a fresh database with the demo data (as a first start makes it), serving the console's build. */
async function startDemo({ engine, consoleDir }: { engine: Engine; consoleDir: string }): Promise<{ url: string; apiKey: string }> {
  database = await createDatabase(engine);
  running = await startServer(testConfig(database, { logLevel: 'silent', demo: true, consoleDir }), () => undefined);
  return { url: running.url, apiKey: TEST_API_KEY };
}

const sqliteFile = () => (database!.url.startsWith('sqlite:') ? database!.url.slice('sqlite:'.length) : undefined);

/** The database's size on disk: SQLite's file with its WAL; PostgreSQL's pg_database_size. */
async function databaseBytes(): Promise<number> {
  const file = sqliteFile();
  if (file !== undefined) return [file, `${file}-wal`].reduce((sum, f) => sum + (fs.existsSync(f) ? fs.statSync(f).size : 0), 0);
  const { rows } = await sql<{ n: string }>`SELECT pg_database_size(current_database()) AS n`.execute(running!.storage.db);
  return Number(rows[0]!.n);
}

export interface TerminologyLoad {
  stored: number;
  /** Of which the starter set's ICD-10-CM concepts, stored again among the generated ones. */
  injected: number;
  /** storeConcepts, and the statistics refresh after it (PRAGMA optimize / VACUUM ANALYZE concepts). */
  seconds: { store: number; analyze: number };
  /** SQLite: the database file with its WAL; PostgreSQL: the concepts table with its indexes and TOAST. */
  bytes: number;
  /** Every 100th generated concept's code, for the code searches. */
  sampleCodes: string[];
}

/**
 * The generated ICD-10-like terminology (lib/terminology.ts), written the way an import writes a
 * release: storeConcepts, batches of 500 upserts, each batch a transaction. The starter set's
 * ICD-10-CM concepts (with their usage ranks), which the server loaded on start, are deleted and
 * stored again spread evenly among the generated ones, so that they sit among them in every index
 * (not first in rowid or heap order) for the ranking figure (lib/autocomplete.ts); a generated
 * code equal to one of theirs is skipped. The demo reference data is loaded too: the ranking
 * searches' lab tests are its lab partners' catalogues.
 */
async function loadTerminology({ concepts }: { concepts: number }): Promise<TerminologyLoad> {
  const storage = running!.storage;
  const icd = STARTER_FILES.find((f) => f.system === CodeSystems.ICD10)!;
  const starter = readStarterRows(icd.file, icd.columns).map(icd.record);
  const starterCodes = new Set(starter.map((c) => c.code));
  await storage.db.deleteFrom('concepts').where('system', '=', CodeSystems.ICD10).execute();
  await loadDemoReference(storage);
  const every = Math.max(1, Math.floor(concepts / starter.length));
  const sampleCodes: string[] = [];
  const records = (function* (): Generator<ConceptRecord> {
    let i = 0;
    let injected = 0;
    for (const c of generateConcepts(concepts + starter.length)) {
      if (starterCodes.has(c.code)) continue;
      if (i === concepts) break;
      if (i++ % 100 === 0) sampleCodes.push(c.code);
      yield c;
      if (i % every === 0 && injected < starter.length) yield starter[injected++]!;
    }
    yield* starter.slice(injected);
  })();
  const started = performance.now();
  const stored = await storeConcepts(storage, CodeSystems.ICD10, records);
  const storedAt = performance.now();
  // As in setup: what the server's 10-minute optimize (SQLite) or autovacuum (PostgreSQL) would
  // have done by the time anyone searches the freshly imported release.
  if (storage.engine === 'postgres') await sql`VACUUM ANALYZE concepts`.execute(storage.db);
  else await storage.optimize();
  const analyzed = performance.now();
  let bytes: number;
  if (storage.engine === 'sqlite') {
    const file = database!.url.slice('sqlite:'.length);
    bytes = [file, `${file}-wal`].reduce((sum, f) => sum + (fs.existsSync(f) ? fs.statSync(f).size : 0), 0);
  } else {
    const { rows } = await sql<{ n: string }>`SELECT pg_total_relation_size('concepts') AS n`.execute(storage.db);
    bytes = Number(rows[0]!.n);
  }
  return { stored, injected: starter.length, seconds: { store: (storedAt - started) / 1000, analyze: (analyzed - storedAt) / 1000 }, bytes, sampleCodes };
}

let corpus: string[] | undefined;

/**
 * For the correctness checks: how many active ICD-10 concepts contain every word of each term
 * (each word a prefix of a word of the code or display), by brute force over search_text.
 */
async function matchCounts({ terms }: { terms: string[] }): Promise<number[]> {
  if (corpus === undefined) {
    const rows = await running!.storage.db
      .selectFrom('concepts')
      .select('search_text')
      .where('system', '=', CodeSystems.ICD10)
      .where('active', '=', 1)
      .execute();
    corpus = rows.map((r) => r.search_text);
  }
  return terms.map((term) => {
    const { words } = parseSearchTerm(term);
    if (words.length === 0) return 0;
    let n = 0;
    for (const text of corpus!) if (matchesAllWords(text, words)) n++;
    return n;
  });
}

export interface EmitArgs {
  /** Entries per second. */
  rate: number;
  seconds: number;
  /** Names the run in each entry's text, so the subscribers tell a warm-up from a measurement. */
  tag: string;
}

/** Info entries on the server's log bus at a steady rate, each stamped with its emit time. */
function emitLogs({ rate, seconds, tag }: EmitArgs): Promise<PaceResult> {
  const bus = running!.app.logs;
  return paced(rate, seconds, (seq) => bus.emit({ level: 'info', event: fanoutEvent(tag, seq) }));
}

/** Rows waiting in the plugin outbox (POST events not yet delivered). */
async function outbox(): Promise<number> {
  const { n } = await running!.storage.db
    .selectFrom('plugin_events')
    .select((eb) => eb.fn.countAll().as('n'))
    .executeTakeFirstOrThrow();
  return Number(n);
}

/**
 * Handler-call latency of plugin-commit's post-instruct variant, ms: for each instruct the plugin
 * originated (its comment is the committed plan's uuid), its created_at minus the plan's commit
 * time (updated_at, written in the commit's transaction), for plans committed at or after `since`.
 */
async function effectLatencies({ plugin, since }: { plugin: string; since: number }): Promise<number[]> {
  const db = running!.storage.db;
  const instructs = await db.selectFrom('commands').select(['data', 'created_at']).where('originated_by', '=', `plugin:${plugin}`).execute();
  const plans = new Map(
    (
      await db
        .selectFrom('commands')
        .select(['uuid', 'updated_at'])
        .where('schema_key', '=', 'plan')
        .where('state', '=', 'committed')
        .where('updated_at', '>=', since)
        .execute()
    ).map((p) => [p.uuid, Number(p.updated_at)]),
  );
  const out: number[] = [];
  for (const i of instructs) {
    const data = (typeof i.data === 'string' ? JSON.parse(i.data) : i.data) as { comment?: unknown };
    const committedAt = plans.get(String(data.comment));
    if (committedAt !== undefined) out.push((Number(i.created_at) - committedAt) / 1000);
  }
  return out;
}

/** A line of a watched plugin on the server's log bus (plugin-isolation): what its handler logged, or a fault about it. */
export interface WatchedLine {
  plugin: string;
  text: string;
  source: 'server' | 'plugin';
  /** false on a fault line (docs/plugins.md, "Faults"). */
  success?: boolean;
  /** When the bus handed it over, on the server's clock (nowMicros). */
  micros: number;
}

interface Watch {
  names: Set<string>;
  lines: WatchedLine[];
  unsubscribe: () => void;
  /** Each answers true once it has what it waited for. */
  waiters: Array<(line: WatchedLine) => boolean>;
}

let watch: Watch | undefined;

/**
 * Records from now on every log line of these plugins, and the runner's own lines (it died, it
 * could not start, its stderr) under the name `runner` (replacing an earlier watch and its lines);
 * empty names stop watching.
 */
function watchPlugins({ names, runner }: { names: string[]; runner?: string }): void {
  watch?.unsubscribe();
  watch = undefined;
  if (names.length === 0) return;
  const w: Watch = { names: new Set(names), lines: [], unsubscribe: () => undefined, waiters: [] };
  w.unsubscribe = running!.app.logs.subscribe((entry) => {
    const plugin = entry.plugin ?? (runner !== undefined && /plugin runner/.test(entry.event) ? runner : undefined);
    if (plugin === undefined || (plugin !== runner && !w.names.has(plugin))) return;
    const line: WatchedLine = { plugin, text: entry.event, source: entry.source, success: entry.success, micros: nowMicros() };
    w.lines.push(line);
    w.waiters = w.waiters.filter((waiter) => !waiter(line));
  });
  watch = w;
}

/** The watched lines of `plugin` from `since` (µs) on. */
function pluginLines({ plugin, since }: { plugin: string; since: number }): WatchedLine[] {
  return (watch?.lines ?? []).filter((l) => l.plugin === plugin && l.micros >= since);
}

/** When (µs) the plugin's handler logged `text`: at once if it has, else as soon as it does (fails after `timeoutMs`). */
function waitForLine({ plugin, text, timeoutMs }: { plugin: string; text: string; timeoutMs: number }): Promise<number> {
  const w = watch;
  if (w === undefined) return Promise.reject(new Error('waitForLine: no plugin is watched'));
  const seen = w.lines.find((l) => l.plugin === plugin && l.source === 'plugin' && l.text === text);
  if (seen !== undefined) return Promise.resolve(seen.micros);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`waitForLine: ${plugin} did not log ${text} within ${timeoutMs} ms`)), timeoutMs);
    w.waiters.push((l) => {
      if (l.plugin !== plugin || l.source !== 'plugin' || l.text !== text) return false;
      clearTimeout(timer);
      resolve(l.micros);
      return true;
    });
  });
}

/**
 * Handler latency of a plugin whose handler logs the uuid of the command its event is about
 * (plugin-isolation's victim), ms: for each of `uuids` committed, its line's time minus its commit
 * time (updated_at, written in the commit's transaction); and how many lines are still missing.
 */
async function lineLatencies({ plugin, uuids }: { plugin: string; uuids: string[] }): Promise<{ latencies: number[]; missing: number }> {
  const lines = new Map(
    pluginLines({ plugin, since: 0 })
      .filter((l) => l.source === 'plugin')
      .map((l) => [l.text, l.micros]),
  );
  const out: number[] = [];
  let missing = 0;
  for (let i = 0; i < uuids.length; i += 500) {
    const rows = await running!.storage.db
      .selectFrom('commands')
      .select(['uuid', 'updated_at', 'state'])
      .where('uuid', 'in', uuids.slice(i, i + 500))
      .execute();
    for (const r of rows) {
      if (r.state !== 'committed') continue;
      const at = lines.get(r.uuid);
      if (at === undefined) missing++;
      else out.push((at - Number(r.updated_at)) / 1000);
    }
  }
  return { latencies: out, missing };
}

/** The plugin runner child (docs/plugins.md, "The runner process"): its pid and what it holds (null before it started). */
async function runnerStats(): Promise<{ pid: number | undefined; stats: RunnerStats | null }> {
  const runner = running!.app.pluginRuntime.runner;
  return { pid: runner.pid, stats: await runner.stats() };
}

/**
 * Ends the runner child (plugin-isolation, with no plugin loaded): the next plugin request starts
 * a new one, so the runner's memory is measured from a fresh process whatever ran before
 * (docs/plugins.md, "The runner process": a runner that dies with nothing to load is started again
 * by the next request). Answers whether there was one to end.
 */
async function endRunner(): Promise<boolean> {
  const runner = running!.app.pluginRuntime.runner;
  const pid = runner.pid;
  if (pid === undefined) return false;
  process.kill(pid, 'SIGKILL');
  for (const end = performance.now() + 10_000; runner.pid !== undefined;) {
    if (performance.now() > end) throw new Error('endRunner: the runner did not exit within 10 s');
    await new Promise((r) => setTimeout(r, 10));
  }
  return true;
}

serve({
  setup,
  startDemo,
  databaseBytes,
  handlers: ({ type }: { type: string }) => running!.app.pluginRuntime.registry.handlersOf(type).length,
  outbox,
  delivered: () => running!.app.pluginRuntime.delivery.delivered,
  nowMicros: () => nowMicros(),
  effectLatencies,
  watchPlugins,
  pluginLines,
  waitForLine,
  lineLatencies,
  runnerStats,
  endRunner,
  /** SQLite's group commit: transactions, writes in them, writes set aside for a slow check (null on PostgreSQL). */
  groupCommit: () => (running!.storage.groupCommit === undefined ? null : { ...running!.storage.groupCommit }),
  clock: () => clockMs(),
  emitLogs,
  subscribers: () => running!.app.logs.subscribers,
  loadTerminology,
  matchCounts,
  // The checks are done: the 300k strings would only burden the measured server's GC.
  releaseCorpus: () => {
    corpus = undefined;
  },
  /** Every statement Charta sends to the database while `captureSql` is on (text and values). */
  captureSql: ({ on }: { on: boolean }) => {
    if (on) wrapSqlite();
    const out = captured;
    captured = on ? [] : undefined;
    return out ?? [];
  },
  /** The bare-pg twins of the Commands API paths on Charta's own pool (lib/bare-pg.ts); answers its URL. */
  barePg: () => {
    const pool = [...pools].find((p) => (p.options as { connectionString?: string }).connectionString === database!.url);
    if (pool === undefined) throw new Error("bare-pg: Charta's pg pool not found");
    return barePg(pool, { staffKey: staffKey!, credential: `client:${TEST_CLIENT_ID}` });
  },
  /** What the database has written so far (lib/writes.ts); the parent adds its process's write_bytes. */
  writeCounters: async (): Promise<Omit<WriteCounters, 'writeBytes'> & { synchronous: 'normal' | 'full' }> => {
    const storage = running!.storage;
    if (storage.engine === 'sqlite') {
      const c = storage.checkpoints?.() ?? { checkpoints: 0, pages: 0 };
      const transactions = (storage.groupCommit?.batches ?? 0) + bareSqliteBatches();
      return { transactions, checkpoints: c.checkpoints, pages: c.pages, walBytes: 0, walSyncs: 0, synchronous };
    }
    // Statistics reach pg_stat_* up to a second after a transaction: the caller waits that long first.
    await sql`SELECT pg_stat_clear_snapshot()`.execute(storage.db);
    const { rows } = await sql<{ xact: string; wal_bytes: string; wal_sync: string }>`
      SELECT (SELECT xact_commit FROM pg_stat_database WHERE datname = current_database()) AS xact, wal_bytes, wal_sync FROM pg_stat_wal`.execute(storage.db);
    const r = rows[0]!;
    return { transactions: Number(r.xact), checkpoints: 0, pages: 0, walBytes: Number(r.wal_bytes), walSyncs: Number(r.wal_sync), synchronous };
  },
  /** The bare-sqlite twins on Charta's file with its pragmas (lib/bare-sqlite.ts); answers its URL. */
  bareSqlite: () => {
    const file = sqliteFile();
    if (file === undefined) throw new Error('bare-sqlite: not on SQLite');
    return bareSqlite({ file, synchronous, staffKey: staffKey!, credential: `client:${TEST_CLIENT_ID}` });
  },
  heapSnapshot: ({ file }: { file: string }) => writeHeapSnapshot(file),
  profileStart: () => startProfile(),
  profileStop: ({ file }: { file: string }) => stopProfile(file),
  close: async () => {
    watch?.unsubscribe();
    await closeBarePg();
    await closeBareSqlite();
    await running?.close();
    await database?.drop();
  },
});
