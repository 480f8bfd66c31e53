// The results table: printed, and written to bench/results/ as JSON and Markdown.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { CpuShare } from './cpu.ts';
import type { LoadResult } from './load.ts';
import type { UploadResult } from './uploads.ts';
import type { CheckResult, RankingRow, WorstRow } from './autocomplete.ts';
import type { TerminologyLoad } from './charta-server.ts';
import { targetCell } from './targets.ts';
import type { RssSample } from './memory.ts';
import { GROWTH_HEAD, SCALE_TARGET, type ScaleSeed } from './scale.ts';
import { CONSOLE_TARGETS, type ConsoleRow } from './console.ts';
import { ATTACKS as ATTACK_CODE } from './plugin-isolation.ts';
import { metricsSummary, type HookCost } from './metrics.ts';
import { writesCell, type WriteFigures } from './writes.ts';
import { backupMarkdown, type BackupReport } from './backup.ts';
import { auditMarkdown, type AuditReport } from './audit.ts';
import { f0, f1, f2, mdTable, table } from './format.ts';

export interface Row extends LoadResult {
  scenario: string;
  engine: string;
  request: string;
  /** okPerSecond / the baseline's okPerSecond (the baseline measured just before this scenario, when `baselinePerSecond` is set). */
  ratio: number;
  /** The bare-Fastify baseline's req/s measured just before this scenario (the Commands scenarios). */
  baselinePerSecond?: number;
  /** Average cores used during the measurement; `server` includes PostgreSQL on that engine. */
  cpu: CpuShare;
  /** Server CPU time per 2xx response, in µs (with PostgreSQL's processes on that engine). */
  serverMicrosPerRequest: number;
  /** The server's CPU profile was being taken (slower). */
  profiled: boolean;
  /** The server's resident memory during the measurement (peak) and at its end, MiB. */
  rss?: RssSample;
  /**
   * okPerSecond ÷ that of the path's bare twin (bare-pg, bare-sqlite) measured beside it, and the
   * target for it; over BENCH_TWIN_ROUNDS rounds the median of the rounds' ratios, with each round's.
   */
  twin?: { ratio: number; target: number; rounds?: number[] };
  /** What the database wrote per request in the window (lib/writes.ts). */
  writes?: WriteFigures;
}

/** One `workers` or `read-threads` measurement (lib/workers.ts): a path against `charta-server start` set up one way. */
export interface WorkersRow extends LoadResult {
  engine: string;
  /** The Commands API scenario loaded: get, create, list… */
  path: string;
  /** How the server was started: `--workers 2`, `read threads 1` (absent in reports from before it existed: `--workers N`). */
  setup?: string;
  workers: number;
  /** Processes counted as the server: the primary and its workers (1 without a fork). */
  processes: number;
  request: string;
  cpu: CpuShare;
  /** Server CPU time (all its processes, with PostgreSQL's) per 2xx response, µs. */
  serverMicrosPerRequest: number;
  /** okPerSecond ÷ that of the same path with the scenario's first set-up (1 worker; 0 read threads), the median over rounds (1 for that row). */
  scaling: number;
  /** Each round's ratio, when measured in rounds (BENCH_SERVE_ROUNDS). */
  roundScalings?: number[];
}

/** One `metrics` measurement (lib/metrics.ts): GET a command against the server with metrics off, or on and scraped every second. */
export interface MetricsRow extends LoadResult {
  engine: string;
  variant: 'off' | 'on';
  /** 1 to BENCH_METRICS_ROUNDS; each round measures both variants, in turn. */
  round: number;
  request: string;
  cpu: CpuShare;
  /** Server CPU time (with PostgreSQL's) per 2xx response, µs. */
  serverMicrosPerRequest: number;
  /** `on`: GET /metrics answered 200 during the measurement, failed, their median time and the size of the last. */
  scrapes: number;
  scrapeFailures: number;
  scrapeP50Ms: number;
  scrapeBytes: number;
}

/** One plugin-install measurement: `installs` uploads over `connections` connections. */
export interface InstallRow extends Omit<UploadResult, 'firstFailure'> {
  /** `plugin-install`, or `upload-baseline` (the same uploads to bare Fastify + @fastify/multipart). */
  scenario: string;
  engine: string;
  connections: number;
  /** Uploads sent (each a distinct package). */
  uploads: number;
  /** okPerSecond ÷ the upload baseline's at the same concurrency, measured just before. */
  ratio: number;
  cpu: CpuShare;
  /** Server CPU per answered upload, ms (with PostgreSQL's processes on that engine). */
  serverMsPerUpload: number;
}

/** One log fan-out measurement: `rate` entries/s for `seconds` to `subscribers` WebSockets. */
export interface FanoutRow {
  /** `log-fanout`, or `ws-baseline` (the same fan-out from a bare ws server). */
  scenario: string;
  engine: string;
  subscribers: number;
  rate: number;
  /** Entries emitted, and the seconds from the first to the last. */
  emitted: number;
  emitSeconds: number;
  /** Entries received over all subscribers (emitted × subscribers when none is lost). */
  delivered: number;
  /** delivered ÷ (first emit → last receipt). */
  deliveredPerSecond: number;
  perSubscriberPerSecond: number;
  /** Emit → receipt, ms, over every delivered entry. */
  p50: number;
  p99: number;
  max: number;
  /** Lines the server reported dropped ("N log lines dropped (slow consumer)"), and the notices. */
  dropped: number;
  droppedNotices: number;
  /** Entries neither delivered nor reported dropped when the bench stopped waiting. */
  missing: number;
  /** Subscribers that received every entry. */
  complete: number;
  outOfOrder: number;
  /** Round trip of the clock calibration between the processes (bounds the latency error at half of it), ms. */
  clockRttMs: number;
  cpu: CpuShare;
  /** Server CPU per delivered line, µs (with PostgreSQL's processes on that engine). */
  serverMicrosPerLine: number;
}

/** One plugin-commit variant: commits with no plugin, or with one enabled plugin (lib/plugin-commit.ts). */
export interface PluginCommitRow extends Row {
  variant: string;
  /** What the variant's plugin does. */
  description: string;
  /** POST events delivered by the server from the start of the measurement until the outbox was empty. */
  events: number;
  /** Seconds from the end of the measurement until the outbox (plugin_events) was empty. */
  drainSeconds: number;
  /** events ÷ (measurement + drain seconds). */
  eventsPerSecond: number;
  /** Average cores of the server's runner child process during the measurement (taken out of cpu.other; in serverMicrosPerRequest). */
  runnerCores: number;
  /** post-instruct: instructs originated for plans committed during the measurement. */
  effects: number;
  /** post-instruct: the plan's commit → the instruct's created_at, ms. */
  handlerP50: number;
  handlerP99: number;
  handlerMax: number;
  /** post-instruct: the same latency over BENCH_PLUGIN_LATENCY_PROBES commits made one at a time after the load, each once the outbox was empty. */
  unloadedEffects: number;
  unloadedP50: number;
  unloadedP99: number;
  /** SQLite: writes per group-commit transaction during the measurement, and writes set aside for a slow PRE check (null on PostgreSQL). */
  writesPerBatch: number | null;
  parked: number | null;
  /** BENCH_PLUGIN_COMMIT_ROUNDS > 1: each round's ratio (the row's is their median). */
  roundRatios?: number[];
}

/** plugin-commit's read timing (lib/plugin-commit.ts). */
export interface ReadTiming {
  engine: string;
  rounds: number;
  /** Commits timed (after the warm-up ones). */
  probes: number;
  /** In the sandbox: the handler's own clock (Date.now(), whole ms over READ_ROUNDS rounds). */
  handlerP50: number;
  handlerP90: number;
  /** Over HTTP, from the bench process (keep-alive connections): the chart's four GETs side by side, then the commands page. */
  httpP50: number;
  httpP90: number;
  /** handlerP50 ÷ httpP50 (the issue's aim: at most 1.5). */
  ratio: number;
}

/** plugin-route (lib/plugin-routes.ts): a plugin's route against the Commands path it stands beside; ratio = its req/s ÷ that path's. */
export interface RouteRow extends Row {
  variant: 'get-command' | 'route-empty' | 'create-command' | 'route-webhook';
}

/** Latencies of one kind, ms. */
export interface Latency {
  count: number;
  p50: number;
  p99: number;
  max: number;
}

/** plugin-isolation (lib/plugin-isolation.ts): the runner child's memory with `plugins` no-op plugins enabled, each having handled one event. */
export interface IsolationMemoryRow {
  engine: string;
  /** Enabled plugins; 0: after every one was deleted. */
  plugins: number;
  /** Isolates the runner reported (one per loaded plugin). */
  isolates: number;
  /** The runner process's resident memory, MiB (its own stats: process.memoryUsage().rss). */
  runnerRssMiB: number;
  /** The plugins' QuickJS WebAssembly memories together, MiB (part of the RSS). */
  quickjsMiB: number;
  /** runnerRssMiB ÷ plugins. */
  rssPerPluginMiB: number;
  /** (runnerRssMiB − that with 1 plugin) ÷ (plugins − 1): what one more plugin costs. */
  perPluginMiB: number;
  /** The plugins installed since the row before: from the install's POST until GET shows its runtime `running`, ms. */
  installs: number;
  installToRunningP50: number;
  installToRunningMax: number;
}

/** plugin-isolation: the first call after enabling a plugin, over `samples` enables (each from disabled). */
export interface IsolationFirstCallRow {
  engine: string;
  samples: number;
  /** From the PATCH is_enabled=True until its 200, ms. */
  patch: Latency;
  /** From the PATCH until GET shows the runtime `running`, ms. */
  running: Latency;
  /** From the PATCH until the handler's line for a plan committed once it was running is seen, ms. */
  firstLine: Latency;
  /** That plan's commit (updated_at) → the handler's line (server clock), ms. */
  firstCall: Latency;
  /** The same for the next plan committed (the second call), ms. */
  warmCall: Latency;
}

/** plugin-isolation: one noisy-neighbour window: plain plan commits at a steady rate with the victim enabled, and an attacker or none. */
export interface IsolationNoisyRow {
  engine: string;
  /** `none`, `none-again`, or `<attacker> <attack>`. */
  window: string;
  attacker: 'none' | 'pre' | 'post';
  attack: string;
  /** Plain commits sent per second. */
  rate: number;
  /** The plain commits' latencies (200s), sent and failed (any other answer). */
  plain: Latency & { sent: number; failed: number };
  /** ÷ the mean of the no-attacker windows' figure. */
  plainP50Ratio: number;
  plainP99Ratio: number;
  /** The victim's handler latency: the plan's commit → its line, ms; `missing`: plans whose line never came. */
  victim: Latency & { missing: number };
  victimP50Ratio: number;
  victimP99Ratio: number;
  /** The attacker's HPI commits during the window (warm-up included): their latencies, and the creates or commits that failed. */
  attacks: Latency & { failures: number };
  /** Fault lines of the attacker saying its isolate was ended, and any other fault lines. */
  isolatesEnded: number;
  otherFaults: number;
  /** The runner child's pid changed during the window (it was restarted). */
  runnerRestarted: boolean;
  /** The attacker's other fault lines and the server's lines about the runner process during the window (a few, cut). */
  remarks: string[];
  /** During the measurement; `server` includes the runner child, `other` does not. */
  cpu: CpuShare;
  runnerCores: number;
}

export interface IsolationResult {
  memory: IsolationMemoryRow[];
  firstCall: IsolationFirstCallRow[];
  noisy: IsolationNoisyRow[];
}

/** One request kind of the scale scenario at one database size (lib/scale.ts). */
export interface ScaleRow extends LoadResult {
  scenario: string;
  engine: string;
  request: string;
  /** Commands seeded for this measurement. */
  commands: number;
  cpu: CpuShare;
  serverMicrosPerRequest: number;
  rss?: RssSample;
  profiled: boolean;
  /** serverMicrosPerRequest ÷ that of the same request on the same engine at the smallest size measured (`baseCommands`) in the same round: the median over the rounds. */
  growth: number;
  /** Each round's growth. */
  growths: number[];
  baseCommands: number;
}

export interface PackageInfo {
  archiveBytes: number;
  inflatedBytes: number;
  files: Array<{ path: string; bytes: number }>;
  built: number;
  seconds: number;
}

export interface Report {
  date: string;
  commit: string | undefined;
  machine: { cpus: number; cpuModel: string; memoryGb: number; node: string; platform: string };
  settings: {
    duration: number;
    warmup: number;
    connections: number;
    commands: number;
    sqliteAnalyze: boolean;
    /** What the in-process server ran: the bundle `npm start` runs, or the TypeScript sources through tsx (BENCH_SERVER=sources). */
    server?: 'bundle' | 'sources';
    scenarios?: string[];
    pluginInstalls?: number;
    pluginConnections?: number[];
    fanoutSubscribers?: number;
    fanoutRates?: number[];
    concepts?: number;
    autocompleteProbes?: number;
    pluginLatencyProbes?: number;
    isolation?: { plugins: number[]; samples: number; rate: number; attackers: string[]; attacks: string[] };
    scales?: Record<string, number[]>;
    scaleRounds?: number;
    consoleLoads?: number;
    consoleRate?: number;
    metricsRounds?: number;
    backupQuiet?: number;
    backupRounds?: number;
    auditRows?: number[];
    auditRounds?: number;
  };
  seeding: Record<string, { commands: number; totalCommands: number; seconds: { base: number; fixtures: number; indexes?: number; analyze: number } }>;
  /** The Commands API scenarios (and their baselines). */
  rows: Row[];
  /** The plugin platform scenarios (absent in reports from before they existed). */
  plugins?: {
    package?: PackageInfo;
    installs: InstallRow[];
    fanout: FanoutRow[];
    commits?: PluginCommitRow[];
    reads?: ReadTiming[];
    routes?: RouteRow[];
    isolation?: IsolationResult;
  };
  /** The `workers` scenario: GET and create with 1 and 2 worker processes (absent in reports from before it existed). */
  workers?: WorkersRow[];
  /** The `read-threads` scenario: GET and the list pages on SQLite with 0, 1 and 2 reader threads. */
  readThreads?: WorkersRow[];
  /** The `metrics` scenario: GET a command with metrics off and on, in turn (absent in reports from before it existed). */
  metrics?: MetricsRow[];
  /** The `metrics` scenario: the per-request work of metrics timed alone in a loop (lib/metrics.ts hookCost). */
  metricsHook?: HookCost;
  /** The scale scenario: each size's seeding and size on disk, and each request's figures at each size. */
  scale?: { seeds: ScaleSeed[]; rows: ScaleRow[] };
  /** The autocomplete scenarios' terminology, answer checks, ranking figure (absent before it existed) and worst terms (their load rows are in `rows`). */
  autocomplete?: {
    concepts: number;
    loads: Record<string, Omit<TerminologyLoad, 'sampleCodes'>>;
    checks: CheckResult[];
    ranking?: RankingRow[];
    worst: WorstRow[];
  };
  /** The console scenario (lib/console.ts): first load and the live logs page's frame rate. */
  console?: ConsoleRow;
  /** The backup scenario (lib/backup.ts): `charta-server backup`'s throughput, and GET's latency without and during backups. */
  backup?: BackupReport;
  /** The audit scenario (lib/audit.ts): GET /core/api/v1/audit/'s pages on a trail grown through BENCH_AUDIT_ROWS. */
  audit?: AuditReport;
}

export function machine(): Report['machine'] {
  const cpus = os.cpus();
  return {
    cpus: os.availableParallelism?.() ?? cpus.length,
    cpuModel: cpus[0]?.model ?? 'unknown',
    memoryGb: Math.round(os.totalmem() / 2 ** 30),
    node: process.version,
    platform: `${os.type()} ${os.release()} ${os.arch()}`,
  };
}

const HEAD = [
  'scenario',
  'engine',
  'req/s',
  'p50 ms',
  'p99 ms',
  'non-2xx',
  'ratio',
  'baseline req/s',
  'target (issue 12)',
  'server µs/req',
  'RSS MiB',
  'CPU client',
  'CPU server',
  'CPU other',
  'writes per request',
];
const cells = (r: Row) => [
  r.scenario + (r.profiled ? ' (profiled)' : ''),
  r.engine,
  f0(r.okPerSecond),
  f2(r.p50),
  f2(r.p99),
  String(r.non2xx + r.errors + r.timeouts),
  f2(r.ratio),
  r.baselinePerSecond === undefined ? '–' : f0(r.baselinePerSecond),
  targetCell(r),
  f0(r.serverMicrosPerRequest),
  r.rss === undefined ? '–' : r.rss.warmed === undefined ? f0(r.rss.peak) : `${f0(r.rss.warmed)} → ${f0(r.rss.end)}`,
  f1(r.cpu.client),
  f1(r.engine === 'postgres' ? r.cpu.server + r.cpu.postgres : r.cpu.server),
  f1(r.engine === 'postgres' ? r.cpu.other : r.cpu.other + r.cpu.postgres),
  writesCell(r.writes),
];

export function textTable(rows: Row[]): string {
  const body = rows.map(cells);
  const widths = HEAD.map((h, i) => Math.max(h.length, ...body.map((b) => b[i]!.length)));
  const line = (c: string[]) => c.map((v, i) => (i < 2 ? v.padEnd(widths[i]!) : v.padStart(widths[i]!))).join('  ');
  return [line(HEAD), widths.map((w) => '-'.repeat(w)).join('  '), ...body.map(line)].join('\n');
}

export function markdownTable(rows: Row[]): string {
  const align = HEAD.map((_, i) => (i < 2 ? ':--' : '--:'));
  return [`| ${HEAD.join(' | ')} |`, `| ${align.join(' | ')} |`, ...rows.map((r) => `| ${cells(r).join(' | ')} |`)].join('\n');
}

const INSTALL_HEAD = [
  'scenario',
  'engine',
  'conn',
  'uploads',
  '2xx/s',
  'MB/s',
  'p50 ms',
  'p99 ms',
  'max ms',
  'failed',
  'ratio',
  'server ms/upload',
  'CPU client',
  'CPU server',
  'CPU other',
];
const installCells = (r: InstallRow) => [
  r.scenario,
  r.engine,
  String(r.connections),
  String(r.uploads),
  f1(r.okPerSecond),
  f1(r.megabytesPerSecond),
  f1(r.p50),
  f1(r.p99),
  f1(r.max),
  String(r.failed),
  f2(r.ratio),
  f1(r.serverMsPerUpload),
  f1(r.cpu.client),
  f1(r.engine === 'postgres' ? r.cpu.server + r.cpu.postgres : r.cpu.server),
  f1(r.engine === 'postgres' ? r.cpu.other : r.cpu.other + r.cpu.postgres),
];

const FANOUT_HEAD = [
  'scenario',
  'engine',
  'subs',
  'entries/s',
  'emitted',
  'delivered',
  'lines/s',
  'per sub/s',
  'p50 ms',
  'p99 ms',
  'max ms',
  'dropped',
  'missing',
  'server µs/line',
  'CPU client',
  'CPU server',
  'CPU other',
];
const fanoutCells = (r: FanoutRow) => [
  r.scenario,
  r.engine,
  String(r.subscribers),
  f0(r.rate),
  f0(r.emitted),
  f0(r.delivered),
  f0(r.deliveredPerSecond),
  f0(r.perSubscriberPerSecond),
  f2(r.p50),
  f2(r.p99),
  f2(r.max),
  `${f0(r.dropped)}${r.droppedNotices ? ` (${r.droppedNotices} notices)` : ''}`,
  f0(r.missing),
  f1(r.serverMicrosPerLine),
  f1(r.cpu.client),
  f1(r.engine === 'postgres' ? r.cpu.server + r.cpu.postgres : r.cpu.server),
  f1(r.engine === 'postgres' ? r.cpu.other : r.cpu.other + r.cpu.postgres),
];

const WORST_HEAD = ['engine', 'term', 'why', 'matches', 'options', 'requests', 'p50 ms', 'p99 ms', 'max ms'];
const worstCells = (r: WorstRow) => [
  r.engine,
  JSON.stringify(r.term),
  r.why,
  f0(r.matches),
  String(r.options),
  String(r.requests),
  f2(r.p50),
  f2(r.p99),
  f2(r.max),
];
export const worstTextTable = (rows: WorstRow[]) => table(WORST_HEAD, rows, worstCells, 3);

const COMMIT_HEAD = [
  'variant',
  'engine',
  'commits/s',
  'ratio',
  'p50 ms',
  'p99 ms',
  'non-2xx',
  'events',
  'drain s',
  'events/s',
  'handler p50 ms',
  'handler p99 ms',
  'one at a time p50/p99 ms',
  'writes/batch (set aside)',
  'server µs/commit',
  'CPU client',
  'CPU server',
  'CPU runner',
  'CPU other',
];
const commitCells = (r: PluginCommitRow) => [
  r.variant + (r.profiled ? ' (profiled)' : ''),
  r.engine,
  f0(r.okPerSecond),
  f2(r.ratio) + (r.roundRatios === undefined ? '' : ` (${r.roundRatios.map(f2).join(', ')})`),
  f2(r.p50),
  f2(r.p99),
  String(r.non2xx + r.errors + r.timeouts),
  r.events > 0 ? f0(r.events) : '–',
  r.events > 0 ? f1(r.drainSeconds) : '–',
  r.events > 0 ? f0(r.eventsPerSecond) : '–',
  r.effects > 0 ? f1(r.handlerP50) : '–',
  r.effects > 0 ? f1(r.handlerP99) : '–',
  r.unloadedEffects > 0 ? `${f1(r.unloadedP50)} / ${f1(r.unloadedP99)}` : '–',
  r.writesPerBatch === null ? '–' : `${f1(r.writesPerBatch)} (${r.parked})`,
  f0(r.serverMicrosPerRequest),
  f1(r.cpu.client),
  f1(r.engine === 'postgres' ? r.cpu.server + r.cpu.postgres : r.cpu.server),
  f1(r.runnerCores),
  f1(r.engine === 'postgres' ? r.cpu.other : r.cpu.other + r.cpu.postgres),
];
export const commitTextTable = (rows: PluginCommitRow[]) => table(COMMIT_HEAD, rows, commitCells, 2);

const READS_HEAD = ['engine', 'commits timed', 'handler p50 ms', 'handler p90 ms', 'HTTP p50 ms', 'HTTP p90 ms', 'ratio (≤ 1.5)'];
const readsCells = (r: ReadTiming) => [r.engine, String(r.probes), f2(r.handlerP50), f2(r.handlerP90), f2(r.httpP50), f2(r.httpP90), f2(r.ratio)];
export const readsTextTable = (rows: ReadTiming[]) => table(READS_HEAD, rows, readsCells, 2);

const ROUTES_HEAD = ['variant', 'engine', 'req/s', 'ratio', 'p50 ms', 'p99 ms', 'non-2xx', 'server µs/req', 'CPU server'];
const routesCells = (r: RouteRow) => [
  r.variant,
  r.engine,
  f0(r.okPerSecond),
  Number.isFinite(r.ratio) ? f2(r.ratio) : '–',
  f2(r.p50),
  f2(r.p99),
  String(r.non2xx + r.errors + r.timeouts),
  f0(r.serverMicrosPerRequest),
  f1(r.engine === 'postgres' ? r.cpu.server + r.cpu.postgres : r.cpu.server),
];
export const routesTextTable = (rows: RouteRow[]) => table(ROUTES_HEAD, rows, routesCells, 2);

export const installTextTable = (rows: InstallRow[]) => table(INSTALL_HEAD, rows, installCells, 2);
export const fanoutTextTable = (rows: FanoutRow[]) => table(FANOUT_HEAD, rows, fanoutCells, 2);

const ISO_MEMORY_HEAD = [
  'engine',
  'plugins',
  'isolates',
  'runner RSS MiB',
  'QuickJS MiB',
  'RSS ÷ plugins MiB',
  'per plugin over 1 MiB',
  'installs',
  'install → running p50 / max ms',
];
const isoMemoryCells = (r: IsolationMemoryRow) => [
  r.engine,
  r.plugins === 0 ? '0 (all deleted)' : String(r.plugins),
  String(r.isolates),
  f1(r.runnerRssMiB),
  f1(r.quickjsMiB),
  Number.isFinite(r.rssPerPluginMiB) ? f2(r.rssPerPluginMiB) : '–',
  Number.isFinite(r.perPluginMiB) ? f2(r.perPluginMiB) : '–',
  String(r.installs),
  r.installs > 0 ? `${f0(r.installToRunningP50)} / ${f0(r.installToRunningMax)}` : '–',
];
const pm = (l: Latency) => `${f1(l.p50)} / ${f1(l.max)}`;
const ISO_FIRST_HEAD = ['engine', 'enables', 'PATCH answered ms', 'running ms', 'first line seen ms', 'first call ms', 'second call ms'];
const isoFirstCells = (r: IsolationFirstCallRow) => [r.engine, String(r.samples), pm(r.patch), pm(r.running), pm(r.firstLine), pm(r.firstCall), pm(r.warmCall)];
const ISO_NOISY_HEAD = [
  'window',
  'engine',
  'plain p50 ms',
  'plain p99 ms',
  'plain max ms',
  'plain ratio p50 / p99',
  'plain ok / sent',
  'victim p50 ms',
  'victim p99 ms',
  'victim max ms',
  'victim ratio p50 / p99',
  'victim lines',
  'attacks',
  'attack commit p50 ms',
  'isolates ended',
  'runner restarted',
  'CPU server',
  'CPU runner',
  'CPU other',
];
const isoNoisyCells = (r: IsolationNoisyRow) => [
  r.window,
  r.engine,
  f1(r.plain.p50),
  f1(r.plain.p99),
  f1(r.plain.max),
  `${f2(r.plainP50Ratio)} / ${f2(r.plainP99Ratio)}`,
  `${r.plain.count} / ${r.plain.sent}`,
  f1(r.victim.p50),
  f1(r.victim.p99),
  f1(r.victim.max),
  `${f2(r.victimP50Ratio)} / ${f2(r.victimP99Ratio)}`,
  `${r.victim.count}${r.victim.missing ? ` (${r.victim.missing} missing)` : ''}`,
  r.attacker === 'none' ? '–' : `${r.attacks.count}${r.attacks.failures ? ` (${r.attacks.failures} failed)` : ''}`,
  r.attacker === 'none' ? '–' : f0(r.attacks.p50),
  r.attacker === 'none' ? '–' : `${r.isolatesEnded}${r.otherFaults ? ` (+${r.otherFaults} other faults)` : ''}`,
  r.runnerRestarted ? 'yes' : 'no',
  f1(r.engine === 'postgres' ? r.cpu.server + r.cpu.postgres : r.cpu.server),
  f1(r.runnerCores),
  f1(r.engine === 'postgres' ? r.cpu.other : r.cpu.other + r.cpu.postgres),
];
export const isolationTextTables = (x: IsolationResult) =>
  [
    table(ISO_MEMORY_HEAD, x.memory, isoMemoryCells, 1),
    table(ISO_FIRST_HEAD, x.firstCall, isoFirstCells, 1),
    table(ISO_NOISY_HEAD, x.noisy, isoNoisyCells, 2),
  ].join('\n\n');

function pluginMarkdown(report: Report): string[] {
  const p = report.plugins;
  if (
    p === undefined ||
    (p.installs.length === 0 && p.fanout.length === 0 && (p.commits ?? []).length === 0 && (p.routes ?? []).length === 0 && p.isolation === undefined)
  )
    return [];
  const out: string[] = ['## Plugin platform', ''];
  if (p.installs.length > 0) {
    const pkg = p.package;
    out.push(
      '### plugin-install',
      '',
      `\`POST /core/api/v1/plugins/\` (multipart: \`is_enabled\`=True, file \`package\`), authenticated by the raw API key, until the 201; a distinct plugin name for every upload.` +
        (pkg
          ? ` Each package: a .tar.gz of ${pkg.archiveBytes.toLocaleString('en-US')} bytes inflating to ${pkg.inflatedBytes.toLocaleString('en-US')} (${pkg.files.map((f) => `${f.path} ${f.bytes.toLocaleString('en-US')} B`).join(', ')}); ${pkg.built} built in ${pkg.seconds.toFixed(1)} s before measuring.`
          : ''),
      "*upload-baseline* sends the same uploads to a bare Fastify route that reads the multipart body whole with the server's @fastify/multipart and answers 201; ratio = installs/s ÷ its uploads/s at the same concurrency. 2xx/s and latencies count 201s only; server ms/upload is server CPU (and PostgreSQL's) per answered upload.",
      '',
      mdTable(INSTALL_HEAD, p.installs, installCells, 2),
      '',
    );
    const failures = p.installs
      .filter((r) => r.failed > 0)
      .map((r) => `- ${r.scenario} on ${r.engine} (${r.connections} conn): status codes ${JSON.stringify(r.statusCodes)}`);
    if (failures.length > 0) out.push(...failures, '');
  }
  if (p.fanout.length > 0) {
    out.push(
      '### log-fanout',
      '',
      `${p.fanout[0]!.subscribers} WebSocket subscribers on \`/core/api/v1/logging/\` (API key in Authorization), entries emitted on the server's own log bus inside the server process at a steady rate for ${report.settings.duration} s. Latency: from the emit (a high-resolution stamp in the entry's text) to its receipt by each subscriber in the bench process, clocks aligned over the IPC channel, over every delivered line. lines/s: lines delivered over all subscribers ÷ (first emit → last receipt). dropped: lines the server reported dropped in "N log lines dropped (slow consumer)" notices; missing: neither delivered nor reported when the bench stopped waiting.`,
      '*ws-baseline* is the same fan-out from a bare `ws` server (one JSON line of the same shape serialised once and sent to every client; no bus, queues or authentication).',
      '',
      mdTable(FANOUT_HEAD, p.fanout, fanoutCells, 2),
      '',
    );
  }
  if (p.commits !== undefined && p.commits.length > 0) {
    out.push(
      '### plugin-commit',
      '',
      `\`POST /core/api/v1/commands/{uuid}/commit/\` over ${report.settings.connections} connections, a different staged plan each time, on each engine with no plugin and then with one enabled plugin at a time (built by the CLI's packaging, installed through the plugin API, deleted after its variant). ratio = commits/s ÷ the mean of the no-plugin variants' (*none* before the plugins, *none-again* after them) on that engine. ` +
        'POST events are delivered after the commit: after each measurement the bench waits for the outbox (plugin_events) to empty; *events* were delivered from the start of the measurement to then, *drain s* is the wait, and events/s = events ÷ (measurement + drain). ' +
        `*handler p50/p99* (post-instruct only): from the plan's commit (its updated_at) to the created_at of the instruct the handler originated, over the plans committed during the measurement (so it includes the outbox's backlog under load); *one at a time*: the same over ${report.settings.pluginLatencyProbes ?? 0} commits made one by one after the load, each once the outbox was empty again. ` +
        'server µs/commit is the CPU of the server process, its plugin runner child (*CPU runner*) and, on PostgreSQL, PostgreSQL, per 2xx commit.',
      '',
      ...[...new Map(p.commits.map((r) => [r.variant, r.description])).entries()].map(([v, d]) => `- **${v}**: ${d}`),
      '',
      mdTable(COMMIT_HEAD, p.commits, commitCells, 2),
      '',
    );
  }
  if (p.routes !== undefined && p.routes.length > 0) {
    out.push(
      '### plugin-route',
      '',
      `A plugin's routes against the Commands path each stands beside, over ${report.settings.connections} connections: *route-empty* (a public route whose handler answers {} without reading anything) ÷ *get-command* (GET a command with a bearer token; the issue's aim: at least 0.3), and *route-webhook* (a public route whose handler originates an instruct in the note the body names, applied before the answer) ÷ *create-command* (POST the same instruct). server µs/req: the CPU of the server process and its runner child (and PostgreSQL) per 2xx answer.`,
      '',
      mdTable(ROUTES_HEAD, p.routes, routesCells, 2),
      '',
    );
  }
  if (p.reads !== undefined && p.reads.length > 0) {
    out.push(
      '### plugin-commit: reads in a handler against HTTP',
      '',
      `Plans committed one at a time with a POST_COMMIT handler that reads, ${p.reads[0]!.rounds} times, the patient's chart (\`this.data.chart.get\`) and a page of 20 of its commands (\`this.data.commands.list\`), timed inside the sandbox with Date.now() (whole ms over all rounds); after each, the bench reads the same over HTTP for the same patient (the chart's four GETs side by side, then \`GET /core/api/v1/commands/?patient_key=…&limit=20\`). Figures per round, ms; ratio = handler p50 ÷ HTTP p50 (aim ≤ 1.5).`,
      '',
      mdTable(READS_HEAD, p.reads, readsCells, 2),
      '',
    );
  }
  if (p.isolation !== undefined) {
    const x = p.isolation;
    const iso = report.settings.isolation;
    out.push(
      '### plugin-isolation',
      '',
      'Each enabled plugin has an isolate of its own, a worker thread of the runner child process (docs/plugins.md, "The runner process"). Real plugins built by the CLI\'s packaging, installed through the plugin API.',
      '',
      `**Runner memory**: no-op plugins (a PLAN_COMMAND__PRE_COMMIT handler returning []) installed and enabled one after another; at each count a plan commit gives every one an event, then the runner's own stats are read: its resident memory and its plugins' QuickJS WebAssembly memories. *per plugin over 1*: (RSS − RSS with 1 plugin) ÷ (plugins − 1). *install → running*: from the install's POST until GET shows the plugin's runtime \`running\`, over the plugins installed since the row before. The last row: after every plugin was deleted.`,
      '',
      mdTable(ISO_MEMORY_HEAD, x.memory, isoMemoryCells, 1),
      '',
      `**First call after enabling** (p50 / max over ${iso?.samples ?? '?'} enables, each from disabled): a plugin whose PLAN_COMMAND__POST_COMMIT handler logs the plan's uuid. From the PATCH is_enabled=True: its answer, the runtime \`running\` (GET polled every 5 ms), and the handler's line seen by the bench for a plan committed at once; *first call* / *second call*: the plan's commit (updated_at) → the handler's line on the server's log bus, for that plan and the next.`,
      '',
      mdTable(ISO_FIRST_HEAD, x.firstCall, isoFirstCells, 1),
      '',
      `**Noisy neighbour**: that plugin enabled (the victim) while plain plans are committed at a steady ${iso?.rate ?? '?'}/s (each sent when due, whatever the others wait for) for ${report.settings.warmup} s of warm-up and ${report.settings.duration} s measured. In each attack window an attacker plugin, whose HPI PRE_COMMIT (*pre*) or POST_COMMIT (*post*) handler runs the built-in its HPI's narrative names, is set off by an HPI created and committed every 1.5 s (back to back when the commit itself takes longer); a POST event given again is not attacked again. *plain*: the plan commits' latency; *victim*: its handler's, the plan's commit → its line; ratios to the mean of the *none* and *none-again* windows; *attacks*: the HPI commits of the window, warm-up included, with their latency; *isolates ended*: the attacker's fault lines saying so; *runner restarted*: the runner child's pid changed during the window.`,
      '',
      mdTable(ISO_NOISY_HEAD, x.noisy, isoNoisyCells, 2),
      '',
      ...x.noisy.flatMap((r) => r.remarks.map((n) => `- ${r.window} on ${r.engine}: ${n}`)),
      ...(x.noisy.some((r) => r.remarks.length > 0) ? [''] : []),
      ...(iso?.attacks ?? Object.keys(ATTACK_CODE)).map((name) => `- **${name}**: \`${ATTACK_CODE[name]}\``),
      '',
    );
  }
  return out;
}

const WORKERS_HEAD = [
  'path',
  'engine',
  'set-up',
  'req/s',
  'p50 ms',
  'p99 ms',
  'non-2xx',
  '÷ the first set-up',
  'server µs/req',
  'CPU client',
  'CPU server',
  'CPU other',
];
const workersCells = (r: WorkersRow) => [
  r.path,
  r.engine,
  r.setup ?? `--workers ${r.workers}`,
  f0(r.okPerSecond),
  f2(r.p50),
  f2(r.p99),
  String(r.non2xx + r.errors + r.timeouts),
  f2(r.scaling) + (r.roundScalings ? ` (${r.roundScalings.map(f2).join(', ')})` : ''),
  f0(r.serverMicrosPerRequest),
  f1(r.cpu.client),
  f1(r.engine === 'postgres' ? r.cpu.server + r.cpu.postgres : r.cpu.server),
  f1(r.engine === 'postgres' ? r.cpu.other : r.cpu.other + r.cpu.postgres),
];

export function workersTextTable(rows: WorkersRow[]): string {
  const body = rows.map(workersCells);
  const widths = WORKERS_HEAD.map((h, i) => Math.max(h.length, ...body.map((b) => b[i]!.length)));
  const line = (c: string[]) => c.map((v, i) => (i < 3 ? v.padEnd(widths[i]!) : v.padStart(widths[i]!))).join('  ');
  return [line(WORKERS_HEAD), widths.map((w) => '-'.repeat(w)).join('  '), ...body.map(line)].join('\n');
}

function workersMarkdown(report: Report): string[] {
  const rows = report.workers ?? [];
  const threads = report.readThreads ?? [];
  const setting = `each path at ${report.settings.connections} connections for ${report.settings.duration} s after ${report.settings.warmup} s of warm-up`;
  return [
    ...(rows.length === 0
      ? []
      : [
          '## Multi-process serving',
          '',
          `\`charta-server start --workers N\` as a real process on the seeded database (N = 1 is one process, no fork); ${setting}. ` +
            '÷ the first set-up: req/s ÷ that of the same path with 1 worker. CPU server: the primary and its workers, with PostgreSQL. Only rows with a low CPU other say anything.',
          '',
          mdTable(WORKERS_HEAD, rows, workersCells, 3),
          '',
        ]),
    ...(threads.length === 0
      ? []
      : [
          '## Reads in threads',
          '',
          `\`charta-server start\` on the seeded SQLite database with \`CHARTA_SQLITE_READ_THREADS\` 0 (every read on the event loop), 1 and 2; ${setting}. ` +
            '÷ the first set-up: req/s ÷ that of the same path with 0 threads, the median of the rounds (each round in brackets). CPU server: the process, its threads included.',
          '',
          mdTable(WORKERS_HEAD, threads, workersCells, 3),
          '',
        ]),
  ];
}

const METRICS_HEAD = [
  'engine',
  'metrics',
  'round',
  'req/s',
  'p50 ms',
  'p99 ms',
  'non-2xx',
  'server µs/req',
  'scrapes',
  'scrape p50 ms',
  'CPU client',
  'CPU server',
  'CPU other',
];
const metricsCells = (r: MetricsRow) => [
  r.engine,
  r.variant,
  String(r.round),
  f0(r.okPerSecond),
  f2(r.p50),
  f2(r.p99),
  String(r.non2xx + r.errors + r.timeouts),
  f0(r.serverMicrosPerRequest),
  r.variant === 'on' ? `${r.scrapes}${r.scrapeFailures > 0 ? ` (${r.scrapeFailures} failed)` : ''}` : '–',
  r.variant === 'on' ? f1(r.scrapeP50Ms) : '–',
  f1(r.cpu.client),
  f1(r.engine === 'postgres' ? r.cpu.server + r.cpu.postgres : r.cpu.server),
  f1(r.engine === 'postgres' ? r.cpu.other : r.cpu.other + r.cpu.postgres),
];
const METRICS_SUMMARY_HEAD = ['engine', 'rounds', 'req/s on ÷ off', 'p99 on ÷ off', 'server µs/req on ÷ off'];
const metricsSummaryCells = (s: ReturnType<typeof metricsSummary>[number]) => [s.engine, String(s.rounds), f2(s.rateRatio), f2(s.p99Ratio), f2(s.cpuRatio)];

export function metricsTextTable(rows: MetricsRow[]): string {
  return table(METRICS_HEAD, rows, metricsCells, 2) + '\n\n' + table(METRICS_SUMMARY_HEAD, metricsSummary(rows), metricsSummaryCells, 1);
}

function metricsMarkdown(report: Report): string[] {
  const rows = report.metrics ?? [];
  if (rows.length === 0) return [];
  const scraped = rows.find((r) => r.variant === 'on');
  return [
    '## Metrics cost',
    '',
    `GET a command (\`${rows[0]!.request.split(',')[0]}\`) against two \`charta-server start\` processes on the seeded database, one with \`CHARTA_METRICS=off\`, one with metrics on and GET /metrics scraped every second; ` +
      `both loaded at once, ${report.settings.connections} connections each, for ${report.settings.duration} s after ${report.settings.warmup} s of warm-up, ${report.settings.metricsRounds ?? '?'} rounds. ` +
      `On ÷ off: the median over the rounds of each round's ratio. server µs/req: the server process's own CPU (PostgreSQL serves both at once); CPU other includes the other server. ${scraped ? `One scrape's answer: ${(scraped.scrapeBytes / 1024).toFixed(0)} KiB.` : ''}`,
    '',
    mdTable(METRICS_SUMMARY_HEAD, metricsSummary(rows), metricsSummaryCells, 1),
    '',
    ...(report.metricsHook
      ? [
          `Alone in a loop (no server; the median of five runs of 1M calls): a request's counter and histogram ${report.metricsHook.requestMicros.toFixed(2)} µs, ` +
            `a pool wait's histogram ${report.metricsHook.connectionWaitMicros.toFixed(2)} µs; prom-client's part of a scrape ${report.metricsHook.scrapeMs.toFixed(1)} ms.`,
          '',
        ]
      : []),
    mdTable(METRICS_HEAD, rows, metricsCells, 2),
    '',
  ];
}

const mib = (bytes: number) => `${Math.round(bytes / 2 ** 20).toLocaleString('en-US')}`;
const SCALE_HEAD = ['request', 'engine', 'commands', ...GROWTH_HEAD, 'CPU server', 'CPU other'];
const scaleCells = (r: ScaleRow) => {
  const largest = r.commands >= 10_000_000 && r.baseCommands <= 100_000;
  return [
    r.scenario + (r.profiled ? ' (profiled)' : ''),
    r.engine,
    r.commands.toLocaleString('en-US'),
    f0(r.okPerSecond),
    f2(r.p50),
    f2(r.p99),
    String(r.non2xx + r.errors + r.timeouts),
    f0(r.serverMicrosPerRequest),
    r.commands === r.baseCommands ? '1' : f2(r.growth),
    r.commands === r.baseCommands ? '–' : r.growths.map(f2).join(' '),
    largest ? (r.growth <= SCALE_TARGET ? 'met' : 'not met') : '–',
    f1(r.engine === 'postgres' ? r.cpu.server + r.cpu.postgres : r.cpu.server),
    f1(r.engine === 'postgres' ? r.cpu.other : r.cpu.other + r.cpu.postgres),
  ];
};
export const scaleTextTable = (rows: ScaleRow[]) => table(SCALE_HEAD, rows, scaleCells, 2);

const SEED_HEAD = ['engine', 'commands', 'patients', 'notes', 'rows s', 'indexes s', 'analyze s', 'ready s', 'database MiB'];
const seedCells = (s: ScaleSeed) => [
  s.engine,
  s.commands.toLocaleString('en-US'),
  s.patients.toLocaleString('en-US'),
  s.notes.toLocaleString('en-US'),
  f1(s.seconds.base + s.seconds.fixtures),
  f1(s.seconds.indexes),
  f1(s.seconds.analyze),
  f1(s.seconds.ready),
  mib(s.bytes),
];
export const scaleSeedTextTable = (seeds: ScaleSeed[]) => table(SEED_HEAD, seeds, seedCells, 1);

function scaleMarkdown(report: Report): string[] {
  const x = report.scale;
  if (x === undefined || x.rows.length === 0) return [];
  const requests = [...new Map(x.rows.map((r) => [r.scenario, r.request])).entries()];
  return [
    '## Scale',
    '',
    `Each size a fresh database, bulk-seeded (bench/lib/seed.ts), its server up; then each request for ${report.settings.duration} s at ${report.settings.connections} connections at every size in turn, ${report.settings.scaleRounds ?? 1} rounds. ` +
      `Figures are medians over the rounds; *growth*: server µs per request ÷ the same request's at the smallest size on that engine in the same round (median; each round's beside it); issue 12's target is ≤ ${SCALE_TARGET} at 10M against 100k. ` +
      "Server µs/req counts the server process and, on PostgreSQL, the backends of that size's database (other work on the cluster goes to CPU other).",
    '',
    mdTable(SEED_HEAD, x.seeds, seedCells, 1),
    '',
    mdTable(SCALE_HEAD, x.rows, scaleCells, 2),
    '',
    ...requests.map(([name, request]) => `- **${name}**: \`${request}\``),
    '',
  ];
}

function autocompleteMarkdown(report: Report): string[] {
  const a = report.autocomplete;
  if (a === undefined) return [];
  const out: string[] = ['## Autocomplete', ''];
  out.push(
    `A generated ICD-10-like terminology of ${a.concepts.toLocaleString('en-US')} concepts (bench/lib/terminology.ts) stored with \`storeConcepts\` on each engine; the autocomplete rows are in the table above, next to that engine's baseline.`,
    '',
    ...Object.entries(a.loads).map(
      ([engine, l]) =>
        `- ${engine}: ${l.stored.toLocaleString('en-US')} concepts stored in ${l.seconds.store.toFixed(1)} s (${Math.round(l.stored / l.seconds.store).toLocaleString('en-US')}/s), then ${engine === 'postgres' ? 'VACUUM ANALYZE concepts' : 'PRAGMA optimize'} in ${l.seconds.analyze.toFixed(1)} s; ${(l.bytes / 2 ** 20).toFixed(0)} MiB (${engine === 'postgres' ? 'the concepts table with its indexes' : 'the database file and its WAL'})`,
    ),
    '',
    '### Answers checked',
    '',
    ...a.checks.map((c) => {
      const m = c.matches;
      return `- ${c.scenario} on ${c.engine}: ${c.checked - c.failures.length} of ${c.checked} correct${m ? `; its ${m.terms} terms match p50 ${m.p50.toLocaleString('en-US')}, p90 ${m.p90.toLocaleString('en-US')}, max ${m.max.toLocaleString('en-US')} concepts (${m.none} nothing, ${m.fullPage} a full page)` : ''}${c.failures.length ? `: ${c.failures.slice(0, 3).join('; ')}` : ''}`;
    }),
    '',
  );
  if (a.ranking !== undefined && a.ranking.length > 0) {
    const share = (f: { searches: number; top1: number; top3: number }) =>
      `${f.top3} of ${f.searches} in the top 3 (${((100 * f.top3) / f.searches).toFixed(0)} %), ${f.top1} first (${((100 * f.top1) / f.searches).toFixed(0)} %)`;
    out.push(
      '### Ranking',
      '',
      `The common clinical searches of packages/server/test/fixtures/ranking-searches.json through each field's autocomplete endpoint (limit 20), the starter set's ICD-10-CM concepts stored among the generated ones; the other systems hold only the starter set.`,
      '',
      ...a.ranking.flatMap((r) => [
        `- ${r.engine}: ${share(r)}; the ICD-10-CM searches: ${share(r.icd10)}`,
        ...r.misses.map(
          (m) => `  - \`${m.term}\` (${m.field}) ${m.code}: ${m.rank === null ? 'not in the page' : `number ${m.rank}`}; top 3: ${m.top.join(' | ')}`,
        ),
      ]),
      '',
    );
  }
  if (a.worst.length > 0) {
    out.push(
      '### Worst terms',
      '',
      `Each term ${a.worst[0]!.requests} times, one request at a time after 5 unrecorded, on the otherwise idle server; *matches* is the brute-force count of concepts containing every word.`,
      '',
      mdTable(WORST_HEAD, a.worst, worstCells, 3),
      '',
    );
  }
  return out;
}

const kib = (bytes: number) => (bytes / 1024).toFixed(1);
const CONSOLE_HEAD = ['figure', 'measured', 'target'];
/** The console scenario as rows of one figure each. */
function consoleFigures(r: ConsoleRow): string[][] {
  const met = (ok: boolean) => (ok ? 'met' : 'not met');
  return [
    ['JavaScript (compressed) KiB', kib(r.jsBytes), `< ${CONSOLE_TARGETS.jsKiB}: ${met(r.jsBytes / 1024 < CONSOLE_TARGETS.jsKiB)}`],
    ['CSS (compressed) KiB', kib(r.cssBytes), '–'],
    [`transferred KiB (${r.requests} requests, with headers)`, kib(r.transferBytes), '–'],
    [`sign-in form ready ms (median of ${r.loads})`, f0(r.formMs), '–'],
    [`plugins list rendered ms (median of ${r.loads})`, f0(r.listMs), '–'],
    ['plugins list rendered ms (slowest)', f0(r.listMaxMs), '–'],
    [`live logs fps at ${f0(r.rate)} lines/s`, f1(r.fps), '–'],
    ['dropped frames (> 20 ms)', String(r.droppedFrames), `${CONSOLE_TARGETS.droppedFrames}: ${met(r.droppedFrames <= CONSOLE_TARGETS.droppedFrames)}`],
    ['longest frame ms', f1(r.longestFrameMs), '–'],
    ['long tasks (> 50 ms)', String(r.longTasks), '–'],
    ['main thread ms/s (script, style and layout)', `${f0(r.busy.task)} (${f0(r.busy.script)}, ${f0(r.busy.layout)})`, '–'],
    [`idle page, as long: fps, dropped frames, longest ms`, `${f1(r.idle.fps)}, ${r.idle.droppedFrames}, ${f1(r.idle.longestFrameMs)}`, '–'],
    ['idle page: main thread ms/s', f0(r.idle.busy.task), '–'],
    ['lines received / emitted', `${f0(r.received)} / ${f0(r.emitted)}`, '–'],
    ['lines dropped by the server', f0(r.serverDropped), '–'],
    ['rows in the DOM', String(r.domRows), '–'],
  ];
}
export const consoleTextTable = (r: ConsoleRow) => table(CONSOLE_HEAD, consoleFigures(r), (x) => x, 1);

function consoleMarkdown(report: Report): string[] {
  const r = report.console;
  if (r === undefined) return [];
  return [
    '## Console',
    '',
    `Headless Chromium against a fresh demo instance (${r.engine}); first loads each in a fresh browser context, times from the navigation's start, the API key typed in by script; ` +
      `then the live logs page at ${f0(r.rate)} lines/s for ${r.seconds.toFixed(1)} s, frames counted with requestAnimationFrame.`,
    '',
    mdTable(CONSOLE_HEAD, consoleFigures(r), (x) => x, 1),
    '',
  ];
}

export function markdown(report: Report): string {
  const m = report.machine;
  const s = report.settings;
  const seeding = Object.entries(report.seeding)
    .map(
      ([engine, x]) =>
        `- ${engine}: ${x.commands.toLocaleString('en-US')} commands in ${x.seconds.base.toFixed(1)} s, write fixtures in ${x.seconds.fixtures.toFixed(1)} s${x.seconds.indexes !== undefined ? `, indexes ${x.seconds.indexes.toFixed(1)} s` : ''}${x.seconds.analyze > 0.05 ? `, ${engine === 'postgres' ? 'VACUUM ANALYZE' : 'ANALYZE'} ${x.seconds.analyze.toFixed(1)} s` : ''} (${x.totalCommands.toLocaleString('en-US')} rows before measuring)`,
    )
    .join('\n');
  const failures = report.rows
    .filter((r) => r.non2xx + r.errors + r.timeouts > 0)
    .map((r) => `- ${r.scenario} on ${r.engine}: status codes ${JSON.stringify(r.statusCodes)}, ${r.errors} errors, ${r.timeouts} timeouts`)
    .join('\n');
  const commands =
    report.rows.length === 0
      ? []
      : [
          `${s.connections} connections, ${s.duration} s per scenario after ${s.warmup} s of warm-up; autocannon in the bench process, each server in its own process, over loopback.`,
          ...(s.sqliteAnalyze ? ['**BENCH_SQLITE_ANALYZE=1**: the SQLite database was ANALYZEd after seeding, which the server itself never does.'] : []),
          "req/s counts 2xx responses only; latencies are of 2xx responses; ratio = req/s ÷ the bare-Fastify baseline's req/s: for the Commands scenarios and the bare primary-key read, the baseline measured just before that scenario (*baseline req/s*; this machine's speed drifts by up to 2× within minutes), for the others the one measured before that engine's scenarios.",
          "server µs/req: CPU time the server (and PostgreSQL) spent per 2xx response. CPU columns: average cores used by the load generator, by the server (with PostgreSQL's processes on that engine) and by everything else on the machine during the measurement.",
          '',
          markdownTable(report.rows),
          '',
          '## Requests',
          '',
          ...report.rows.filter((r, i, all) => all.findIndex((o) => o.scenario === r.scenario) === i).map((r) => `- **${r.scenario}**: \`${r.request}\``),
          '',
          ...(failures ? ['## Non-2xx responses', '', failures, ''] : []),
        ];
  return [
    '# Benchmark results',
    '',
    `${report.date}${report.commit ? `, commit ${report.commit.slice(0, 12)}` : ''}. ${m.cpus} CPUs (${m.cpuModel}), ${m.memoryGb} GB, Node ${m.node}, ${m.platform}.`,
    ...(s.server === 'sources'
      ? ['The in-process server ran its TypeScript sources through tsx (BENCH_SERVER=sources), not the bundle `npm start` runs.']
      : []),
    ...(s.scenarios ? [`Only the scenarios ${s.scenarios.join(', ')} (BENCH_SCENARIOS).`] : []),
    ...(commands.length > 0 ? commands : ['']),
    ...pluginMarkdown(report),
    ...workersMarkdown(report),
    ...metricsMarkdown(report),
    ...autocompleteMarkdown(report),
    ...scaleMarkdown(report),
    ...consoleMarkdown(report),
    ...backupMarkdown(report.backup, report.settings),
    ...auditMarkdown(report.audit, report.settings),
    '## Seeding',
    '',
    seeding,
    '',
  ].join('\n');
}

export function write(dir: string, report: Report): void {
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'latest.json'), JSON.stringify(report, null, 2) + '\n');
  fs.writeFileSync(path.join(dir, 'latest.md'), markdown(report));
}
