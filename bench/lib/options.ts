// Benchmark settings from the environment, with the defaults that keep one run near five minutes.
import type { Engine } from '../../packages/server/src/storage/db.ts';

export interface BenchOptions {
  /** Seconds measured per scenario (BENCH_DURATION). */
  duration: number;
  /** Seconds of unrecorded load before each measurement, so the JIT and caches are warm (BENCH_WARMUP). */
  warmup: number;
  /** Concurrent connections (BENCH_CONNECTIONS). */
  connections: number;
  /** Engines to measure, in order (BENCH_ENGINES=sqlite,postgres). */
  engines: Engine[];
  /** Commands seeded before measuring (BENCH_COMMANDS). */
  commands: number;
  /** GET requests of the memory scenario (BENCH_MEMORY_REQUESTS). */
  memoryRequests: number;
  /** memory: a heap snapshot of the server after the first tenth and at the end, and what grew between them (BENCH_HEAP_SNAPSHOTS=1). */
  heapSnapshots: boolean;
  /** Scenarios whose server CPU profile is written to bench/results/profiles/ (BENCH_PROFILE=get,create or all). */
  profile: string[];
  /** Longest wait, per scenario, for other work on the machine to stop (BENCH_QUIET_WAIT seconds; 0 = never wait). */
  quietWait: number;
  /** Run ANALYZE on the seeded SQLite database (BENCH_SQLITE_ANALYZE=1): what the list scenarios reach with planner statistics. Off by default: the server never runs it. */
  sqliteAnalyze: boolean;
  /** Only these scenarios (BENCH_SCENARIOS=get,list), for a quick look; all by default. */
  scenarios: string[] | undefined;
  /** plugin-install: packages installed per concurrency level, after the warm-up ones (BENCH_PLUGIN_INSTALLS). */
  pluginInstalls: number;
  /** plugin-install: concurrent uploads, one measurement each (BENCH_PLUGIN_CONNECTIONS=1,4). */
  pluginConnections: number[];
  /** log-fanout: WebSocket subscribers (BENCH_FANOUT_SUBSCRIBERS). */
  fanoutSubscribers: number;
  /** log-fanout: entries per second, one measurement each, BENCH_DURATION seconds long (BENCH_FANOUT_RATES=200,1000). */
  fanoutRates: number[];
  /** autocomplete: concepts of the generated terminology (BENCH_CONCEPTS). */
  concepts: number;
  /** autocomplete: sequential requests per worst-case term (BENCH_AUTOCOMPLETE_PROBES). */
  autocompleteProbes: number;
  /** scale: the database sizes measured per engine, in commands (BENCH_SCALES=100000,1000000 for every engine; default 100k, 1M and 10M on SQLite, 100k and 1M on PostgreSQL). */
  scales: Record<Engine, number[]>;
  /** scale: each request measured at every size in turn, this many times over (BENCH_SCALE_ROUNDS). */
  scaleRounds: number;
  /** console: first loads measured, each in a fresh browser context (BENCH_CONSOLE_LOADS). */
  consoleLoads: number;
  /** console: lines per second sent to the live logs page (BENCH_CONSOLE_RATE). */
  consoleRate: number;
  /** plugin-commit: commits made one at a time for the post-instruct handler's latency without a backlog (BENCH_PLUGIN_LATENCY_PROBES; 0 = none). */
  pluginLatencyProbes: number;
  /** plugin-isolation: the numbers of enabled plugins at which the runner's memory is read (BENCH_ISOLATION_PLUGINS=1,10,30; the largest is how many are installed). */
  isolationPlugins: number[];
  /** plugin-isolation: enables timed, one after another, for the first call after enabling a plugin (BENCH_ISOLATION_SAMPLES). */
  isolationSamples: number;
  /** plugin-isolation: plain plan commits per second, sent at a steady pace, during each noisy-neighbour window (BENCH_ISOLATION_RATE). */
  isolationRate: number;
  /** plugin-isolation: the attacker's handlers, `pre` (HPI PRE_COMMIT) and/or `post` (HPI POST_COMMIT) (BENCH_ISOLATION_ATTACKERS). */
  isolationAttackers: Array<'pre' | 'post'>;
  /** plugin-isolation: the attacks run, by name (BENCH_ISOLATION_ATTACKS; all by default). */
  isolationAttacks: string[] | undefined;
  /** plugin-commit: rounds, each measuring every variant between two no-plugin runs (BENCH_PLUGIN_COMMIT_ROUNDS). */
  pluginCommitRounds: number;
  /** Commands paths with their bare twins: rounds of the path and its twin, in turn (BENCH_TWIN_ROUNDS). */
  twinRounds: number;
  /** workers, read-threads: rounds of the set-ups, in turn (BENCH_SERVE_ROUNDS). */
  serveRounds: number;
  /** metrics: rounds of GET a command with metrics off and on, in turn (BENCH_METRICS_ROUNDS). */
  metricsRounds: number;
  /** backup: backups taken with no load, for the throughput (BENCH_BACKUP_QUIET). */
  backupQuiet: number;
  /** backup: rounds of GET windows without and during backups (BENCH_BACKUP_ROUNDS). */
  backupRounds: number;
  /** audit: the audit trail's sizes, in rows, one database grown through them in order (BENCH_AUDIT_ROWS=1000000,10000000). */
  auditRows: number[];
  /** audit: each request measured at every size in turn, this many times over (BENCH_AUDIT_ROUNDS). */
  auditRounds: number;
}

function positive(name: string, fallback: number, integer = false): number {
  const text = process.env[name];
  if (text === undefined || text === '') return fallback;
  const value = Number(text);
  if (!Number.isFinite(value) || value <= 0 || (integer && !Number.isInteger(value))) {
    throw new Error(`${name} must be a positive ${integer ? 'integer' : 'number'}, got ${text}`);
  }
  return value;
}

function positives(name: string, fallback: number[]): number[] {
  const items = list(name);
  if (items === undefined) return fallback;
  return items.map((text) => {
    const value = Number(text);
    if (!Number.isInteger(value) || value <= 0) throw new Error(`${name} must be positive integers separated by commas, got ${process.env[name]}`);
    return value;
  });
}

function list(name: string): string[] | undefined {
  const text = process.env[name];
  if (text === undefined || text.trim() === '') return undefined;
  return text
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

/** BENCH_SCALES for every engine, or the defaults: 10M on PostgreSQL only when asked (its seeding and disk are the larger). */
function scalesOf(asked: number[]): Record<Engine, number[]> {
  const sorted = [...new Set(asked)].sort((a, b) => a - b);
  if (sorted.length > 0) return { sqlite: sorted, postgres: sorted };
  return { sqlite: [100_000, 1_000_000, 10_000_000], postgres: [100_000, 1_000_000] };
}

function attackersOf(items: string[]): Array<'pre' | 'post'> {
  for (const item of items) if (item !== 'pre' && item !== 'post') throw new Error(`BENCH_ISOLATION_ATTACKERS: pre and/or post, got ${item}`);
  return [...new Set(items)] as Array<'pre' | 'post'>;
}

export function loadOptions(): BenchOptions {
  const engines = (list('BENCH_ENGINES') ?? ['sqlite', 'postgres']) as Engine[];
  for (const e of engines) if (e !== 'sqlite' && e !== 'postgres') throw new Error(`BENCH_ENGINES: unknown engine ${e}`);
  return {
    duration: positive('BENCH_DURATION', 5),
    warmup: process.env.BENCH_WARMUP === '0' ? 0 : positive('BENCH_WARMUP', 1),
    connections: positive('BENCH_CONNECTIONS', 50, true),
    engines,
    commands: positive('BENCH_COMMANDS', 100_000, true),
    memoryRequests: positive('BENCH_MEMORY_REQUESTS', 1_000_000, true),
    heapSnapshots: process.env.BENCH_HEAP_SNAPSHOTS === '1',
    profile: list('BENCH_PROFILE') ?? [],
    sqliteAnalyze: process.env.BENCH_SQLITE_ANALYZE === '1',
    quietWait: process.env.BENCH_QUIET_WAIT === '0' ? 0 : positive('BENCH_QUIET_WAIT', 20),
    scenarios: list('BENCH_SCENARIOS'),
    pluginInstalls: positive('BENCH_PLUGIN_INSTALLS', 100, true),
    pluginConnections: positives('BENCH_PLUGIN_CONNECTIONS', [1, 4]),
    fanoutSubscribers: positive('BENCH_FANOUT_SUBSCRIBERS', 100, true),
    fanoutRates: positives('BENCH_FANOUT_RATES', [200, 1000]),
    concepts: positive('BENCH_CONCEPTS', 300_000, true),
    autocompleteProbes: positive('BENCH_AUTOCOMPLETE_PROBES', 50, true),
    scales: scalesOf(positives('BENCH_SCALES', [])),
    scaleRounds: positive('BENCH_SCALE_ROUNDS', 3, true),
    consoleLoads: positive('BENCH_CONSOLE_LOADS', 5, true),
    consoleRate: positive('BENCH_CONSOLE_RATE', 1000, true),
    pluginLatencyProbes: process.env.BENCH_PLUGIN_LATENCY_PROBES === '0' ? 0 : positive('BENCH_PLUGIN_LATENCY_PROBES', 200, true),
    isolationPlugins: [...new Set(positives('BENCH_ISOLATION_PLUGINS', [1, 10, 30]))].sort((a, b) => a - b),
    isolationSamples: positive('BENCH_ISOLATION_SAMPLES', 10, true),
    isolationRate: positive('BENCH_ISOLATION_RATE', 50),
    isolationAttackers: attackersOf(list('BENCH_ISOLATION_ATTACKERS') ?? ['pre', 'post']),
    isolationAttacks: list('BENCH_ISOLATION_ATTACKS'),
    pluginCommitRounds: positive('BENCH_PLUGIN_COMMIT_ROUNDS', 1, true),
    twinRounds: positive('BENCH_TWIN_ROUNDS', 1, true),
    metricsRounds: positive('BENCH_METRICS_ROUNDS', 3, true),
    serveRounds: positive('BENCH_SERVE_ROUNDS', 1, true),
    backupQuiet: positive('BENCH_BACKUP_QUIET', 3, true),
    backupRounds: positive('BENCH_BACKUP_ROUNDS', 3, true),
    auditRows: [...new Set(positives('BENCH_AUDIT_ROWS', [1_000_000, 10_000_000]))].sort((a, b) => a - b),
    auditRounds: positive('BENCH_AUDIT_ROUNDS', 3, true),
  };
}
