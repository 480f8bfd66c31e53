// `npm run bench`: a bare Fastify baseline (and, on SQLite, a bare better-sqlite3 primary-key
// read behind it), then the Commands API on each engine over a database of 100k commands — GET by
// uuid, two filtered list pages, create, PATCH and commit — each measured with autocannon for a
// few seconds. On PostgreSQL, GET and create against `charta-server start --workers 1` and
// `--workers 2` as real processes, with the 2-worker ÷ 1-worker ratio (workers, lib/workers.ts).
// GET a command against `charta-server start` with CHARTA_METRICS=off and with metrics on and
// scraped every second, in turn, with the on ÷ off ratio (metrics, lib/metrics.ts).
// Then the plugin platform (lib/plugin-scenarios.ts): installs of 1 MiB packages
// (plugin-install) and the log stream's fan-out to 100 WebSocket subscribers (log-fanout), each
// next to a bare baseline; and commit throughput with no plugin, one no-op POST_COMMIT handler,
// one no-op PRE_COMMIT handler and a POST_COMMIT handler originating an instruct, with the
// handler-call latency and the outbox's delivery rate (plugin-commit, lib/plugin-commit.ts); and
// what a plugin's own isolate costs and keeps from the others (plugin-isolation,
// lib/plugin-isolation.ts): the runner's memory with 1, 10 and 30 plugins, the first call after
// enabling one, and plain commits' and another plugin's latency while a plugin attacks the
// runtime. Then autocomplete over a generated terminology of 300k ICD-10-like
// concepts (lib/autocomplete.ts): one-word, two-word and code searches next to the GET /noop
// baseline, and the worst terms timed one request at a time. Then the console in headless Chromium
// (lib/console.ts): its first load's bytes and time to the plugins list, and the live logs page's
// frame rate at 1,000 lines/s. Then `charta-server backup` on the seeded SQLite database
// (lib/backup.ts): its throughput, and GET's latency without and during backups. Prints the
// tables and writes bench/results/latest.{json,md}.
// The audit list's pages (GET /core/api/v1/audit/) on an audit trail grown from 1M to 10M rows per
// engine (audit, lib/audit.ts): its seeding takes minutes, so it runs only when BENCH_SCENARIOS
// names it, like the Commands scale scenario (scale, lib/scale.ts).
// Settings: BENCH_DURATION, BENCH_WARMUP, BENCH_CONNECTIONS, BENCH_ENGINES, BENCH_COMMANDS,
// BENCH_SCENARIOS, BENCH_PROFILE, BENCH_QUIET_WAIT, BENCH_SQLITE_ANALYZE, BENCH_PLUGIN_INSTALLS,
// BENCH_PLUGIN_CONNECTIONS, BENCH_FANOUT_SUBSCRIBERS, BENCH_FANOUT_RATES, BENCH_CONCEPTS,
// BENCH_AUTOCOMPLETE_PROBES, BENCH_PLUGIN_LATENCY_PROBES, BENCH_CONSOLE_LOADS, BENCH_CONSOLE_RATE,
// BENCH_ISOLATION_PLUGINS, BENCH_ISOLATION_SAMPLES, BENCH_ISOLATION_RATE, BENCH_ISOLATION_ATTACKERS,
// BENCH_ISOLATION_ATTACKS, BENCH_METRICS_ROUNDS, BENCH_BACKUP_QUIET, BENCH_BACKUP_ROUNDS, BENCH_AUDIT_ROWS,
// BENCH_AUDIT_ROUNDS (lib/options.ts, docs/performance.md).
// BENCH_SCENARIOS=plugin-commit runs the plugin variants with their own no-plugin reference;
// BENCH_PROFILE=plugin-commit (or plugin-commit-<variant>) profiles them.
import { buildStaleBundles } from '../scripts/build-bundles.js';
import { BUNDLE_DIGEST_ENV, recordedServerDigest } from './lib/bundle.ts';
import { f0, f1, mdTable, median, mergeRounds } from './lib/format.ts';
import { heapGrowth, summarizeHeapSnapshot } from './lib/heap.ts';
import { shuffle } from './lib/random.ts';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type autocannon from 'autocannon';
import { isoMicros } from '../packages/server/src/lib/time.ts';
import { Child } from './lib/child.ts';
import { cpuMeter, waitForIdle, waitForQuiet, type CpuShare } from './lib/cpu.ts';
import type { SetupArgs, SetupResult, TerminologyLoad } from './lib/charta-server.ts';
import {
  AUTOCOMPLETE_SCENARIOS,
  autocompleteScenarios,
  buildTerms,
  checkAnswers,
  rankingFigure,
  stageDiagnose,
  worstCases,
  type CheckResult,
  type RankingRow,
  type WorstRow,
} from './lib/autocomplete.ts';
import { measure, type LoadResult } from './lib/load.ts';
import { rssMiB, rssSampler, type RssSample } from './lib/memory.ts';
import { BARE_TWIN_TARGET } from './lib/targets.ts';
import { processWriteBytes, writeFigures, writesCell, type WriteCounters, type WriteFigures } from './lib/writes.ts';
import { loadOptions, type BenchOptions } from './lib/options.ts';
import { buildPackages, type PackageSet } from './lib/plugin-archives.ts';
import { fanoutScenario, installScenario, packagesNeeded } from './lib/plugin-scenarios.ts';
import { buildCommitPlugins, commitFixturesNeeded, pluginCommitScenario } from './lib/plugin-commit.ts';
import { ATTACKS, buildIsolationPlugins, isolationFixturesNeeded, ISOLATION_SCENARIO, pluginIsolationScenario } from './lib/plugin-isolation.ts';
import { READ_THREAD_SETUPS, servedScenario, WORKER_SETUPS } from './lib/workers.ts';
import { hookCost, METRICS_SCENARIO, metricsScenario, type HookCost } from './lib/metrics.ts';
import { buildRoutePlugin, routeScenario, ROUTE_SCENARIO } from './lib/plugin-routes.ts';
import { CONSOLE_SCENARIO, consoleScenario, type ConsoleRow } from './lib/console.ts';
import { SCALE_SCENARIO, scalePlan, scaleRequests, type ScaleSeed } from './lib/scale.ts';
import { BACKUP_SCENARIO, backupScenario, backupTextTables, type BackupReport } from './lib/backup.ts';
import { AUDIT_SCENARIO, auditScenario, auditTextTables } from './lib/audit.ts';
import { seedShape } from './lib/seed.ts';
import {
  commitTextTable,
  readsTextTable,
  routesTextTable,
  type ReadTiming,
  type RouteRow,
  consoleTextTable,
  fanoutTextTable,
  installTextTable,
  isolationTextTables,
  machine,
  textTable,
  worstTextTable,
  write,
  type FanoutRow,
  type InstallRow,
  type IsolationResult,
  type PluginCommitRow,
  type Report,
  type Row,
  type WorkersRow,
  workersTextTable,
  type MetricsRow,
  metricsTextTable,
  type ScaleRow,
  scaleSeedTextTable,
  scaleTextTable,
} from './lib/report.ts';

const here = import.meta.dirname;
const RESULTS = path.join(here, 'results');
const API = '/core/api/v1/commands';
/** The Commands API scenarios (they need the seeded commands and the GET /noop baseline). */
const COMMAND_SCENARIOS = ['bare-pk-read', 'get', 'list', 'list-created', 'create', 'patch', 'commit', 'bare-pg', 'bare-sqlite', 'memory'];
const PLUGIN_SCENARIOS = ['plugin-install', 'log-fanout', 'plugin-commit', ROUTE_SCENARIO, ISOLATION_SCENARIO];
/** GET and create with 1 and 2 worker processes (lib/workers.ts), PostgreSQL only. */
const WORKERS_SCENARIO = 'workers';
/** GET and the list pages with 0, 1 and 2 reader threads (lib/workers.ts), SQLite only. */
const READ_THREADS_SCENARIO = 'read-threads';

interface Probe {
  method: 'GET' | 'POST' | 'PATCH';
  path: string;
  body?: string;
}

interface Scenario {
  name: string;
  /** What one request looks like, for the docs. */
  request: string;
  expect: number;
  /** A request to check by hand before loading (it must answer `expect`); made anew for each run when a function (a commit's staged plan is used up). */
  probe: Probe | (() => Probe);
  requests: autocannon.Request[];
}

const JSON_HEADERS = { 'content-type': 'application/json' };

/** The commit scenario's staged plans: one per commit at up to 5,000 commits/s (several times what either engine reaches here) in each of BENCH_TWIN_ROUNDS runs; running out would show as non-2xx. */
const commitScenarioFixtures = (opts: BenchOptions) => Math.ceil(5_000 * (opts.duration + opts.warmup)) * opts.twinRounds + 1;

/**
 * The bare twins of the Commands API scenarios, by Charta scenario name: on PostgreSQL bare-pg
 * (lib/bare-pg.ts: the same SQL through Charta's pool), on SQLite bare-sqlite (lib/bare-sqlite.ts:
 * the same SQL with prepared better-sqlite3 statements on the same file); the same rows as
 * Charta's requests, no Charta code. The commit twin takes the staged plans after the commit
 * scenario's.
 */
function bareTwins(opts: BenchOptions, f: SetupResult, engine: string): Map<string, Scenario> {
  const kind = engine === 'postgres' ? 'bare-pg' : 'bare-sqlite';
  const B = '/bare/commands';
  const uuids = shuffle(f.sampleUuids).slice(0, 250);
  const patients = shuffle(f.patientKeys).slice(0, 250);
  const notes = shuffle(f.writableNotes).slice(0, 250);
  const narrative = 'Follow up in two weeks; recheck blood pressure and renal function.';
  let patchNext = 0;
  let commitNext = 0;
  const commitUuids = f.commitUuids.slice(commitScenarioFixtures(opts), 2 * commitScenarioFixtures(opts));
  const patch = (): Probe => ({
    method: 'PATCH',
    path: `${B}/${f.patchUuids[patchNext++ % f.patchUuids.length]}/`,
    body: JSON.stringify({ values: { narrative: `Revised plan ${patchNext}: ${narrative}` } }),
  });
  const commit = (): Probe => ({ method: 'POST', path: `${B}/${commitUuids[commitNext++ % commitUuids.length]}/commit/` });
  const get = uuids.map((u): Probe => ({ method: 'GET', path: `${B}/${u}` }));
  const list = patients.map((k): Probe => ({ method: 'GET', path: `${B}?patient_key=${k}&state=committed&limit=20` }));
  const listCreated = patients.map((k): Probe => ({ method: 'GET', path: `${B}?patient_key=${k}&created_after=${f.createdAfter}&limit=20` }));
  const create = notes.map((n): Probe => ({ method: 'POST', path: `${B}/`, body: JSON.stringify({ noteKey: n, values: { narrative } }) }));
  const sql =
    engine === 'postgres'
      ? "through Charta's pg pool, named (prepared) statements, as Charta sends it"
      : "with prepared better-sqlite3 statements on Charta's file, Charta's pragmas, as Charta runs it";
  const readAudit = '; its read-audit row written in the turn’s batch';
  const writeSql =
    engine === 'postgres'
      ? {
          create: 'BEGIN, the note for share, insert command with its audit row (one statement), COMMIT, pg_notify',
          patch: 'BEGIN, the command and its note locked in one select, update with its audit row (one statement), COMMIT, pg_notify',
        }
      : {
          create: 'the note, insert command, insert its audit row, in the turn’s batch (BEGIN IMMEDIATE, a savepoint each, COMMIT)',
          patch: 'the command and its note in one select, update, insert its audit row, in the turn’s batch',
        };
  const twins: Scenario[] = [
    { name: 'get', request: `GET ${B}/{uuid}: select * by uuid ${sql}; the row as JSON${readAudit}`, expect: 200, probe: get[0]!, requests: fixed(get) },
    {
      name: 'list',
      request: `GET ${B}?patient_key={key}&state=committed&limit=20: the page's select (21 rows), then the capped count when there is a next page, ${sql}${readAudit}`,
      expect: 200,
      probe: list[0]!,
      requests: fixed(list),
    },
    {
      name: 'list-created',
      request: `GET ${B}?patient_key={key}&created_after={µs}&limit=20: the page's select (21 rows), then the capped count when there is a next page, ${sql}${readAudit}`,
      expect: 200,
      probe: listCreated[0]!,
      requests: fixed(listCreated),
    },
    {
      name: 'create',
      request: `POST ${B}/: ${writeSql.create} ${sql}`,
      expect: 201,
      probe: create[0]!,
      requests: fixed(create),
    },
    {
      name: 'patch',
      request: `PATCH ${B}/{uuid}/: ${writeSql.patch} ${sql}`,
      expect: 200,
      probe: patch,
      requests: rotating(patch),
    },
    {
      name: 'commit',
      request: `POST ${B}/{uuid}/commit/: as patch, the update setting state committed`,
      expect: 200,
      probe: commit,
      requests: rotating(commit),
    },
  ];
  return new Map(twins.map((t) => [t.name, { ...t, name: `${kind} ${t.name}` }]));
}

/**
 * Every connection walks the same prebuilt list: cheapest for the client (a per-request
 * setupRequest costs it about a third of the baseline's rate), fine where requests do not contend.
 */
function fixed(probes: Probe[]): autocannon.Request[] {
  return probes.map((p) => ({ method: p.method, path: p.path, ...(p.body ? { body: p.body, headers: JSON_HEADERS } : {}) }));
}

/** One shared counter across connections: each request gets the next item (no two connections on one row). */
function rotating(make: () => Probe): autocannon.Request[] {
  const first = make();
  return [
    {
      method: first.method,
      path: first.path,
      ...(first.body ? { body: first.body, headers: JSON_HEADERS } : {}),
      setupRequest: (req: any) => {
        const p = make();
        return { ...req, path: p.path, ...(p.body ? { body: p.body } : {}) };
      },
    },
  ];
}

function chartaScenarios(opts: BenchOptions, f: SetupResult): Scenario[] {
  // Autocannon builds every fixed request once per connection before it starts: a few hundred
  // distinct requests keep that cheap; each connection then cycles through them.
  const uuids = shuffle(f.sampleUuids).slice(0, 250);
  const patients = shuffle(f.patientKeys).slice(0, 250);
  const notes = shuffle(f.writableNotes).slice(0, 250);
  const after = encodeURIComponent(isoMicros(f.createdAfter));
  const narrative = 'Follow up in two weeks; recheck blood pressure and renal function.';
  let patchNext = 0;
  let commitNext = 0;
  const get = uuids.map((u): Probe => ({ method: 'GET', path: `${API}/${u}` }));
  const list = patients.map((k): Probe => ({ method: 'GET', path: `${API}?patient_key=${k}&state=committed&limit=20` }));
  const listCreated = patients.map((k): Probe => ({ method: 'GET', path: `${API}?patient_key=${k}&created_at__gte=${after}&limit=20` }));
  const create = notes.map((n): Probe => ({ method: 'POST', path: `${API}/`, body: JSON.stringify({ schemaKey: 'plan', noteKey: n, values: { narrative } }) }));
  const patch = (): Probe => ({
    method: 'PATCH',
    path: `${API}/${f.patchUuids[patchNext++ % f.patchUuids.length]}/`,
    body: JSON.stringify({ values: { narrative: `Revised plan ${patchNext}: ${narrative}` } }),
  });
  // Past the last fixture it wraps round: those commits answer 400 and show as non-2xx.
  const commitUuids = f.commitUuids.slice(0, commitScenarioFixtures(opts));
  const commit = (): Probe => ({ method: 'POST', path: `${API}/${commitUuids[commitNext++ % commitUuids.length]}/commit/` });
  return [
    { name: 'get', request: `GET ${API}/{uuid} (${uuids.length} uuids of the seeded rows)`, expect: 200, probe: get[0]!, requests: fixed(get) },
    {
      name: 'list',
      request: `GET ${API}?patient_key={key}&state=committed&limit=20 (${patients.length} patients)`,
      expect: 200,
      probe: list[0]!,
      requests: fixed(list),
    },
    {
      name: 'list-created',
      request: `GET ${API}?patient_key={key}&created_at__gte={timestamp}&limit=20 (newest quarter)`,
      expect: 200,
      probe: listCreated[0]!,
      requests: fixed(listCreated),
    },
    {
      name: 'create',
      request: `POST ${API}/ {"schemaKey":"plan","noteKey":…,"values":{"narrative":…}} (${notes.length} notes)`,
      expect: 201,
      probe: create[0]!,
      requests: fixed(create),
    },
    {
      name: 'patch',
      request: `PATCH ${API}/{uuid}/ {"values":{"narrative":…}} (${f.patchUuids.length} staged plans, round robin)`,
      expect: 200,
      probe: patch,
      requests: rotating(patch),
    },
    {
      name: 'commit',
      request: `POST ${API}/{uuid}/commit/ (a different staged plan each time, ${f.commitUuids.length} prepared)`,
      expect: 200,
      probe: commit,
      requests: rotating(commit),
    },
  ];
}

async function probe(url: string, token: string, p: Probe, expect: number): Promise<void> {
  const res = await fetch(url + p.path, {
    method: p.method,
    headers: { authorization: `Bearer ${token}`, ...(p.body ? JSON_HEADERS : {}) },
    body: p.body,
  });
  const text = await res.text();
  if (res.status !== expect) throw new Error(`${p.method} ${p.path} answered ${res.status} (expected ${expect}): ${text.slice(0, 300)}`);
}

/** Lets the server finish requests autocannon stopped waiting for, so they do not burden the next run. */
async function drain(child: Child, name: string, after: string): Promise<void> {
  const waited = await waitForIdle(child.pid, 60);
  if (waited > 1) console.log(`  (${name}: the server worked ${waited.toFixed(1)} s after the ${after} ended on requests already queued)`);
}

type Measured = LoadResult & { cpu: CpuShare; profiled: boolean; serverMicrosPerRequest: number; rss: RssSample; writes?: WriteFigures };

/** The database's write counters now (lib/writes.ts), with the server process's write_bytes. */
async function writeCounters(child: Child): Promise<{ counters: WriteCounters; synchronous: 'normal' | 'full' }> {
  const { synchronous, ...rest } = await child.call<Omit<WriteCounters, 'writeBytes'> & { synchronous: 'normal' | 'full' }>('writeCounters');
  return { counters: { ...rest, writeBytes: processWriteBytes(child.pid) }, synchronous };
}

/** Profiles written in this run, by name, and how many times. */
const profilesWritten = new Map<string, number>();

/** `postgresDatabase`: count only that database's PostgreSQL backends as the server's (the scale scenario); otherwise every postgres process. */
async function run(opts: BenchOptions, child: Child, label: string, url: string, token: string, s: Scenario, postgresDatabase?: string): Promise<Measured> {
  await probe(url, token, typeof s.probe === 'function' ? s.probe() : s.probe, s.expect);
  const spec = { url, connections: opts.connections, headers: { authorization: `Bearer ${token}` }, requests: s.requests };
  if (opts.quietWait > 0) await waitForQuiet(child.pid, 0.25, opts.quietWait, true);
  if (opts.warmup > 0) {
    await measure({ ...spec, duration: opts.warmup });
    await drain(child, s.name, 'warm-up');
  }
  const profiled = opts.profile.includes('all') || opts.profile.includes(s.name);
  if (profiled) await child.call('profileStart');
  // Charta's and the twins' servers are the same process: what the database wrote in the window.
  const writesBefore = label === 'sqlite' || label === 'postgres' ? await writeCounters(child) : undefined;
  const stop = cpuMeter(child.pid, postgresDatabase);
  const rss = rssSampler(child.pid);
  const result = await measure({ ...spec, duration: opts.duration });
  const cpu = stop();
  const memory = rss();
  await drain(child, s.name, 'measurement');
  let writes: WriteFigures | undefined;
  if (writesBefore !== undefined) {
    if (label === 'postgres') await new Promise((r) => setTimeout(r, 1100)); // pg_stat_* lag a second
    const after = await writeCounters(child);
    writes = writeFigures(label, writesBefore.synchronous, writesBefore.counters, after.counters, result.ok);
  }
  if (profiled) {
    // A scenario measured more than once in a run (BENCH_TWIN_ROUNDS) keeps each round's profile: -2, -3, ….
    const name = `${label}-${s.name}`;
    const times = (profilesWritten.get(name) ?? 0) + 1;
    profilesWritten.set(name, times);
    const file = await child.call<string>('profileStop', { file: path.join(RESULTS, 'profiles', `${name}${times > 1 ? `-${times}` : ''}.cpuprofile`) });
    console.log(`  (profiled: ${path.relative(process.cwd(), file)}; the profiler slows the server, so this row reads low)`);
  }
  const serverCores = cpu.server + (label === 'postgres' ? cpu.postgres : 0);
  const serverMicrosPerRequest = result.ok > 0 ? (serverCores * cpu.seconds * 1e6) / result.ok : NaN;
  return { ...result, cpu, profiled, serverMicrosPerRequest, rss: memory, ...(writes === undefined ? {} : { writes }) };
}

const line = (r: Measured) =>
  `${Math.round(r.okPerSecond).toLocaleString('en-US').padStart(7)} req/s  p50 ${r.p50.toFixed(2)} ms  p99 ${r.p99.toFixed(2)} ms  server ${Math.round(r.serverMicrosPerRequest)} µs/req  rss ${Math.round(r.rss.peak)} MiB  cpu client ${r.cpu.client.toFixed(2)} server ${r.cpu.server.toFixed(2)} pg ${r.cpu.postgres.toFixed(2)} other ${r.cpu.other.toFixed(2)}${r.writes ? `  writes ${writesCell(r.writes)}` : ''}${r.non2xx + r.errors + r.timeouts ? `  non-2xx ${r.non2xx} errors ${r.errors} timeouts ${r.timeouts} ${JSON.stringify(r.statusCodes)}` : ''}`;

/**
 * The server's resident memory over a long GET load (issue 12: reported, and it must not grow):
 * BENCH_MEMORY_REQUESTS requests (1M by default) at BENCH_CONNECTIONS, RSS read after the first
 * tenth (the warmed-up size) and at the end.
 */
async function memoryScenario(opts: BenchOptions, engine: string, child: Child, f: SetupResult): Promise<Measured & { scenario: string; request: string }> {
  const uuids = shuffle(f.sampleUuids).slice(0, 250);
  const spec = { url: f.url, connections: opts.connections, duration: 0, headers: { authorization: `Bearer ${f.token}` } };
  const requests = fixed(uuids.map((u): Probe => ({ method: 'GET', path: `${API}/${u}` })));
  const first = Math.round(opts.memoryRequests / 10);
  const before = rssMiB(child.pid);
  await measure({ ...spec, requests, amount: first });
  const warmed = rssMiB(child.pid);
  // Snapshots between the loads (each pauses the server for seconds): not in the measured window.
  const snapshot = async (after: number) =>
    opts.heapSnapshots
      ? child.call<{ file: string; bytes: number }>('heapSnapshot', { file: path.join(RESULTS, 'heap', `${engine}-${after}.heapsnapshot`) })
      : undefined;
  const snapshots = [await snapshot(first)];
  const stop = cpuMeter(child.pid);
  const rss = rssSampler(child.pid);
  const result = await measure({ ...spec, requests, amount: opts.memoryRequests - first });
  const cpu = stop();
  const memory = rss();
  snapshots.push(await snapshot(opts.memoryRequests));
  if (snapshots[0] !== undefined && snapshots[1] !== undefined) heapReport(engine, [first, opts.memoryRequests], snapshots[0].file, snapshots[1].file);
  const serverCores = cpu.server + (engine === 'postgres' ? cpu.postgres : 0);
  console.log(
    `  (memory: RSS ${before.toFixed(0)} MiB before, ${warmed.toFixed(0)} MiB after ${first.toLocaleString('en-US')} GETs, ` +
      `${memory.end.toFixed(0)} MiB after ${opts.memoryRequests.toLocaleString('en-US')} (peak ${memory.peak.toFixed(0)}): ` +
      `${(((memory.end - warmed) / warmed) * 100).toFixed(1)} % since the first tenth)`,
  );
  return {
    ...result,
    cpu,
    profiled: false,
    serverMicrosPerRequest: result.ok > 0 ? (serverCores * cpu.seconds * 1e6) / result.ok : NaN,
    rss: { ...memory, warmed },
    scenario: 'memory',
    request: `GET ${API}/{uuid} × ${opts.memoryRequests.toLocaleString('en-US')} (RSS after the first ${first.toLocaleString('en-US')} and at the end; the row's figures are of the last ${(opts.memoryRequests - first).toLocaleString('en-US')})`,
  };
}

/** What the memory scenario's two heap snapshots hold, and what grew between them: printed, and written beside them. */
function heapReport(engine: string, after: [number, number], beforeFile: string, afterFile: string): void {
  const [a, b] = [summarizeHeapSnapshot(beforeFile), summarizeHeapSnapshot(afterFile)];
  const mib = (bytes: number) => f1(bytes / 2 ** 20);
  const at = after.map((n) => `after ${n.toLocaleString('en-US')} GETs`);
  const lines = [
    `Live heap of the ${engine} server (each snapshot follows a full collection): ${mib(a.bytes)} MiB in ${a.nodes.toLocaleString('en-US')} objects ${at[0]}, ` +
      `${mib(b.bytes)} MiB in ${b.nodes.toLocaleString('en-US')} objects ${at[1]} (${f1(((b.bytes - a.bytes) / a.bytes) * 100)} %).`,
    '',
    mdTable(
      ['group (DevTools Summary)', `count ${at[0]}`, `count ${at[1]}`, 'KiB before', 'KiB after', 'KiB change'],
      heapGrowth(a, b),
      (g) => [
        g.name.slice(0, 60),
        f0(g.countBefore),
        f0(g.countAfter),
        f0(g.bytesBefore / 1024),
        f0(g.bytesAfter / 1024),
        f0((g.bytesAfter - g.bytesBefore) / 1024),
      ],
      1,
    ),
  ].join('\n');
  console.log(`  (heap: ${lines.split('\n')[0]})`);
  fs.writeFileSync(path.join(RESULTS, 'heap', `${engine}.md`), `${lines}\n`);
}

/**
 * The scale scenario (lib/scale.ts). Per engine, every size's database is seeded and its server
 * started first; then each request is measured at every size in turn, BENCH_SCALE_ROUNDS times
 * over (100k, 1M, 10M, 100k, 1M, 10M, …). On this shared machine the CPU a request costs drifts
 * by 2× within minutes with the other work: measured side by side in each round, the sizes see the
 * same drift, and the growth (server µs per request ÷ the smallest size's, in the same round) is
 * the median over the rounds. The other figures are medians too.
 */
async function scaleScenario(opts: BenchOptions): Promise<{ seeds: ScaleSeed[]; rows: ScaleRow[]; failed: boolean }> {
  const seeds: ScaleSeed[] = [];
  const rows: ScaleRow[] = [];
  let failed = false;
  for (const engine of opts.engines) {
    const sizes: Array<{ commands: number; child: Child; f: SetupResult }> = [];
    try {
      for (const commands of opts.scales[engine]) {
        const child = new Child(path.join(here, 'lib/charta-server.ts'));
        const started = performance.now();
        const plan = scalePlan(opts, commands);
        const f = await child.call<SetupResult>('setup', { engine, plan } satisfies SetupArgs).catch(async (err: unknown) => {
          await child.stop(300_000);
          throw err;
        });
        sizes.push({ commands, child, f });
        const bytes = await child.call<number>('databaseBytes');
        const seed: ScaleSeed = {
          engine,
          commands,
          patients: plan.patients,
          notes: plan.notes,
          seconds: { ...f.seconds, ready: (performance.now() - started) / 1000 },
          bytes,
        };
        seeds.push(seed);
        console.log(
          `scale ${engine} ${commands.toLocaleString('en-US')}: ${plan.patients.toLocaleString('en-US')} patients, ${plan.notes.toLocaleString('en-US')} notes; ` +
            `rows ${(f.seconds.base + f.seconds.fixtures).toFixed(1)} s, indexes ${f.seconds.indexes.toFixed(1)} s, analyze ${f.seconds.analyze.toFixed(1)} s, ready after ${seed.seconds.ready.toFixed(1)} s; ` +
            `${(bytes / 2 ** 20).toFixed(0)} MiB on disk`,
        );
      }
      const requests = sizes.map((size) => scaleRequests(size.f));
      for (let k = 0; k < (requests[0]?.length ?? 0); k++) {
        const measured = sizes.map(() => [] as Measured[]);
        const growths = sizes.map(() => [] as number[]);
        for (let round = 0; round < opts.scaleRounds; round++) {
          for (let i = 0; i < sizes.length; i++) {
            const { commands, child, f } = sizes[i]!;
            const r = requests[i]![k]!;
            const s: Scenario = {
              name: r.name,
              request: r.request,
              expect: 200,
              probe: { method: 'GET', path: r.paths[0]! },
              requests: fixed(r.paths.map((p) => ({ method: 'GET', path: p }))),
            };
            const m = await run({ ...opts, quietWait: 0 }, child, engine, f.url, f.token, s, f.postgresDatabase);
            measured[i]!.push(m);
            growths[i]!.push(m.serverMicrosPerRequest / measured[0]![round]!.serverMicrosPerRequest);
            console.log(
              `${engine.padEnd(8)}  ${commands.toLocaleString('en-US').padStart(10)}  ${r.name.padEnd(13)} round ${round + 1}  ${line(m)}  ×${growths[i]![round]!.toFixed(2)}`,
            );
          }
        }
        for (let i = 0; i < sizes.length; i++) {
          rows.push({
            ...mergeRounds(measured[i]!),
            scenario: requests[i]![k]!.name,
            engine,
            request: requests[i]![k]!.request,
            commands: sizes[i]!.commands,
            growth: median(growths[i]!),
            growths: growths[i]!,
            baseCommands: sizes[0]!.commands,
          });
        }
      }
    } catch (err) {
      failed = true;
      console.error(`scale ${engine}: ${err instanceof Error ? err.stack : err}`);
    } finally {
      for (const size of sizes) await size.child.stop(300_000);
    }
  }
  return { seeds, rows, failed };
}

async function main(): Promise<void> {
  const opts = loadOptions();
  const started = performance.now();
  // The in-process server runs the bundle `npm start` runs (lib/charta-server.ts): brought up to date first.
  const server = process.env.BENCH_SERVER === 'sources' ? 'sources' : 'bundle';
  if (server === 'bundle') {
    const rebuilt = await buildStaleBundles();
    if (rebuilt.length > 0) console.log(`Rebuilt the bundles ${rebuilt.join(', ')} (scripts/build-bundles.js)`);
    // The children measure this bundle to the end, whatever is edited meanwhile (lib/bundle.ts).
    const digest = recordedServerDigest();
    if (digest !== undefined) process.env[BUNDLE_DIGEST_ENV] = digest;
  }
  const wanted = (name: string) => opts.scenarios === undefined || opts.scenarios.includes(name);
  const known = [
    ...COMMAND_SCENARIOS,
    ...PLUGIN_SCENARIOS,
    WORKERS_SCENARIO,
    READ_THREADS_SCENARIO,
    METRICS_SCENARIO,
    ...AUTOCOMPLETE_SCENARIOS,
    SCALE_SCENARIO,
    CONSOLE_SCENARIO,
    BACKUP_SCENARIO,
    AUDIT_SCENARIO,
  ];
  const unknown = (opts.scenarios ?? []).filter((n) => !known.includes(n));
  if (unknown.length > 0) throw new Error(`BENCH_SCENARIOS: unknown ${unknown.join(', ')} (known: ${known.join(', ')})`);
  const commandsWanted = COMMAND_SCENARIOS.some(wanted);
  const workersWanted = wanted(WORKERS_SCENARIO);
  const readThreadsWanted = wanted(READ_THREADS_SCENARIO);
  // The workers scenario loads GET and create too, read-threads GET and the lists: they need the seeded commands and notes.
  // plugin-route compares with GET and create of the seeded commands.
  // So does the metrics scenario (GET a command with metrics off and on), and backup (it copies the seeded database and loads GET of its commands).
  const metricsWanted = wanted(METRICS_SCENARIO);
  const seedWanted = commandsWanted || workersWanted || readThreadsWanted || metricsWanted || wanted(ROUTE_SCENARIO) || wanted(BACKUP_SCENARIO);
  const autocompleteWanted = AUTOCOMPLETE_SCENARIOS.some(wanted);
  // The scale scenario seeds up to 10M commands per engine: it runs only when named.
  const scaleWanted = opts.scenarios?.includes(SCALE_SCENARIO) === true;
  // So does the audit scenario: a trail of 1M and then 10M rows per engine.
  const auditWanted = opts.scenarios?.includes(AUDIT_SCENARIO) === true;
  // The console scenario starts its own demo instance (lib/console.ts), after the engines' scenarios.
  const othersWanted = opts.scenarios === undefined || opts.scenarios.some((n) => n !== SCALE_SCENARIO && n !== CONSOLE_SCENARIO && n !== AUDIT_SCENARIO);
  console.log(
    `Charta benchmark: ${opts.connections} connections, ${opts.duration} s per scenario (+${opts.warmup} s warm-up), engines ${opts.engines.join(', ')}`,
  );
  const rows: Row[] = [];
  const installs: InstallRow[] = [];
  const fanout: FanoutRow[] = [];
  const pluginCommits: PluginCommitRow[] = [];
  const readTimings: ReadTiming[] = [];
  const routeRows: RouteRow[] = [];
  const workerRows: WorkersRow[] = [];
  const readThreadRows: WorkersRow[] = [];
  const metricsRows: MetricsRow[] = [];
  let metricsHook: HookCost | undefined;
  if (metricsWanted) {
    metricsHook = await hookCost();
    console.log(
      `metrics alone: a request's counter and histogram ${metricsHook.requestMicros.toFixed(2)} µs, a pool wait's histogram ${metricsHook.connectionWaitMicros.toFixed(2)} µs, prom-client's part of a scrape ${metricsHook.scrapeMs.toFixed(1)} ms`,
    );
  }
  const terminology: Record<string, Omit<TerminologyLoad, 'sampleCodes'>> = {};
  const checks: CheckResult[] = [];
  const ranking: RankingRow[] = [];
  const worst: WorstRow[] = [];
  let backupReport: BackupReport | undefined;
  // The install packages are built once and used on every engine (each starts on a fresh database).
  let packages: PackageSet | undefined;
  if (wanted('plugin-install')) {
    packages = await buildPackages(packagesNeeded(opts));
    console.log(
      `plugin-install: built ${packages.packages.length} packages of ${packages.archiveBytes.toLocaleString('en-US')} bytes (${packages.inflatedBytes.toLocaleString('en-US')} inflated) in ${packages.seconds.toFixed(1)} s`,
    );
  }
  // The plugin-commit packages: real builds by the CLI's packaging, installed on each engine.
  const commitPlugins = wanted('plugin-commit') ? await buildCommitPlugins() : undefined;
  const routePlugin = wanted(ROUTE_SCENARIO) ? await buildRoutePlugin() : undefined;
  // The plugin-isolation packages: the no-op plugins, the victim and the attackers, built the same way.
  let isolationPlugins: Map<string, Buffer> | undefined;
  if (wanted(ISOLATION_SCENARIO)) {
    const building = performance.now();
    isolationPlugins = await buildIsolationPlugins(opts);
    console.log(`plugin-isolation: built ${isolationPlugins.size} plugins in ${((performance.now() - building) / 1000).toFixed(1)} s`);
  }
  const isolation: IsolationResult = { memory: [], firstCall: [], noisy: [] };
  const seeding: Report['seeding'] = {};
  let failed = false;

  // The baseline process stays up: on SQLite it also serves the bare primary-key read reference.
  const baselineChild = new Child(path.join(here, 'lib/baseline-server.ts'));
  const baselineUrl = await baselineChild.call<string>('url');
  const b: Scenario = {
    name: 'baseline',
    request: 'GET /noop → {} on a bare Fastify app',
    expect: 200,
    probe: { method: 'GET', path: '/noop' },
    requests: [{ method: 'GET', path: '/noop' }],
  };
  // The machine is shared and its speed drifts: each engine is compared with a baseline
  // measured just before its own scenarios, not with one from minutes earlier.
  const measureBaseline = async (engine: string) => {
    const r = await run(opts, baselineChild, 'fastify', baselineUrl, 'none', b);
    rows.push({ scenario: b.name, engine: `fastify (for ${engine})`, request: b.request, ...r, ratio: 1 });
    console.log(`baseline (for ${engine})  ${line(r)}`);
    return r;
  };
  // It drifts within minutes too (by up to 2× in one run): the ratios that issue 12 sets targets
  // for are taken against the baseline measured again just before each of those scenarios.
  const nearBaseline = async () => {
    const r = await run(opts, baselineChild, 'fastify', baselineUrl, 'none', b);
    console.log(`  (baseline just before: ${Math.round(r.okPerSecond).toLocaleString('en-US')} req/s)`);
    return r.okPerSecond;
  };

  for (const engine of othersWanted ? opts.engines : []) {
    const child = new Child(path.join(here, 'lib/charta-server.ts'));
    try {
      const seedStart = performance.now();
      // Without a Commands scenario the 100k commands would only cost seeding time.
      // Each Commands scenario is followed by its bare twin (bare-pg, bare-sqlite; the commit twin needs its own staged plans).
      const twinKind = engine === 'postgres' ? 'bare-pg' : 'bare-sqlite';
      const twinsWanted = wanted(twinKind) && commandsWanted;
      const commitFixtures = wanted('commit') ? commitScenarioFixtures(opts) * (twinsWanted ? 2 : 1) : 0;
      const pluginCommitFixtures = commitPlugins ? commitFixturesNeeded(opts) : 0;
      const plan: SetupArgs['plan'] = {
        ...seedShape(seedWanted ? opts.commands : 0),
        commands: seedWanted ? opts.commands : 0,
        patchFixtures: commandsWanted ? 2_000 : 0,
        analyzeSqlite: opts.sqliteAnalyze,
        // Staged plans for the commit scenario, then a slice per plugin-commit variant, then plugin-isolation's.
        commitFixtures: commitFixtures + pluginCommitFixtures + (isolationPlugins ? isolationFixturesNeeded(opts) : 0),
      };
      const f = await child.call<SetupResult>('setup', { engine, plan } satisfies SetupArgs);
      seeding[engine] = { commands: plan.commands, totalCommands: f.totalCommands, seconds: f.seconds };
      console.log(
        `${engine}: seeded ${plan.commands.toLocaleString('en-US')} commands in ${f.seconds.base.toFixed(1)} s, fixtures in ${f.seconds.fixtures.toFixed(1)} s` +
          `${f.seconds.analyze > 0.05 ? `, ${engine === 'postgres' ? 'VACUUM ANALYZE' : 'ANALYZE'} ${f.seconds.analyze.toFixed(1)} s` : ''} (ready after ${((performance.now() - seedStart) / 1000).toFixed(1)} s)`,
      );
      let load: TerminologyLoad | undefined;
      if (autocompleteWanted) {
        load = await child.call<TerminologyLoad>('loadTerminology', { concepts: opts.concepts });
        terminology[engine] = { stored: load.stored, injected: load.injected, seconds: load.seconds, bytes: load.bytes };
        console.log(
          `${engine}: stored ${load.stored.toLocaleString('en-US')} concepts (${load.injected} of the starter set among them) in ${load.seconds.store.toFixed(1)} s (${Math.round(load.stored / load.seconds.store).toLocaleString('en-US')}/s), ` +
            `${engine === 'postgres' ? 'VACUUM ANALYZE' : 'PRAGMA optimize'} ${load.seconds.analyze.toFixed(1)} s, ${(load.bytes / 2 ** 20).toFixed(0)} MiB on disk`,
        );
      }
      const baseline = commandsWanted || autocompleteWanted ? await measureBaseline(engine) : undefined;
      if (baseline !== undefined && f.sqliteFile !== undefined && wanted('bare-pk-read')) {
        // The issue's reference point, on the same file and uuids: better-sqlite3 behind bare Fastify.
        await baselineChild.call('openSqlite', { file: f.sqliteFile });
        const uuids = shuffle(f.sampleUuids).slice(0, 250);
        const s: Scenario = {
          name: 'bare-pk-read',
          request: 'GET /pk/{uuid} on the bare Fastify app: one better-sqlite3 prepared SELECT * by primary key, the row as JSON (no auth, no Charta code)',
          expect: 200,
          probe: { method: 'GET', path: `/pk/${uuids[0]}` },
          requests: uuids.map((u) => ({ method: 'GET', path: `/pk/${u}` })),
        };
        const near = await nearBaseline();
        const r = await run(opts, baselineChild, 'fastify', baselineUrl, 'none', s);
        rows.push({ scenario: s.name, engine, request: s.request, ...r, ratio: r.okPerSecond / near, baselinePerSecond: near });
        console.log(`${engine.padEnd(8)}  ${s.name.padEnd(12)} ${line(r)}`);
      }
      const twins = twinsWanted ? bareTwins(opts, f, engine) : new Map<string, Scenario>();
      const bareUrl = twinsWanted ? await child.call<string>(engine === 'postgres' ? 'barePg' : 'bareSqlite') : '';
      for (const s of baseline === undefined || !commandsWanted ? [] : chartaScenarios(opts, f).filter((x) => wanted(x.name))) {
        const twin = twins.get(s.name);
        if (twin === undefined) {
          const near = await nearBaseline();
          const r = await run(opts, child, engine, f.url, f.token, s);
          rows.push({ scenario: s.name, engine, request: s.request, ...r, ratio: r.okPerSecond / near, baselinePerSecond: near });
          console.log(`${engine.padEnd(8)}  ${s.name.padEnd(12)} ${line(r)}`);
          continue;
        }
        // The path and its twin in rounds, the order swapped every round (path, twin; twin, path; …)
        // so that neither always runs on the warmer or the cooler machine; each round's ratio is of
        // its own two runs, and the figures are the rounds' medians.
        const paths: Measured[] = [];
        const bares: Measured[] = [];
        const nears: number[] = [];
        for (let round = 0; round < opts.twinRounds; round++) {
          const tag = opts.twinRounds > 1 ? ` (round ${round + 1})` : '';
          const measurePath = async () => {
            const near = await nearBaseline();
            const r = await run(opts, child, engine, f.url, f.token, s);
            console.log(`${engine.padEnd(8)}  ${(s.name + tag).padEnd(12)} ${line(r)}`);
            nears.push(near);
            paths.push(r);
          };
          const measureTwin = async () => {
            const t = await run(opts, child, engine, bareUrl, f.token, twin);
            console.log(`${engine.padEnd(8)}  ${(twin.name + tag).padEnd(12)} ${line(t)}`);
            bares.push(t);
          };
          if (round % 2 === 0) {
            await measurePath();
            await measureTwin();
          } else {
            await measureTwin();
            await measurePath();
          }
        }
        const ratios = paths.map((r, i) => r.okPerSecond / bares[i]!.okPerSecond);
        const r = paths.length === 1 ? paths[0]! : mergeRounds(paths);
        const t = bares.length === 1 ? bares[0]! : mergeRounds(bares);
        const near = median(nears);
        const twinRatio = { ratio: median(ratios), target: BARE_TWIN_TARGET, ...(ratios.length > 1 ? { rounds: ratios } : {}) };
        rows.push({ scenario: s.name, engine, request: s.request, ...r, ratio: r.okPerSecond / near, baselinePerSecond: near, twin: twinRatio });
        rows.push({ scenario: twin.name, engine, request: twin.request, ...t, ratio: t.okPerSecond / baseline!.okPerSecond });
        console.log(
          `${engine.padEnd(8)}  ${s.name}: ${twinRatio.ratio.toFixed(2)} of its ${twinKind} twin (target ≥ ${BARE_TWIN_TARGET})` +
            (ratios.length > 1 ? `, the median of ${ratios.map((x) => x.toFixed(2)).join(', ')}` : ''),
        );
      }
      if (baseline !== undefined && wanted('memory')) {
        const m = await memoryScenario(opts, engine, child, f);
        rows.push({ ...m, engine, ratio: m.okPerSecond / baseline.okPerSecond });
      }
      if (load !== undefined && baseline !== undefined) {
        const uuid = await stageDiagnose(f.url, f.token, f.writableNotes[0]!);
        const scenarios = autocompleteScenarios(uuid, buildTerms(load.sampleCodes)).filter((x) => wanted(x.name));
        for (const s of scenarios) {
          const c = await checkAnswers(engine, f.url, f.token, uuid, child, s);
          checks.push(c);
          const m = c.matches;
          console.log(
            `  (${s.name}: ${c.checked - c.failures.length} of ${c.checked} answers checked correct` +
              (m
                ? `; the ${m.terms} terms match p50 ${m.p50.toLocaleString('en-US')}, p90 ${m.p90.toLocaleString('en-US')}, max ${m.max.toLocaleString('en-US')} concepts, ${m.none} nothing`
                : '') +
              ')',
          );
          for (const failure of c.failures.slice(0, 5)) console.log(`    ${failure}`);
          if (c.failures.length > 0) failed = true;
        }
        await child.call('releaseCorpus');
        const r = await rankingFigure(engine, f.url, f.token, f.writableNotes[0]!);
        ranking.push(r);
        console.log(
          `  (ranking: ${r.top3} of ${r.searches} common searches have their expected concept in the top 3, ${r.top1} first; ICD-10-CM ${r.icd10.top3} and ${r.icd10.top1} of ${r.icd10.searches})`,
        );
        for (const m of r.misses.filter((x) => x.rank === null || x.rank > 3))
          console.log(`    ${JSON.stringify(m.term)} ${m.code}: ${m.rank ?? 'not in the page'}; ${m.top.join(' | ')}`);
        // At BENCH_CONNECTIONS the latencies are mostly queueing on the server's one event loop;
        // over a single connection they are what one user typing sees.
        for (const s of scenarios) {
          for (const [connections, name] of [
            [opts.connections, s.name],
            [1, `${s.name} (1 conn)`],
          ] as const) {
            const r = await run({ ...opts, connections }, child, engine, f.url, f.token, { ...s, name });
            rows.push({ scenario: name, engine, request: s.request, ...r, ratio: r.okPerSecond / baseline.okPerSecond });
            console.log(`${engine.padEnd(8)}  ${name.padEnd(31)} ${line(r)}`);
          }
        }
        const w = await worstCases(engine, f.url, f.token, uuid, child, opts.autocompleteProbes);
        await child.call('releaseCorpus');
        worst.push(...w);
        for (const x of w)
          console.log(
            `${engine.padEnd(8)}  worst ${JSON.stringify(x.term).padEnd(18)} p50 ${x.p50.toFixed(2)} ms  p99 ${x.p99.toFixed(2)} ms  max ${x.max.toFixed(2)} ms  (${x.options} options; matches ${x.matches.toLocaleString('en-US')})`,
          );
      }
      if (workersWanted && engine === 'sqlite') {
        console.log('sqlite    workers: not measured; --workers above 1 is refused on SQLite (docs/configuration.md, "Multi-process serving")');
      } else if (workersWanted) {
        const paths = chartaScenarios(opts, f).filter((x) => x.name === 'get' || x.name === 'create');
        workerRows.push(
          ...(await servedScenario(
            opts,
            { engine, databaseUrl: f.databaseUrl, databaseEnv: f.databaseEnv, token: f.token, paths },
            WORKER_SETUPS,
            opts.serveRounds,
          )),
        );
      }
      if (readThreadsWanted && engine !== 'sqlite') {
        console.log(`${engine.padEnd(8)}  read-threads: not measured; reader threads are SQLite's (docs/configuration.md, "SQLite")`);
      } else if (readThreadsWanted) {
        const paths = chartaScenarios(opts, f).filter((x) => x.name === 'get' || x.name === 'list' || x.name === 'list-created');
        const target = { engine, databaseUrl: f.databaseUrl, databaseEnv: f.databaseEnv, token: f.token, paths };
        readThreadRows.push(...(await servedScenario(opts, target, READ_THREAD_SETUPS, opts.serveRounds)));
      }
      if (metricsWanted) {
        const get = chartaScenarios(opts, f).find((x) => x.name === 'get')!;
        const target = { engine, databaseUrl: f.databaseUrl, databaseEnv: f.databaseEnv, token: f.token, request: get.request, requests: get.requests };
        metricsRows.push(...(await metricsScenario(opts, target, opts.metricsRounds)));
      }
      if (wanted(BACKUP_SCENARIO) && f.sqliteFile === undefined) {
        console.log(`${engine.padEnd(8)}  backup: not measured; on PostgreSQL a backup is pg_dump's (docs/operations.md, "Backup and restore")`);
      } else if (wanted(BACKUP_SCENARIO)) {
        const target = { url: f.url, token: f.token, databaseUrl: f.databaseUrl, sqliteFile: f.sqliteFile!, pid: child.pid, sampleUuids: f.sampleUuids };
        backupReport = await backupScenario(opts, target);
      }
      const target = { engine, child, url: f.url, apiKey: f.apiKey, baseline: baselineChild, baselineUrl };
      if (packages !== undefined) installs.push(...(await installScenario(opts, target, packages)));
      if (wanted('log-fanout')) fanout.push(...(await fanoutScenario(opts, target)));
      if (commitPlugins !== undefined) {
        // The commit scenario takes the first staged plans; plugin-commit the rest.
        const uuids = f.commitUuids.slice(commitFixtures);
        const { rows, reads } = await pluginCommitScenario(opts, { engine, child, url: f.url, token: f.token, apiKey: f.apiKey, uuids }, commitPlugins);
        pluginCommits.push(...rows);
        if (reads !== undefined) readTimings.push(reads);
      }
      if (routePlugin !== undefined) {
        const target = { engine, child, url: f.url, token: f.token, apiKey: f.apiKey, sampleUuids: f.sampleUuids, writableNotes: f.writableNotes };
        routeRows.push(...(await routeScenario(opts, target, routePlugin)));
      }
      if (isolationPlugins !== undefined) {
        const uuids = f.commitUuids.slice(commitFixtures + pluginCommitFixtures);
        const target = { engine, child, url: f.url, token: f.token, apiKey: f.apiKey, uuids, notes: f.writableNotes };
        const x = await pluginIsolationScenario(opts, target, isolationPlugins);
        isolation.memory.push(...x.memory);
        isolation.firstCall.push(...x.firstCall);
        isolation.noisy.push(...x.noisy);
      }
    } catch (err) {
      failed = true;
      console.error(`${engine}: ${err instanceof Error ? err.stack : err}`);
    } finally {
      await child.stop();
    }
  }

  await baselineChild.stop();

  const scale = scaleWanted ? await scaleScenario(opts) : undefined;
  if (scale?.failed) failed = true;

  const audit = auditWanted ? await auditScenario(opts) : undefined;
  if (audit?.failed) failed = true;

  // On SQLite, the engine of a first `npm start` (its figures are the browser's and the page's, not the database's).
  let consoleRow: ConsoleRow | undefined;
  if (wanted(CONSOLE_SCENARIO)) {
    try {
      consoleRow = await consoleScenario(opts, 'sqlite');
    } catch (err) {
      failed = true;
      console.error(`console: ${err instanceof Error ? err.stack : err}`);
    }
  }

  let commit: string | undefined;
  try {
    commit = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: here, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    commit = undefined;
  }
  const report: Report = {
    date: new Date().toISOString(),
    commit,
    machine: machine(),
    settings: {
      duration: opts.duration,
      warmup: opts.warmup,
      connections: opts.connections,
      commands: opts.commands,
      sqliteAnalyze: opts.sqliteAnalyze,
      server,
      ...(opts.scenarios ? { scenarios: opts.scenarios } : {}),
      ...(packages ? { pluginInstalls: opts.pluginInstalls, pluginConnections: opts.pluginConnections } : {}),
      ...(wanted('log-fanout') ? { fanoutSubscribers: opts.fanoutSubscribers, fanoutRates: opts.fanoutRates } : {}),
      ...(autocompleteWanted ? { concepts: opts.concepts, autocompleteProbes: opts.autocompleteProbes } : {}),
      ...(commitPlugins ? { pluginLatencyProbes: opts.pluginLatencyProbes } : {}),
      ...(isolationPlugins
        ? {
            isolation: {
              plugins: opts.isolationPlugins,
              samples: opts.isolationSamples,
              rate: opts.isolationRate,
              attackers: opts.isolationAttackers,
              attacks: opts.isolationAttacks ?? Object.keys(ATTACKS),
            },
          }
        : {}),
      ...(scaleWanted ? { scales: opts.scales, scaleRounds: opts.scaleRounds } : {}),
      ...(consoleRow ? { consoleLoads: opts.consoleLoads, consoleRate: opts.consoleRate } : {}),
      ...(metricsWanted ? { metricsRounds: opts.metricsRounds } : {}),
      ...(backupReport ? { backupQuiet: opts.backupQuiet, backupRounds: opts.backupRounds } : {}),
      ...(audit ? { auditRows: opts.auditRows, auditRounds: opts.auditRounds } : {}),
    },
    seeding,
    rows,
    plugins: {
      ...(packages
        ? {
            package: {
              archiveBytes: packages.archiveBytes,
              inflatedBytes: packages.inflatedBytes,
              files: packages.files,
              built: packages.packages.length,
              seconds: packages.seconds,
            },
          }
        : {}),
      installs,
      fanout,
      ...(pluginCommits.length > 0 ? { commits: pluginCommits } : {}),
      ...(readTimings.length > 0 ? { reads: readTimings } : {}),
      ...(routeRows.length > 0 ? { routes: routeRows } : {}),
      ...(isolationPlugins ? { isolation } : {}),
    },
    ...(workerRows.length > 0 ? { workers: workerRows } : {}),
    ...(readThreadRows.length > 0 ? { readThreads: readThreadRows } : {}),
    ...(metricsRows.length > 0 ? { metrics: metricsRows } : {}),
    ...(metricsHook ? { metricsHook } : {}),
    ...(autocompleteWanted ? { autocomplete: { concepts: opts.concepts, loads: terminology, checks, ranking, worst } } : {}),
    ...(scale ? { scale: { seeds: scale.seeds, rows: scale.rows } } : {}),
    ...(consoleRow ? { console: consoleRow } : {}),
    ...(backupReport ? { backup: backupReport } : {}),
    ...(audit ? { audit: audit.report } : {}),
  };
  if (rows.length > 0) console.log('\n' + textTable(rows));
  if (installs.length > 0) console.log('\n' + installTextTable(installs));
  if (fanout.length > 0) console.log('\n' + fanoutTextTable(fanout));
  if (pluginCommits.length > 0) console.log('\n' + commitTextTable(pluginCommits));
  if (readTimings.length > 0) console.log('\n' + readsTextTable(readTimings));
  if (routeRows.length > 0) console.log('\n' + routesTextTable(routeRows));
  if (isolation.memory.length + isolation.noisy.length > 0) console.log('\n' + isolationTextTables(isolation));
  if (workerRows.length > 0) console.log('\n' + workersTextTable(workerRows));
  if (readThreadRows.length > 0) console.log('\n' + workersTextTable(readThreadRows));
  if (metricsRows.length > 0) console.log('\n' + metricsTextTable(metricsRows));
  if (worst.length > 0) console.log('\n' + worstTextTable(worst));
  if (scale !== undefined && scale.rows.length > 0) console.log('\n' + scaleSeedTextTable(scale.seeds) + '\n\n' + scaleTextTable(scale.rows));
  if (consoleRow !== undefined) console.log('\n' + consoleTextTable(consoleRow));
  if (backupReport !== undefined) console.log('\n' + backupTextTables(backupReport));
  if (audit !== undefined && audit.report.rows.length > 0) console.log('\n' + auditTextTables(audit.report));
  write(RESULTS, report);
  console.log(`\nWrote ${path.relative(process.cwd(), RESULTS)}/latest.json and latest.md in ${((performance.now() - started) / 1000).toFixed(0)} s total`);
  if (failed) process.exitCode = 1;
}

await main();
