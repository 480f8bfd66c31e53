// The plugin-isolation scenario of `npm run bench` (docs/performance.md, "Plugin isolation"): what giving
// each enabled plugin an isolate of its own in the runner child costs, and whether a plugin that
// runs a built-in past its deadline reaches anyone else (docs/plugins.md, "The runner process" and
// "Faults"). On one engine, against the bench's Charta server, with real plugins built by the
// CLI's packaging and installed through the plugin API:
//  * memory: no-op plugins (a PLAN_COMMAND__PRE_COMMIT handler returning []) installed one after
//    another, enabled; at each of BENCH_ISOLATION_PLUGINS (1, 10, 30) a plan commit gives every
//    one an event, and the runner's resident memory and its plugins' QuickJS memories are read
//    (the runner's own stats); then every plugin is deleted and the runner is read once more;
//  * first call: a plugin whose PLAN_COMMAND__POST_COMMIT handler logs the plan's uuid, enabled
//    (PATCH is_enabled) BENCH_ISOLATION_SAMPLES times: the time until its runtime state is
//    `running`, then a plan committed at once and the time until its line is seen, and a second
//    commit's (the warm call);
//  * noisy neighbour: that plugin stays enabled (the victim) while plans are committed at a
//    steady BENCH_ISOLATION_RATE; in each window an attacker plugin, whose HPI PRE_COMMIT (or
//    POST_COMMIT) handler runs one of the built-ins that never look at the deadline, is set off
//    by an HPI commit every 1.5 s; the plain commits' latency and the victim's handler latency
//    (the plan's commit → its line) against windows with no attacker, before and after.
// No figure is checked against anything: the scenario reports what it measured.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { OVERRUN_MARGIN_MS } from '../../packages/server/src/runtime/runner/protocol.ts';
import { DEFAULT_SANDBOX_LIMITS } from '../../packages/server/src/runtime/sandbox/types.ts';
import type { Child } from './child.ts';
import { cpuMeter, waitForIdle, waitForQuiet, type CpuShare } from './cpu.ts';
import { paced } from './fanout.ts';
import type { BenchOptions } from './options.ts';
import { buildPluginProject, childTicks, clearPlugins, deletePlugin, installPlugin, quantile, until, type PluginProject } from './plugin-commit.ts';
import type { IsolationFirstCallRow, IsolationMemoryRow, IsolationNoisyRow, IsolationResult, Latency } from './report.ts';

export const ISOLATION_SCENARIO = 'plugin-isolation';

const PLUGINS = '/core/api/v1/plugins/';
const API = '/core/api/v1/commands';
const MiB = 2 ** 20;

/**
 * The built-ins QuickJS runs in its C code without looking at the deadline, each stopped only by
 * the end of the plugin's isolate 500 ms past it (docs/plugins.md, "Faults").
 */
export const ATTACKS: Record<string, string> = {
  indexOf: 'Array.prototype.indexOf.call({ length: 2 ** 40 }, 1)',
  includes: 'Array.prototype.includes.call({ length: 2 ** 40 }, 1)',
  lastIndexOf: 'Array.prototype.lastIndexOf.call({ length: 2 ** 40 }, 1)',
  join: 'Array.prototype.join.call({ length: 2 ** 40 })',
  reverse: 'Array.prototype.reverse.call({ length: 2 ** 40 })',
  copyWithin: 'Array.prototype.copyWithin.call({ length: 2 ** 40 }, 0, 1)',
  'sparse-join': 'new Array(2 ** 32 - 1).join()',
  'string-indexOf': "'a'.repeat(2 ** 24).indexOf('a'.repeat(2 ** 23) + 'b')",
};

const VICTIM = 'bench-iso-victim';
/** The name the server's lines about the runner process itself are watched under. */
const RUNNER_LINES = '(runner)';
const VICTIM_EVENT = 'PLAN_COMMAND__POST_COMMIT';
const NOOP_EVENT = 'PLAN_COMMAND__PRE_COMMIT';
const noopName = (i: number) => `bench-iso-noop-${String(i).padStart(2, '0')}`;
const attackerName = (mode: 'pre' | 'post') => `bench-iso-attacker-${mode}`;
const attackerEvent = (mode: 'pre' | 'post') => `HISTORY_OF_PRESENT_ILLNESS_COMMAND__${mode === 'pre' ? 'PRE' : 'POST'}_COMMIT`;
/** How often the attacker is set off: one attack lasts its deadline and the margin before its isolate is ended. */
const ATTACK_EVERY_MS = DEFAULT_SANDBOX_LIMITS.deadlineMs + OVERRUN_MARGIN_MS;
/**
 * A POST event whose call timed out is given again 2 s after the attempt ended at the earliest
 * (docs/plugins.md, "Delivery and guarantees"), so more than 3 s after the commit; the attacker
 * answers [] to it, so that each window runs its own attack at the pace of its own HPI commits.
 */
const FRESH_EVENT_MS = 3000;

function attackerProject(mode: 'pre' | 'post'): PluginProject {
  const cases = Object.entries(ATTACKS)
    .map(([name, code]) => `      case ${JSON.stringify(name)}:\n        ${code};\n        break;`)
    .join('\n');
  const fresh = mode === 'post' ? `Date.now() - Date.parse(context.command.updated_at) < ${FRESH_EVENT_MS}` : 'true';
  const description = `HPI ${mode.toUpperCase()}_COMMIT handler running the built-in named by the HPI's narrative past its deadline`;
  return {
    name: attackerName(mode),
    description,
    // The String indexOf attack holds 24 MiB of strings: under the default 32 MiB it could run out of memory instead.
    limits: { memory_mb: 64 },
    handlers: [
      {
        className: 'Attack',
        events: [attackerEvent(mode)],
        description,
        compute: `    const context = this.event.context as unknown as { fields: Record<string, unknown>; command: { updated_at: string } };
    if (${fresh}) {
      switch (String(context.fields['narrative'])) {
${cases}
      }
    }
    return [];`,
      },
    ],
  };
}

const victimProject: PluginProject = {
  name: VICTIM,
  description: `${VICTIM_EVENT} handler logging the plan's uuid`,
  handlers: [
    { className: 'Victim', events: [VICTIM_EVENT], description: "logs the plan's uuid", compute: '    this.log.info(this.event.target.id);\n    return [];' },
  ],
};

const noopProject = (i: number): PluginProject => ({
  name: noopName(i),
  description: `${NOOP_EVENT} handler returning []`,
  handlers: [{ className: 'Noop', events: [NOOP_EVENT], description: 'returns []', compute: '    return [];' }],
});

/** The attacks this run makes (BENCH_ISOLATION_ATTACKS, or all). */
function attacksOf(opts: BenchOptions): string[] {
  const names = opts.isolationAttacks ?? Object.keys(ATTACKS);
  for (const name of names)
    if (!(name in ATTACKS)) throw new Error(`BENCH_ISOLATION_ATTACKS: unknown attack ${name} (known: ${Object.keys(ATTACKS).join(', ')})`);
  return names;
}

interface Window {
  name: string;
  mode?: 'pre' | 'post';
  attack?: string;
}

function windowsOf(opts: BenchOptions): Window[] {
  const attacks = attacksOf(opts);
  return [
    { name: 'none' },
    ...opts.isolationAttackers.flatMap((mode) => attacks.map((attack): Window => ({ name: `${mode} ${attack}`, mode, attack }))),
    // The machine drifts over the minutes the windows take: the reference is the mean of the two.
    { name: 'none-again' },
  ];
}

const plansPerWindow = (opts: BenchOptions) => Math.max(1, Math.round(opts.isolationRate * (opts.warmup + opts.duration)));

/** Staged plans one engine needs: a commit per memory reading, two per first-call sample, and every window's. */
export function isolationFixturesNeeded(opts: BenchOptions): number {
  return opts.isolationPlugins.length + 2 * opts.isolationSamples + windowsOf(opts).length * plansPerWindow(opts);
}

/** Every package of the scenario, built once for every engine. */
export async function buildIsolationPlugins(opts: BenchOptions): Promise<Map<string, Buffer>> {
  const parent = fs.mkdtempSync(path.join(os.tmpdir(), 'charta-bench-isolation-'));
  try {
    const projects = [
      ...Array.from({ length: opts.isolationPlugins.at(-1) ?? 0 }, (_, i) => noopProject(i + 1)),
      victimProject,
      ...opts.isolationAttackers.map(attackerProject),
    ];
    const out = new Map<string, Buffer>();
    for (const p of projects) out.set(p.name, await buildPluginProject(parent, p));
    return out;
  } finally {
    fs.rmSync(parent, { recursive: true, force: true });
  }
}

export interface IsolationTarget {
  engine: string;
  child: Child;
  url: string;
  token: string;
  apiKey: string;
  /** Staged plans, isolationFixturesNeeded() of them. */
  uuids: string[];
  /** Unlocked notes, for the attacker's HPI commands. */
  notes: string[];
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function latency(values: number[]): Latency {
  const sorted = [...values].sort((a, b) => a - b);
  return { count: sorted.length, p50: quantile(sorted, 0.5), p99: quantile(sorted, 0.99), max: sorted.at(-1) ?? NaN };
}

async function runtimeState(t: IsolationTarget, name: string): Promise<string | undefined> {
  const res = await fetch(`${t.url}${PLUGINS}${name}/`, { headers: { authorization: t.apiKey } });
  if (res.status === 404) return undefined;
  if (res.status !== 200) throw new Error(`GET plugin ${name} answered ${res.status}: ${(await res.text()).slice(0, 300)}`);
  return ((await res.json()) as { runtime?: { state?: string } }).runtime?.state;
}

/** Polls the plugin's runtime state (every 5 ms) until it is `state`. */
const untilState = (t: IsolationTarget, name: string, state: string) =>
  until(`${name} to be ${state}`, 60, async () => (await runtimeState(t, name)) === state, 5);

async function setEnabled(t: IsolationTarget, name: string, enabled: boolean): Promise<void> {
  const res = await fetch(`${t.url}${PLUGINS}${name}/`, {
    method: 'PATCH',
    headers: { authorization: t.apiKey, 'content-type': 'application/x-www-form-urlencoded' },
    body: `is_enabled=${enabled ? 'True' : 'False'}`,
  });
  if (res.status !== 200) throw new Error(`PATCH ${name} is_enabled=${enabled} answered ${res.status}: ${(await res.text()).slice(0, 300)}`);
}

async function commit(t: IsolationTarget, uuid: string): Promise<number> {
  const res = await fetch(`${t.url}${API}/${uuid}/commit/`, { method: 'POST', headers: { authorization: `Bearer ${t.token}` } });
  await res.arrayBuffer();
  return res.status;
}

async function commitOk(t: IsolationTarget, uuid: string): Promise<void> {
  const status = await commit(t, uuid);
  if (status !== 200) throw new Error(`plugin-isolation: committing plan ${uuid} answered ${status}`);
}

/** The runner's memory: its resident set and its plugins' QuickJS memories (docs/plugins.md, "Limits and their defaults"). */
async function runnerMemory(t: IsolationTarget): Promise<{ rssMiB: number; quickjsMiB: number; isolates: number }> {
  // Let an isolate that was just ended, or a collection, settle first.
  await waitForIdle(t.child.pid, 30);
  await sleep(500);
  const { stats } = await t.child.call<{ stats: { rssBytes: number; plugins: Array<{ memoryBytes: number | null }> } | null }>('runnerStats');
  if (stats === null) return { rssMiB: NaN, quickjsMiB: NaN, isolates: 0 };
  return {
    rssMiB: stats.rssBytes / MiB,
    quickjsMiB: stats.plugins.reduce((sum, p) => sum + (p.memoryBytes ?? 0), 0) / MiB,
    isolates: stats.plugins.length,
  };
}

async function memoryPart(opts: BenchOptions, t: IsolationTarget, packages: Map<string, Buffer>, plans: string[]): Promise<IsolationMemoryRow[]> {
  const rows: IsolationMemoryRow[] = [];
  const most = opts.isolationPlugins.at(-1) ?? 0;
  let installs: number[] = [];
  let one: number | undefined;
  let next = 0;
  for (let n = 1; n <= most; n++) {
    const started = performance.now();
    await installPlugin(t, noopName(n), packages.get(noopName(n))!);
    await untilState(t, noopName(n), 'running');
    installs.push(performance.now() - started);
    if (!opts.isolationPlugins.includes(n)) continue;
    // Each enabled plugin handles one event: a plan commit calls every PRE handler.
    await commitOk(t, plans[next++]!);
    const m = await runnerMemory(t);
    one ??= n === 1 ? m.rssMiB : undefined;
    const i = latency(installs);
    const row: IsolationMemoryRow = {
      engine: t.engine,
      plugins: n,
      isolates: m.isolates,
      runnerRssMiB: m.rssMiB,
      quickjsMiB: m.quickjsMiB,
      rssPerPluginMiB: m.rssMiB / n,
      perPluginMiB: one !== undefined && n > 1 ? (m.rssMiB - one) / (n - 1) : NaN,
      installs: i.count,
      installToRunningP50: i.p50,
      installToRunningMax: i.max,
    };
    rows.push(row);
    installs = [];
    console.log(
      `${t.engine.padEnd(8)}  plugin-isolation memory: ${n} plugin(s) enabled: runner RSS ${m.rssMiB.toFixed(1)} MiB (${m.isolates} isolates, QuickJS memories ${m.quickjsMiB.toFixed(1)} MiB)` +
        `${Number.isFinite(row.perPluginMiB) ? `, ${row.perPluginMiB.toFixed(2)} MiB per plugin over 1` : ''}; install → running p50 ${i.p50.toFixed(0)} ms max ${i.max.toFixed(0)} ms (${i.count})`,
    );
  }
  for (let n = 1; n <= most; n++) await deletePlugin(t, noopName(n));
  await until('every no-op plugin to stop', 60, async () => (await t.child.call<number>('handlers', { type: NOOP_EVENT })) === 0);
  const m = await runnerMemory(t);
  rows.push({
    engine: t.engine,
    plugins: 0,
    isolates: m.isolates,
    runnerRssMiB: m.rssMiB,
    quickjsMiB: m.quickjsMiB,
    rssPerPluginMiB: NaN,
    perPluginMiB: NaN,
    installs: 0,
    installToRunningP50: NaN,
    installToRunningMax: NaN,
  });
  console.log(`${t.engine.padEnd(8)}  plugin-isolation memory: every plugin deleted: runner RSS ${m.rssMiB.toFixed(1)} MiB (${m.isolates} isolates)`);
  return rows;
}

/** The victim's latency for one plan: its commit (updated_at) → the line its handler logged, ms. */
async function lineLatency(t: IsolationTarget, uuid: string): Promise<number> {
  await t.child.call<number>('waitForLine', { plugin: VICTIM, text: uuid, timeoutMs: 60_000 });
  const { latencies } = await t.child.call<{ latencies: number[] }>('lineLatencies', { plugin: VICTIM, uuids: [uuid] });
  return latencies[0] ?? NaN;
}

async function firstCallPart(opts: BenchOptions, t: IsolationTarget, plans: string[]): Promise<IsolationFirstCallRow> {
  const patch: number[] = [];
  const running: number[] = [];
  const seen: number[] = [];
  const first: number[] = [];
  const warm: number[] = [];
  let next = 0;
  for (let i = 0; i < opts.isolationSamples; i++) {
    const started = performance.now();
    await setEnabled(t, VICTIM, true);
    patch.push(performance.now() - started);
    await untilState(t, VICTIM, 'running');
    running.push(performance.now() - started);
    // The first call of the new isolate: a plan committed at once, until its handler's line is seen here.
    const a = plans[next++]!;
    await commitOk(t, a);
    await t.child.call<number>('waitForLine', { plugin: VICTIM, text: a, timeoutMs: 60_000 });
    seen.push(performance.now() - started);
    first.push(await lineLatency(t, a));
    const b = plans[next++]!;
    await commitOk(t, b);
    warm.push(await lineLatency(t, b));
    await setEnabled(t, VICTIM, false);
    await untilState(t, VICTIM, 'stopped');
    await waitForIdle(t.child.pid, 30);
  }
  const row: IsolationFirstCallRow = {
    engine: t.engine,
    samples: opts.isolationSamples,
    patch: latency(patch),
    running: latency(running),
    firstLine: latency(seen),
    firstCall: latency(first),
    warmCall: latency(warm),
  };
  const f = (l: Latency) => `p50 ${l.p50.toFixed(1)} max ${l.max.toFixed(1)} ms`;
  console.log(
    `${t.engine.padEnd(8)}  plugin-isolation first call (${row.samples} enables): PATCH answered ${f(row.patch)}; running ${f(row.running)}; ` +
      `first line seen ${f(row.firstLine)}; first call (commit → line) ${f(row.firstCall)}; second call ${f(row.warmCall)}`,
  );
  return row;
}

interface AttackLoop {
  stop(): Promise<{ commits: number[]; failures: number }>;
}

/** Sets the attacker off: an HPI created and committed (its narrative names the attack) every ATTACK_EVERY_MS, or back to back when the commit itself takes longer (PRE). */
function attackLoop(t: IsolationTarget, attack: string): AttackLoop {
  let stopped = false;
  const commits: number[] = [];
  let failures = 0;
  const loop = (async () => {
    for (let i = 0; !stopped; i++) {
      const started = performance.now();
      try {
        const created = await fetch(`${t.url}${API}/`, {
          method: 'POST',
          headers: { authorization: `Bearer ${t.token}`, 'content-type': 'application/json' },
          body: JSON.stringify({ schemaKey: 'hpi', noteKey: t.notes[i % t.notes.length], values: { narrative: attack } }),
        });
        const body = (await created.json()) as { uuid?: string };
        if (created.status !== 201 || body.uuid === undefined) throw new Error(`creating an HPI answered ${created.status}`);
        const from = performance.now();
        const status = await commit(t, body.uuid);
        if (status !== 200) throw new Error(`committing an HPI answered ${status}`);
        commits.push(performance.now() - from);
      } catch {
        failures++;
      }
      const rest = ATTACK_EVERY_MS - (performance.now() - started);
      if (rest > 0 && !stopped) await sleep(rest);
    }
  })();
  return {
    stop: async () => {
      stopped = true;
      await loop;
      return { commits, failures };
    },
  };
}

interface WindowResult {
  window: Window;
  plain: Latency & { sent: number; failed: number };
  victim: Latency & { missing: number };
  attacks: Latency & { failures: number };
  isolatesEnded: number;
  otherFaults: number;
  runnerRestarted: boolean;
  remarks: string[];
  cpu: IsolationNoisyRow['cpu'];
  runnerCores: number;
}

async function noisyWindow(opts: BenchOptions, t: IsolationTarget, w: Window, plans: string[]): Promise<WindowResult> {
  if (opts.quietWait > 0) await waitForQuiet(t.child.pid, 0.25, opts.quietWait, true);
  const windowFrom = await t.child.call<number>('nowMicros');
  const runnerPid = (await t.child.call<{ pid: number | undefined }>('runnerStats')).pid;
  const attacker = w.attack === undefined ? undefined : attackLoop(t, w.attack);
  const warm = Math.round(opts.isolationRate * opts.warmup);
  const latencies: number[] = [];
  let failed = 0;
  const inFlight: Array<Promise<void>> = [];
  let stopCpu: (() => CpuShare) | undefined;
  let runnerBefore = 0;
  // Plain commits at a steady pace, each sent when due whatever the others are waiting for (so a
  // stall shows in the latencies instead of slowing the sender); the warm-up's are not counted.
  const pace = await paced(opts.isolationRate, opts.warmup + opts.duration, (seq) => {
    const uuid = plans[seq % plans.length]!;
    if (seq === warm) {
      stopCpu = cpuMeter(t.child.pid);
      runnerBefore = childTicks(t.child.pid);
    }
    const started = performance.now();
    inFlight.push(
      commit(t, uuid).then(
        (status) => {
          if (seq < warm) return;
          if (status === 200) latencies.push(performance.now() - started);
          else failed++;
        },
        () => {
          if (seq >= warm) failed++;
        },
      ),
    );
  });
  const cpu = stopCpu?.() ?? cpuMeter(t.child.pid)();
  const runnerCores = (childTicks(t.child.pid) - runnerBefore) / 100 / cpu.seconds;
  const attacks = attacker === undefined ? { commits: [], failures: 0 } : await attacker.stop();
  await Promise.all(inFlight);
  const measured = plans.slice(warm, pace.emitted);
  // The victim's lines come after the commits (POST delivery): wait for every one, or a minute.
  let victim = { latencies: [] as number[], missing: measured.length };
  const end = performance.now() + 60_000;
  for (;;) {
    victim = await t.child.call<{ latencies: number[]; missing: number }>('lineLatencies', { plugin: VICTIM, uuids: measured });
    if (victim.missing === 0 || performance.now() > end) break;
    await sleep(100);
  }
  let isolatesEnded = 0;
  let otherFaults = 0;
  const remarks = new Set<string>();
  if (w.mode !== undefined) {
    // The last attack's fault line comes when its isolate is ended (a POST one after its delivery).
    await sleep(ATTACK_EVERY_MS);
    const lines = await t.child.call<Array<{ success?: boolean; text: string }>>('pluginLines', { plugin: attackerName(w.mode), since: windowFrom });
    for (const l of lines) {
      if (l.success !== false) continue;
      if (/its isolate was ended/.test(l.text)) isolatesEnded++;
      else {
        otherFaults++;
        remarks.add(`${attackerName(w.mode)}: ${l.text}`);
      }
    }
  }
  // Whatever the server said about the runner process itself during the window (it died, its stderr).
  for (const l of await t.child.call<Array<{ text: string }>>('pluginLines', { plugin: RUNNER_LINES, since: windowFrom })) remarks.add(l.text);
  await waitForIdle(t.child.pid, 60);
  // The runner process itself is never restarted by an attack (docs/plugins.md, "The runner process").
  const runnerRestarted = (await t.child.call<{ pid: number | undefined }>('runnerStats')).pid !== runnerPid;
  return {
    window: w,
    runnerRestarted,
    plain: { ...latency(latencies), sent: measured.length, failed },
    victim: { ...latency(victim.latencies), missing: victim.missing },
    attacks: { ...latency(attacks.commits), failures: attacks.failures },
    isolatesEnded,
    otherFaults,
    remarks: [...remarks].slice(0, 5).map((n) => n.slice(0, 500)),
    cpu,
    runnerCores,
  };
}

async function noisyPart(opts: BenchOptions, t: IsolationTarget, packages: Map<string, Buffer>, plans: string[]): Promise<IsolationNoisyRow[]> {
  const results: WindowResult[] = [];
  const size = plansPerWindow(opts);
  const windows = windowsOf(opts);
  let installed: 'pre' | 'post' | undefined;
  for (const [i, w] of windows.entries()) {
    if (installed !== w.mode && installed !== undefined) {
      await deletePlugin(t, attackerName(installed));
      await until(`${attackerName(installed)} to be gone`, 60, async () => (await runtimeState(t, attackerName(installed!))) === undefined);
      installed = undefined;
    }
    if (w.mode !== undefined && installed !== w.mode) {
      await installPlugin(t, attackerName(w.mode), packages.get(attackerName(w.mode))!);
      await untilState(t, attackerName(w.mode), 'running');
      installed = w.mode;
    }
    const r = await noisyWindow(opts, t, w, plans.slice(i * size, (i + 1) * size));
    results.push(r);
    console.log(
      `${t.engine.padEnd(8)}  plugin-isolation ${w.name.padEnd(19)} plain commits p50 ${r.plain.p50.toFixed(1)} p99 ${r.plain.p99.toFixed(1)} max ${r.plain.max.toFixed(1)} ms (${r.plain.count} of ${r.plain.sent}${r.plain.failed ? `, ${r.plain.failed} failed` : ''})` +
        `  victim p50 ${r.victim.p50.toFixed(1)} p99 ${r.victim.p99.toFixed(1)} max ${r.victim.max.toFixed(1)} ms (${r.victim.count}${r.victim.missing ? `, ${r.victim.missing} missing` : ''})` +
        (w.mode
          ? `  attacks ${r.attacks.count} (HPI commit p50 ${r.attacks.p50.toFixed(0)} ms), isolates ended ${r.isolatesEnded}${r.otherFaults ? `, other faults ${r.otherFaults}` : ''}`
          : '') +
        (r.runnerRestarted ? '  THE RUNNER PROCESS WAS RESTARTED' : '') +
        `  cpu server ${r.cpu.server.toFixed(2)} runner ${r.runnerCores.toFixed(2)} pg ${r.cpu.postgres.toFixed(2)} other ${r.cpu.other.toFixed(2)}`,
    );
    for (const remark of r.remarks) console.log(`    (${remark})`);
  }
  if (installed !== undefined) await deletePlugin(t, attackerName(installed));
  const reference = results.filter((r) => r.window.mode === undefined);
  const mean = (pick: (r: WindowResult) => number) => reference.reduce((sum, r) => sum + pick(r), 0) / reference.length;
  const base = {
    plainP50: mean((r) => r.plain.p50),
    plainP99: mean((r) => r.plain.p99),
    victimP50: mean((r) => r.victim.p50),
    victimP99: mean((r) => r.victim.p99),
  };
  return results.map((r) => ({
    engine: t.engine,
    window: r.window.name,
    attacker: r.window.mode ?? 'none',
    attack: r.window.attack ?? '–',
    rate: opts.isolationRate,
    plain: r.plain,
    plainP50Ratio: r.plain.p50 / base.plainP50,
    plainP99Ratio: r.plain.p99 / base.plainP99,
    victim: r.victim,
    victimP50Ratio: r.victim.p50 / base.victimP50,
    victimP99Ratio: r.victim.p99 / base.victimP99,
    attacks: r.attacks,
    isolatesEnded: r.isolatesEnded,
    otherFaults: r.otherFaults,
    runnerRestarted: r.runnerRestarted,
    remarks: r.remarks,
    cpu: { ...r.cpu, other: Math.max(0, r.cpu.other - r.runnerCores) },
    runnerCores: r.runnerCores,
  }));
}

export async function pluginIsolationScenario(opts: BenchOptions, t: IsolationTarget, packages: Map<string, Buffer>): Promise<IsolationResult> {
  const needed = isolationFixturesNeeded(opts);
  if (t.uuids.length < needed) throw new Error(`plugin-isolation: ${t.uuids.length} staged plans, ${needed} needed`);
  await clearPlugins(t, 'plugin-isolation');
  let next = 0;
  const take = (n: number) => t.uuids.slice(next, (next += n));
  const memory = await memoryPart(opts, t, packages, take(opts.isolationPlugins.length));
  await t.child.call('watchPlugins', { names: [VICTIM, ...opts.isolationAttackers.map(attackerName)], runner: RUNNER_LINES });
  try {
    await installPlugin(t, VICTIM, packages.get(VICTIM)!, false);
    const firstCall = await firstCallPart(opts, t, take(2 * opts.isolationSamples));
    await setEnabled(t, VICTIM, true);
    await untilState(t, VICTIM, 'running');
    const noisy = await noisyPart(opts, t, packages, take(windowsOf(opts).length * plansPerWindow(opts)));
    await deletePlugin(t, VICTIM);
    return { memory, firstCall: [firstCall], noisy };
  } finally {
    await t.child.call('watchPlugins', { names: [] });
  }
}
