// The plugin runner alone, without a server (docs/performance.md, "Plugin platform"): where an
// install's time goes for the plugin-install scenario's 700 KB bundle (inspecting the package,
// its checksum, reading its entries, the runner's install check, the load after it), and a
// runner's start with 30 plugins loaded at once (the 700 KB bundle, then a tiny module), each
// start in a fresh runner child. Wall time, and the runner child's CPU from /proc.
// Usage: node --import tsx bench/plugin-loads.ts   (BENCH_LOAD_ROUNDS=6: installs timed; starts are half as many, at least 3)
import crypto from 'node:crypto';
import fs from 'node:fs';
import { inspectPackage } from '../packages/server/src/inspection/index.ts';
import { runnablePlugin, type RunnablePlugin } from '../packages/server/src/runtime/runnable.ts';
import { PluginRunner } from '../packages/server/src/runtime/runner/client.ts';
import { buildPackages } from './lib/plugin-archives.ts';
import { median } from './lib/format.ts';

const ROUNDS = Number(process.env.BENCH_LOAD_ROUNDS ?? 6);
const STARTED_AT_ONCE = 30;
const INSTANCE_LIMITS = { maxMemoryMb: 128, maxTimeoutMs: 5000, maxEffectsPerAnswer: 1000 };

const set = await buildPackages(ROUNDS + STARTED_AT_ONCE);
const plugins: RunnablePlugin[] = [];
for (const p of set.packages) {
  const runnable = await runnablePlugin({ name: p.name, format: 'tar.gz', source: 'manifest', bytes: p.bytes }, INSTANCE_LIMITS);
  if (runnable.kind !== 'runnable') throw new Error(`${p.name} is not runnable`);
  plugins.push(runnable.plugin);
}
const tinySource =
  'export class BenchHandler { static RESPONDS_TO = ["DIAGNOSE_COMMAND__POST_ENTER_IN_ERROR"]; acceptEvent() { return true; } compute() { return []; } }';
const tiny: RunnablePlugin[] = Array.from({ length: STARTED_AT_ONCE }, (_, i) => ({
  name: `tiny-${i}`,
  manifest: plugins[0]!.manifest,
  limits: {},
  modules: [{ entry: 'dist/index.js', source: tinySource }],
}));

/** The process's CPU time, user and system, in ms (its worker threads included). */
function cpuMs(pid: number): number {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
}
const figures = new Map<string, number[]>();
const record = (name: string, value: number) => figures.set(name, [...(figures.get(name) ?? []), value]);
const ms = (from: number) => performance.now() - from;

{
  const runner = new PluginRunner();
  await runner.check(tiny[0]!); // the child starts
  for (const [i, p] of plugins.slice(0, ROUNDS).entries()) {
    const bytes = set.packages[i]!.bytes;
    let t = performance.now();
    const inspected = await inspectPackage(bytes, undefined, 'package.tar.gz');
    record('install: inspect the package (inflate, scan, manifest)', ms(t));
    t = performance.now();
    crypto.createHash('sha256').update(bytes).digest('hex');
    record('install: its checksum', ms(t));
    t = performance.now();
    await runnablePlugin(
      { name: p.name, format: 'tar.gz', source: 'manifest', bytes, ...(inspected.ok ? { metadata: inspected.metadata } : {}) },
      INSTANCE_LIMITS,
    );
    record('install: read the entries (inflate again)', ms(t));
    const cpu = cpuMs(runner.pid!);
    t = performance.now();
    const checked = await runner.check(p);
    if (!checked.ok) throw new Error(checked.reasons.join('; '));
    record('install: the runner checks it', ms(t));
    t = performance.now();
    const loaded = await runner.load(p);
    if (!loaded.ok) throw new Error(loaded.reasons.join('; '));
    record('install: the runner loads it after the check', ms(t));
    record('install: runner CPU of the check and the load', cpuMs(runner.pid!) - cpu);
    await runner.unload(p.name);
  }
  const stats = (await runner.stats())!;
  console.log(`installs: ${stats.isolatesStarted} isolates started, ${stats.checkedTaken} loads took a checked isolate`);
  await runner.close();
}

for (const [label, list] of [
  ['700 KB', plugins.slice(ROUNDS, ROUNDS + STARTED_AT_ONCE)],
  ['tiny', tiny],
] as const) {
  for (let round = 0; round < Math.max(3, Math.floor(ROUNDS / 2)); round++) {
    const runner = new PluginRunner();
    await runner.check(tiny[0]!); // the child started, as a server's is when its plugins are loaded
    const cpu = cpuMs(runner.pid!);
    const t = performance.now();
    const answers = await Promise.all(list.map((p) => runner.load(p)));
    record(`start, ${STARTED_AT_ONCE} × ${label}: every load answered, ms`, ms(t));
    record(`start, ${STARTED_AT_ONCE} × ${label}: loads failed`, answers.filter((a) => !a.ok).length);
    record(`start, ${STARTED_AT_ONCE} × ${label}: runner CPU, ms`, cpuMs(runner.pid!) - cpu);
    await runner.close();
  }
}

console.log(`load average ${fs.readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')} at the end`);
for (const [name, values] of figures) {
  console.log(
    `${name.padEnd(56)} median ${median(values).toFixed(1).padStart(8)}   range ${Math.min(...values).toFixed(1)}–${Math.max(...values).toFixed(1)}   n ${values.length}`,
  );
}
