// The plugin-commit scenario of `npm run bench` (issue 8, "Speed"): commit throughput on one
// engine with no plugin, then with one enabled plugin at a time, each variant committing its own
// staged plans (docs/plugins.md, "Events"):
//  * none and, last, none-again: no plugin installed (the reference: ratio = req/s ÷ the mean of
//    their req/s);
//  * post-noop: a PLAN_COMMAND__POST_COMMIT handler that returns [] (an outbox row per commit,
//    delivered after the commit by the runner child);
//  * pre-noop: a PLAN_COMMAND__PRE_COMMIT handler that returns [] (called inside the write
//    transaction, before it commits);
//  * post-instruct: a POST_COMMIT handler that originates an instruct in the note, whose
//    created_at minus the plan's commit time is the handler-call latency (event → effect applied);
//  * pre-read and post-read: a PRE_COMMIT / POST_COMMIT handler that reads the patient's chart and
//    a page of 20 of its commands through this.data (two reads, each audited) and returns []
//    (docs/plugins.md, "Reading the record");
//  * post-read-loop: a POST_COMMIT handler that reads a page of commands in a loop until its read
//    budget refuses it (a runaway plugin): what such a plugin costs everyone else's commits.
// After the variants, read timing: one commit at a time, a POST_COMMIT handler times (Date.now(),
// in the sandbox) READ_ROUNDS rounds of the two reads above and logs it; the bench then times the
// same reads over HTTP for the same patient (the chart's four GETs side by side, then the
// commands page), and reports the ratio of the medians.
// The plugins are real packages built by the CLI's packaging (what `charta plugin install`
// uploads) and installed through the plugin API; each is deleted before the next variant. POST
// delivery is asynchronous: after each measurement the bench waits for the outbox
// (plugin_events) to empty, and events/s counts that drain time too.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type autocannon from 'autocannon';
import { buildProject } from '../../packages/cli/src/packaging/index.ts';
import type { Child } from './child.ts';
import { cpuMeter, waitForIdle, waitForQuiet } from './cpu.ts';
import { measure } from './load.ts';
import type { BenchOptions } from './options.ts';
import { median, mergeRounds } from './format.ts';
import type { PluginCommitRow, ReadTiming } from './report.ts';

const PLUGINS = '/core/api/v1/plugins/';

/** SQLite's group commit counters (storage/group-commit.ts). */
interface GroupCommitStats {
  batches: number;
  writes: number;
  parked: number;
}
const API = '/core/api/v1/commands';

/** Commits per second the staged fixtures of one variant are sized for (several times what either engine reaches). */
export const COMMITS_PER_SECOND_BOUND = 7_000;

export interface Variant {
  name: 'none' | 'post-noop' | 'pre-noop' | 'post-instruct' | 'pre-read' | 'post-read' | 'post-read-loop' | 'none-again';
  /** The plugin's name (its slug), or undefined for no plugin. */
  plugin?: string;
  event?: 'PLAN_COMMAND__POST_COMMIT' | 'PLAN_COMMAND__PRE_COMMIT';
  /** The handler's compute() body, in TypeScript. */
  compute?: string;
  /** compute() is async (it awaits this.data). */
  async?: boolean;
  /** The manifest's `data` (what the handler reads). */
  data?: { read: string[] };
  /** What the handler does, for the docs. */
  description: string;
}

/** The body of the read variants' handlers: the patient's chart and 20 of its commands. */
const READ_CHART_AND_COMMANDS = `    const key = this.event.context.patient.key;
    await this.data.chart.get(key);
    await this.data.commands.list({ patient_key: key, limit: 20 });
    return [];`;

export const VARIANTS: Variant[] = [
  { name: 'none', description: 'no plugin installed' },
  {
    name: 'post-noop',
    plugin: 'bench-post-noop',
    event: 'PLAN_COMMAND__POST_COMMIT',
    compute: '    return [];',
    description: 'one enabled PLAN_COMMAND__POST_COMMIT handler returning []',
  },
  {
    name: 'pre-noop',
    plugin: 'bench-pre-noop',
    event: 'PLAN_COMMAND__PRE_COMMIT',
    compute: '    return [];',
    description: 'one enabled PLAN_COMMAND__PRE_COMMIT handler returning []',
  },
  {
    name: 'post-instruct',
    plugin: 'bench-post-instruct',
    event: 'PLAN_COMMAND__POST_COMMIT',
    compute: "    return [originateCommand('instruct', this.event.context.note.uuid, { comment: this.event.target.id })];",
    description: "one enabled PLAN_COMMAND__POST_COMMIT handler returning originateCommand('instruct', note.uuid, { comment: <the plan's uuid> })",
  },
  {
    name: 'pre-read',
    plugin: 'bench-pre-read',
    event: 'PLAN_COMMAND__PRE_COMMIT',
    compute: READ_CHART_AND_COMMANDS,
    async: true,
    data: { read: ['chart', 'commands'] },
    description: "one enabled PLAN_COMMAND__PRE_COMMIT handler reading the patient's chart and 20 of its commands through this.data, returning []",
  },
  {
    name: 'post-read',
    plugin: 'bench-post-read',
    event: 'PLAN_COMMAND__POST_COMMIT',
    compute: READ_CHART_AND_COMMANDS,
    async: true,
    data: { read: ['chart', 'commands'] },
    description: "one enabled PLAN_COMMAND__POST_COMMIT handler reading the patient's chart and 20 of its commands through this.data, returning []",
  },
  {
    name: 'post-read-loop',
    plugin: 'bench-post-read-loop',
    event: 'PLAN_COMMAND__POST_COMMIT',
    compute: `    const key = this.event.context.patient.key;
    for (;;) await this.data.commands.list({ patient_key: key, limit: 20 });`,
    async: true,
    data: { read: ['commands'] },
    description:
      "one enabled PLAN_COMMAND__POST_COMMIT handler reading pages of 20 of the patient's commands in a loop until its read budget (50 reads) ends the call as budget_exceeded (a dead letter per event)",
  },
  // The machine's speed drifts over the minute the variants take: the reference is the mean of
  // the no-plugin runs before and after them.
  { name: 'none-again', description: 'no plugin installed, after the plugin variants (every plugin deleted)' },
];

/** Staged plans one engine needs for this scenario: a slice per variant. */
export function commitFixturesNeeded(opts: BenchOptions): number {
  return opts.pluginCommitRounds * VARIANTS.length * perVariant(opts) + 2 * opts.pluginLatencyProbes;
}

/** Rounds of the read-timing handler: each reads the chart and a page of 20 commands (10 rounds: 20 reads, under the default budget of 50). */
export const READ_ROUNDS = 10;
const READ_TIMER = 'bench-read-timer';
const READ_TIMER_EVENT = 'PLAN_COMMAND__POST_COMMIT';
const READ_TIMER_COMPUTE = [
  '    const key = this.event.context.patient.key;',
  '    const started = Date.now();',
  `    for (let i = 0; i < ${READ_ROUNDS}; i++) {`,
  '      await this.data.chart.get(key);',
  '      await this.data.commands.list({ patient_key: key, limit: 20 });',
  '    }',
  "    this.log.info(this.event.target.id + ' ' + key + ' ' + (Date.now() - started));",
  '    return [];',
].join('\n');

const perVariant = (opts: BenchOptions) => Math.ceil(COMMITS_PER_SECOND_BOUND * (opts.duration + opts.warmup)) + 1;

/** A plugin project as `charta plugin init` lays one out: its handler classes in one entry module. */
export interface PluginProject {
  /** The plugin's name (its slug). */
  name: string;
  description: string;
  handlers: Array<{
    className: string;
    events: string[];
    /** The compute() body, in TypeScript. */
    compute: string;
    /** compute() is async. */
    async?: boolean;
    description: string;
  }>;
  /** The manifest's `limits` (docs/plugin-manifest.md, "Limits"). */
  limits?: { memory_mb?: number; timeout_ms?: number };
  /** The manifest's `data` (docs/plugin-manifest.md, "Data"). */
  data?: { read: string[] };
}

/** Writes the project under `parent` and builds it with the CLI's packaging: the package's bytes. */
export async function buildPluginProject(parent: string, p: PluginProject): Promise<Buffer> {
  const dir = path.join(parent, p.name);
  fs.mkdirSync(path.join(dir, 'src', 'plugin'), { recursive: true });
  const manifest = {
    sdk_version: '0.1.0',
    plugin_version: '1.0.0',
    name: p.name,
    description: `Benchmark plugin: ${p.description}`,
    ...(p.limits ? { limits: p.limits } : {}),
    ...(p.data ? { data: p.data } : {}),
    components: { handlers: p.handlers.map((h) => ({ entry: 'plugin/handlers.js', class: h.className, events: h.events, description: h.description })) },
  };
  fs.writeFileSync(path.join(dir, 'CHARTA_MANIFEST.json'), JSON.stringify(manifest, null, 2));
  const classes = p.handlers.map(
    (h) => `export class ${h.className} extends BaseHandler {
  static override readonly RESPONDS_TO: readonly EventName[] = ${JSON.stringify(h.events)};
  ${h.async === true ? 'async compute(): Promise<Effect[]>' : 'compute(): Effect[]'} {
${h.compute}
  }
}
`,
  );
  fs.writeFileSync(
    path.join(dir, 'src', 'plugin', 'handlers.ts'),
    `import { BaseHandler, originateCommand, type Effect, type EventName } from '@charta/plugin-sdk';
// eslint-disable-next-line @typescript-eslint/no-unused-vars
const keep = [originateCommand];
${classes.join('')}`,
  );
  const built = await buildProject(dir);
  return fs.readFileSync(built.file);
}

/** A variant's plugin: one handler. */
function buildPlugin(parent: string, v: Variant): Promise<Buffer> {
  return buildPluginProject(parent, {
    name: v.plugin!,
    description: v.description,
    handlers: [{ className: 'Bench', events: [v.event!], compute: v.compute!, async: v.async, description: v.description }],
    data: v.data,
  });
}

/** The packages of the plugin variants, built once for every engine. */
export async function buildCommitPlugins(): Promise<Map<string, Buffer>> {
  const parent = fs.mkdtempSync(path.join(os.tmpdir(), 'charta-bench-plugins-'));
  try {
    const out = new Map<string, Buffer>();
    for (const v of VARIANTS) if (v.plugin !== undefined) out.set(v.plugin, await buildPlugin(parent, v));
    const timer = `the read-timing handler: ${READ_ROUNDS} rounds of chart.get and commands.list (limit 20), timed and logged`;
    out.set(
      READ_TIMER,
      await buildPluginProject(parent, {
        name: READ_TIMER,
        description: timer,
        handlers: [{ className: 'Bench', events: [READ_TIMER_EVENT], compute: READ_TIMER_COMPUTE, async: true, description: timer }],
        data: { read: ['chart', 'commands'] },
      }),
    );
    return out;
  } finally {
    fs.rmSync(parent, { recursive: true, force: true });
  }
}

export interface CommitTarget {
  engine: string;
  child: Child;
  url: string;
  token: string;
  apiKey: string;
  /** Staged plans, commitFixturesNeeded() of them. */
  uuids: string[];
}

/** Installs the package through the plugin API (`POST /core/api/v1/plugins/`), enabled unless `enabled` is false. */
export async function installPlugin(t: { url: string; apiKey: string }, name: string, bytes: Buffer, enabled = true): Promise<void> {
  const form = new FormData();
  form.set('is_enabled', enabled ? 'true' : 'false');
  form.set('package', new Blob([new Uint8Array(bytes)], { type: 'application/gzip' }), `${name}-1.0.0.tar.gz`);
  const res = await fetch(t.url + PLUGINS, { method: 'POST', headers: { authorization: t.apiKey }, body: form });
  if (res.status !== 201) throw new Error(`installing ${name} answered ${res.status}: ${(await res.text()).slice(0, 500)}`);
}

/** Deletes the plugin, enabled or not (`?force=true`). */
export async function deletePlugin(t: { url: string; apiKey: string }, name: string): Promise<void> {
  const res = await fetch(`${t.url}${PLUGINS}${name}/?force=true`, { method: 'DELETE', headers: { authorization: t.apiKey } });
  if (res.status >= 300) throw new Error(`deleting ${name} answered ${res.status}: ${(await res.text()).slice(0, 500)}`);
}

/**
 * Deletes every plugin the scenarios before left (plugin-install leaves its 1 MiB packages
 * installed and enabled: a runner loading hundreds of them is not the one a scenario means to
 * measure) and ends the runner, so that a fresh one starts with the scenario's first plugin. Every
 * plugin scenario starts with it.
 */
export async function clearPlugins(t: { engine: string; child: Child; url: string; apiKey: string }, scenario: string): Promise<void> {
  const names: string[] = [];
  for (let offset = 0; ; offset += 100) {
    const res = await fetch(`${t.url}${PLUGINS}?limit=100&offset=${offset}`, { headers: { authorization: t.apiKey } });
    if (res.status !== 200) throw new Error(`listing the plugins answered ${res.status}: ${(await res.text()).slice(0, 300)}`);
    const page = (await res.json()) as { results: Array<{ name: string }> };
    names.push(...page.results.map((p) => p.name));
    if (page.results.length < 100) break;
  }
  for (const name of names) await deletePlugin(t, name);
  await until('the runner to hold no plugin', 120, async () => {
    const { stats } = await t.child.call<{ stats: { plugins: unknown[] } | null }>('runnerStats');
    return stats === null || stats.plugins.length === 0;
  });
  const ended = await t.child.call<boolean>('endRunner');
  if (names.length > 0 || ended) {
    console.log(
      `${t.engine.padEnd(8)}  ${scenario}: deleted the ${names.length} plugin(s) left by the scenarios before${ended ? ' and ended the runner process, so that a fresh one starts with the first plugin' : ''}`,
    );
  }
}

/** Polls until `test` holds, or fails after `seconds`. */
export async function until(what: string, seconds: number, test: () => Promise<boolean>, pollMs = 50): Promise<void> {
  const end = performance.now() + seconds * 1000;
  while (!(await test())) {
    if (performance.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, pollMs));
  }
}

/** Waits for the outbox to empty; the seconds it took. */
async function drainOutbox(child: Child): Promise<number> {
  const started = performance.now();
  await until('the outbox to empty', 600, async () => (await child.call<number>('outbox')) === 0);
  return (performance.now() - started) / 1000;
}

function commits(uuids: string[]): autocannon.Request[] {
  let next = 0;
  // One shared counter: each request commits the next staged plan; past the last it wraps round
  // and those commits answer 400 (non-2xx).
  const pathOf = () => `${API}/${uuids[next++ % uuids.length]}/commit/`;
  return [{ method: 'POST', path: pathOf(), setupRequest: (req: any) => ({ ...req, path: pathOf() }) }];
}

/** CPU ticks (user + system) of the server's child processes: the plugin runner (docs/plugins.md, "The runner process"). */
export function childTicks(parent: number | undefined): number {
  let ticks = 0;
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const text = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      const rest = text.slice(text.lastIndexOf(')') + 2).split(' ');
      if (Number(rest[1]) === parent) ticks += Number(rest[11]) + Number(rest[12]);
    } catch {
      // gone meanwhile
    }
  }
  return ticks;
}

export const quantile = (sorted: number[], q: number) => (sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!);

const line = (r: PluginCommitRow) =>
  `${Math.round(r.okPerSecond).toLocaleString('en-US').padStart(6)} commits/s  p50 ${r.p50.toFixed(2)} ms  p99 ${r.p99.toFixed(2)} ms` +
  (r.events > 0 ? `  events ${r.events} drained ${r.drainSeconds.toFixed(1)} s after → ${Math.round(r.eventsPerSecond)} events/s` : '') +
  (r.effects > 0
    ? `  handler latency p50 ${r.handlerP50.toFixed(1)} ms p99 ${r.handlerP99.toFixed(1)} ms max ${r.handlerMax.toFixed(1)} ms (${r.effects} effects)`
    : '') +
  (r.writesPerBatch === null ? '' : `  ${r.writesPerBatch.toFixed(1)} writes/batch, ${r.parked} set aside`) +
  `  cpu client ${r.cpu.client.toFixed(2)} server ${r.cpu.server.toFixed(2)} runner ${r.runnerCores.toFixed(2)} pg ${r.cpu.postgres.toFixed(2)} other ${r.cpu.other.toFixed(2)}` +
  (r.non2xx + r.errors + r.timeouts ? `  non-2xx ${r.non2xx} errors ${r.errors} timeouts ${r.timeouts} ${JSON.stringify(r.statusCodes)}` : '');

export async function pluginCommitScenario(
  opts: BenchOptions,
  t: CommitTarget,
  packages: Map<string, Buffer>,
): Promise<{ rows: PluginCommitRow[]; reads: ReadTiming | undefined }> {
  await clearPlugins(t, 'plugin-commit');
  const size = perVariant(opts);
  if (t.uuids.length < commitFixturesNeeded(opts)) throw new Error(`plugin-commit: ${t.uuids.length} staged plans, ${commitFixturesNeeded(opts)} needed`);
  const rounds = opts.pluginCommitRounds;
  const probesFrom = rounds * VARIANTS.length * size;
  // Each round measures every variant between its own two no-plugin runs, and each variant's ratio
  // is to that round's reference: the machine's drift between rounds falls out of the ratios.
  const perRound: PluginCommitRow[][] = [];
  for (let round = 0; round < rounds; round++) {
    const rows: PluginCommitRow[] = [];
    for (const [i, v] of VARIANTS.entries()) {
      const from = (round * VARIANTS.length + i) * size;
      // The handler latency one commit at a time: in the last round only.
      const probes = round === rounds - 1 ? t.uuids.slice(probesFrom, probesFrom + opts.pluginLatencyProbes) : [];
      rows.push(await measureVariant(opts, t, packages, v, t.uuids.slice(from, from + size), probes));
    }
    const none = rows.filter((r) => r.variant === 'none' || r.variant === 'none-again');
    const reference = none.reduce((sum, r) => sum + r.okPerSecond, 0) / none.length;
    for (const r of rows) r.ratio = r.okPerSecond / reference;
    console.log(
      `${t.engine.padEnd(8)}  plugin-commit ${rounds > 1 ? `round ${round + 1} ` : ''}ratios to ${Math.round(reference)} commits/s (mean of none and none-again): ${rows.map((r) => `${r.variant} ${r.ratio.toFixed(2)}`).join(', ')}`,
    );
    perRound.push(rows);
  }
  // Over rounds: each variant's figures are the rounds' medians (mergeRounds), its ratio the median of its rounds' ratios.
  const rows = VARIANTS.map((_, i) => {
    const all = perRound.map((rs) => rs[i]!);
    return rounds === 1 ? all[0]! : { ...mergeRounds(all), ratio: median(all.map((r) => r.ratio)), roundRatios: all.map((r) => r.ratio) };
  });
  if (rounds > 1)
    console.log(
      `${t.engine.padEnd(8)}  plugin-commit median ratios over ${rounds} rounds: ${rows.map((r) => `${r.variant} ${r.ratio.toFixed(2)}`).join(', ')}`,
    );
  const timed = t.uuids.slice(probesFrom + opts.pluginLatencyProbes, probesFrom + 2 * opts.pluginLatencyProbes);
  const reads = timed.length > 0 ? await readTiming(t, packages.get(READ_TIMER)!, timed) : undefined;
  return { rows, reads };
}

/** One variant measured on its own staged plans `uuids` (its plugin installed first, deleted after); `probes` for post-instruct's latency one commit at a time. */
async function measureVariant(
  opts: BenchOptions,
  t: CommitTarget,
  packages: Map<string, Buffer>,
  v: Variant,
  uuids: string[],
  probes: string[],
): Promise<PluginCommitRow> {
  const countPostgres = t.engine === 'postgres';
  if (v.plugin !== undefined) {
    await installPlugin(t, v.plugin, packages.get(v.plugin)!);
    await until(`${v.plugin} to run`, 30, async () => (await t.child.call<number>('handlers', { type: v.event })) === 1);
  }
  const spec = { url: t.url, connections: opts.connections, headers: { authorization: `Bearer ${t.token}` }, requests: commits(uuids) };
  if (opts.warmup > 0) {
    await measure({ ...spec, duration: opts.warmup });
    await drainOutbox(t.child);
    await waitForIdle(t.child.pid, 60);
  }
  if (opts.quietWait > 0) await waitForQuiet(t.child.pid, 0.25, opts.quietWait, true);
  const deliveredBefore = await t.child.call<number>('delivered');
  const measuredFrom = await t.child.call<number>('nowMicros');
  const profiled = opts.profile.includes('all') || opts.profile.includes('plugin-commit') || opts.profile.includes(`plugin-commit-${v.name}`);
  if (profiled) await t.child.call('profileStart');
  const stop = cpuMeter(t.child.pid === undefined ? undefined : [t.child.pid]); // the runner has its own column
  const runnerBefore = childTicks(t.child.pid);
  const batchesBefore = await t.child.call<GroupCommitStats | null>('groupCommit');
  const result = await measure({ ...spec, duration: opts.duration });
  const cpu = stop();
  const batchesAfter = await t.child.call<GroupCommitStats | null>('groupCommit');
  // USER_HZ is 100 on Linux: ticks ÷ 100 ÷ seconds = average cores.
  const runner = (childTicks(t.child.pid) - runnerBefore) / 100 / cpu.seconds;
  // POST events still in the outbox are delivered now: events/s counts this time too.
  const drainSeconds = await drainOutbox(t.child);
  if (profiled) {
    const file = await t.child.call<string>('profileStop', {
      file: path.join(import.meta.dirname, '..', 'results', 'profiles', `${t.engine}-plugin-commit-${v.name}.cpuprofile`),
    });
    console.log(`  (profiled: ${path.relative(process.cwd(), file)}; the profiler slows the server, so this row reads low)`);
  }
  const events = v.event === 'PLAN_COMMAND__POST_COMMIT' ? (await t.child.call<number>('delivered')) - deliveredBefore : 0;
  const latencies = v.name === 'post-instruct' ? await t.child.call<number[]>('effectLatencies', { plugin: v.plugin, since: measuredFrom }) : [];
  latencies.sort((a, b) => a - b);
  await waitForIdle(t.child.pid, 60);
  // The handler-call latency without a backlog: one commit at a time, each after the outbox is
  // empty again, so the figure is the delivery itself, not the queue the load above left.
  let unloaded: number[] = [];
  if (v.name === 'post-instruct' && probes.length > 0) {
    const from = await t.child.call<number>('nowMicros');
    for (const uuid of probes) {
      const res = await fetch(`${t.url}${API}/${uuid}/commit/`, { method: 'POST', headers: { authorization: `Bearer ${t.token}` } });
      if (res.status !== 200) throw new Error(`plugin-commit: a latency probe's commit answered ${res.status}: ${(await res.text()).slice(0, 300)}`);
      await until('the probe delivered', 60, async () => (await t.child.call<number>('outbox')) === 0, 1);
    }
    unloaded = (await t.child.call<number[]>('effectLatencies', { plugin: v.plugin, since: from })).sort((a, b) => a - b);
    console.log(
      `${t.engine.padEnd(8)}  plugin-commit ${v.name} one commit at a time: handler latency p50 ${quantile(unloaded, 0.5).toFixed(1)} ms  p90 ${quantile(unloaded, 0.9).toFixed(1)} ms  p99 ${quantile(unloaded, 0.99).toFixed(1)} ms  max ${(unloaded.at(-1) ?? NaN).toFixed(1)} ms (${unloaded.length} effects, ${unloaded.filter((ms) => ms > 100).length} over 100 ms)`,
    );
  }
  if (v.plugin !== undefined) {
    await deletePlugin(t, v.plugin);
    await until(`${v.plugin} to stop`, 30, async () => (await t.child.call<number>('handlers', { type: v.event })) === 0);
  }
  const cores = cpu.server + runner + (countPostgres ? cpu.postgres : 0);
  const row: PluginCommitRow = {
    scenario: `plugin-commit ${v.name}`,
    engine: t.engine,
    variant: v.name,
    description: v.description,
    request: `POST ${API}/{uuid}/commit/ with ${v.description}`,
    ...result,
    ratio: NaN, // set once none-again is measured
    cpu: { ...cpu, other: Math.max(0, cpu.other - runner) },
    runnerCores: runner,
    serverMicrosPerRequest: result.ok > 0 ? (cores * cpu.seconds * 1e6) / result.ok : NaN,
    profiled,
    events,
    drainSeconds,
    eventsPerSecond: events > 0 ? events / (result.seconds + drainSeconds) : 0,
    effects: latencies.length,
    handlerP50: quantile(latencies, 0.5),
    handlerP99: quantile(latencies, 0.99),
    handlerMax: latencies.length ? latencies[latencies.length - 1]! : NaN,
    unloadedEffects: unloaded.length,
    unloadedP50: quantile(unloaded, 0.5),
    unloadedP99: quantile(unloaded, 0.99),
    writesPerBatch:
      batchesBefore === null || batchesAfter === null
        ? null
        : (batchesAfter.writes - batchesBefore.writes) / Math.max(1, batchesAfter.batches - batchesBefore.batches),
    parked: batchesBefore === null || batchesAfter === null ? null : batchesAfter.parked - batchesBefore.parked,
  };
  console.log(`${t.engine.padEnd(8)}  plugin-commit ${v.name.padEnd(13)} ${line(row)}`);
  return row;
}

/** The HTTP twin of one round: what chart.get and commands.list read, as a client of the API reads it. */
async function httpRound(t: CommitTarget, key: string): Promise<void> {
  const headers = { authorization: `Bearer ${t.token}` };
  const get = async (p: string) => {
    const res = await fetch(t.url + p, { headers });
    const body = await res.text();
    if (res.status !== 200) throw new Error(`read timing: GET ${p} answered ${res.status}: ${body.slice(0, 300)}`);
  };
  const patient = `/core/api/v1/patients/${encodeURIComponent(key)}`;
  // chart.get answers every row of each (up to MAX_LIMIT, 1,000): so do these.
  await Promise.all(['conditions', 'medications', 'goals', 'banner-alerts'].map((what) => get(`${patient}/${what}/?limit=1000`)));
  await get(`${API}/?patient_key=${encodeURIComponent(key)}&limit=20`);
}

/**
 * Read timing (docs/performance.md, "Plugin runtime"): `uuids.length` plans committed one at a
 * time with the read-timing plugin enabled; for each, the handler's time for READ_ROUNDS rounds
 * of reads, then the same rounds over HTTP for the same patient. The first tenth warms up.
 */
export async function readTiming(t: CommitTarget, bytes: Buffer, uuids: string[]): Promise<ReadTiming> {
  await installPlugin(t, READ_TIMER, bytes);
  await until(`${READ_TIMER} to run`, 30, async () => (await t.child.call<number>('handlers', { type: READ_TIMER_EVENT })) === 1);
  await t.child.call('watchPlugins', { names: [READ_TIMER] });
  const handler: number[] = [];
  const http: number[] = [];
  const warmup = Math.ceil(uuids.length / 10);
  try {
    for (const [i, uuid] of uuids.entries()) {
      const since = await t.child.call<number>('nowMicros');
      const res = await fetch(`${t.url}${API}/${uuid}/commit/`, { method: 'POST', headers: { authorization: `Bearer ${t.token}` } });
      if (res.status !== 200) throw new Error(`read timing: a commit answered ${res.status}: ${(await res.text()).slice(0, 300)}`);
      let line: { text: string; source: string; success?: boolean } | undefined;
      await until(
        'the read-timing line',
        60,
        async () => {
          const lines = await t.child.call<Array<{ text: string; source: string; success?: boolean }>>('pluginLines', { plugin: READ_TIMER, since });
          const failed = lines.find((l) => l.success === false);
          if (failed !== undefined) throw new Error(`read timing: the handler failed: ${failed.text}`);
          line = lines.find((l) => l.source === 'plugin' && l.text.startsWith(uuid + ' '));
          return line !== undefined;
        },
        2,
      );
      const [, key, ms] = line!.text.split(' ');
      const started = performance.now();
      for (let r = 0; r < READ_ROUNDS; r++) await httpRound(t, key!);
      const httpMs = performance.now() - started;
      if (i < warmup) continue;
      handler.push(Number(ms) / READ_ROUNDS);
      http.push(httpMs / READ_ROUNDS);
    }
  } finally {
    await t.child.call('watchPlugins', { names: [] });
    await deletePlugin(t, READ_TIMER);
  }
  handler.sort((a, b) => a - b);
  http.sort((a, b) => a - b);
  const row: ReadTiming = {
    engine: t.engine,
    rounds: READ_ROUNDS,
    probes: handler.length,
    handlerP50: quantile(handler, 0.5),
    handlerP90: quantile(handler, 0.9),
    httpP50: quantile(http, 0.5),
    httpP90: quantile(http, 0.9),
    ratio: quantile(handler, 0.5) / quantile(http, 0.5),
  };
  console.log(
    `${t.engine.padEnd(8)}  read timing (chart + 20 commands, ${row.probes} commits one at a time): handler ${row.handlerP50.toFixed(2)} ms p50, ${row.handlerP90.toFixed(2)} p90; ` +
      `HTTP ${row.httpP50.toFixed(2)} ms p50, ${row.httpP90.toFixed(2)} p90; ratio ${row.ratio.toFixed(2)} (aim ≤ 1.5)`,
  );
  return row;
}
