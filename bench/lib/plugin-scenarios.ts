// The plugin platform scenarios of `npm run bench`:
//  * plugin-install: 1 MiB packages installed through POST /core/api/v1/plugins/ at 1 and 4
//    concurrent uploads, each against the same uploads to a bare Fastify + multipart route;
//  * log-fanout: 100 WebSocket subscribers of /core/api/v1/logging/ while the server's log bus
//    emits 200 and 1,000 entries/s, each against the same fan-out from a bare ws server.
import type { Child } from './child.ts';
import { cpuMeter, waitForQuiet, type CpuShare } from './cpu.ts';
import { clockOffset, subscribe, type PaceResult, type Subscribers } from './fanout.ts';
import type { BenchOptions } from './options.ts';
import type { PackageSet } from './plugin-archives.ts';
import type { FanoutRow, InstallRow } from './report.ts';
import { uploadAll, type UploadResult, type UploadSpec } from './uploads.ts';

const PLUGINS = '/core/api/v1/plugins/';
const LOGGING = '/core/api/v1/logging/';

/** Packages one engine uses: per concurrency level, the warm-up ones (at least one, the probe) and the measured ones. */
export function packagesNeeded(opts: BenchOptions): number {
  return opts.pluginConnections.reduce((sum, c) => sum + warmupUploads(opts, c) + opts.pluginInstalls, 0);
}

const warmupUploads = (opts: BenchOptions, connections: number) => (opts.warmup > 0 ? 5 * connections : 1);

export interface Target {
  engine: string;
  /** The Charta server. */
  child: Child;
  url: string;
  apiKey: string;
  /** The bare baselines' process. */
  baseline: Child;
  baselineUrl: string;
}

const installLine = (r: InstallRow) =>
  `${r.okPerSecond.toFixed(1).padStart(6)} uploads/s  ${r.megabytesPerSecond.toFixed(1).padStart(5)} MB/s  p50 ${r.p50.toFixed(1)} ms  p99 ${r.p99.toFixed(1)} ms  max ${r.max.toFixed(1)} ms  server ${r.serverMsPerUpload.toFixed(1)} ms/upload  cpu client ${r.cpu.client.toFixed(2)} server ${r.cpu.server.toFixed(2)} pg ${r.cpu.postgres.toFixed(2)} other ${r.cpu.other.toFixed(2)}${r.failed ? `  failed ${r.failed} ${JSON.stringify(r.statusCodes)}` : ''}`;

async function measureUploads(
  opts: BenchOptions,
  server: Child,
  countPostgres: boolean,
  spec: UploadSpec,
): Promise<{ result: UploadResult; cpu: CpuShare; serverMs: number }> {
  if (opts.quietWait > 0) await waitForQuiet(server.pid, 0.25, opts.quietWait, true);
  const stop = cpuMeter(server.pid);
  const result = await uploadAll(spec);
  const cpu = stop();
  const cores = cpu.server + (countPostgres ? cpu.postgres : 0);
  return { result, cpu, serverMs: result.ok > 0 ? (cores * cpu.seconds * 1000) / result.ok : NaN };
}

export async function installScenario(opts: BenchOptions, t: Target, set: PackageSet): Promise<InstallRow[]> {
  const rows: InstallRow[] = [];
  const auth = { authorization: t.apiKey };
  let next = 0;
  const take = (n: number) => {
    const slice = set.packages.slice(next, next + n).map((p) => ({ filename: `${p.slug}-1.0.0.tar.gz`, bytes: p.bytes }));
    if (slice.length < n) throw new Error(`plugin-install: only ${set.packages.length} packages were built`);
    next += n;
    return slice;
  };
  for (const connections of opts.pluginConnections) {
    const warm = take(warmupUploads(opts, connections));
    const files = take(opts.pluginInstalls);
    const bare: UploadSpec = { url: t.baselineUrl, path: '/upload', connections, headers: {}, files, expect: 201 };
    const install: UploadSpec = { url: t.url, path: PLUGINS, connections, headers: auth, files, expect: 201 };
    // Warm-up (its first upload is the probe: it must answer 201).
    for (const [spec, name] of [
      [bare, 'upload-baseline'],
      [install, 'plugin-install'],
    ] as const) {
      const w = await uploadAll({ ...spec, files: warm, connections: Math.min(connections, warm.length) });
      if (w.failed > 0) throw new Error(`${name} (${connections} conn) warm-up: ${w.firstFailure}`);
    }
    const b = await measureUploads(opts, t.baseline, false, bare);
    const baseRow: InstallRow = {
      scenario: 'upload-baseline',
      engine: `fastify (for ${t.engine})`,
      connections,
      uploads: files.length,
      ...pick(b.result),
      ratio: 1,
      cpu: b.cpu,
      serverMsPerUpload: b.serverMs,
    };
    rows.push(baseRow);
    console.log(`upload-baseline (for ${t.engine}, ${connections} conn)  ${installLine(baseRow)}`);
    const r = await measureUploads(opts, t.child, t.engine === 'postgres', install);
    const row: InstallRow = {
      scenario: 'plugin-install',
      engine: t.engine,
      connections,
      uploads: files.length,
      ...pick(r.result),
      ratio: r.result.okPerSecond / b.result.okPerSecond,
      cpu: r.cpu,
      serverMsPerUpload: r.serverMs,
    };
    rows.push(row);
    console.log(`${t.engine.padEnd(8)}  plugin-install (${connections} conn)  ${installLine(row)}`);
    if (r.result.firstFailure) console.log(`  (first failure: ${r.result.firstFailure})`);
  }
  // Every 201 is a stored plugin: the instance lists exactly as many.
  const list = await fetch(`${t.url}${PLUGINS}?limit=1`, { headers: auth });
  const count = ((await list.json()) as { count: number }).count;
  const answered = next - rows.filter((r) => r.scenario === 'plugin-install').reduce((sum, r) => sum + r.failed, 0);
  if (count !== answered) console.log(`  (plugin-install: the instance lists ${count} plugins after ${answered} installs answered 201)`);
  return rows;
}

/** The measurement without the console-only first failure. */
function pick({ firstFailure: _firstFailure, ...measured }: UploadResult) {
  return measured;
}

const fanoutLine = (r: FanoutRow) =>
  `${Math.round(r.deliveredPerSecond).toLocaleString('en-US').padStart(7)} lines/s (${Math.round(r.perSubscriberPerSecond)}/subscriber)  p50 ${r.p50.toFixed(2)} ms  p99 ${r.p99.toFixed(2)} ms  max ${r.max.toFixed(1)} ms  ` +
  `delivered ${r.delivered.toLocaleString('en-US')} of ${(r.emitted * r.subscribers).toLocaleString('en-US')}  dropped ${r.dropped}${r.droppedNotices ? ` (${r.droppedNotices} notices)` : ''}  missing ${r.missing}  ` +
  `${r.outOfOrder ? `out of order ${r.outOfOrder}  ` : ''}server ${r.serverMicrosPerLine.toFixed(1)} µs/line  cpu client ${r.cpu.client.toFixed(2)} server ${r.cpu.server.toFixed(2)} pg ${r.cpu.postgres.toFixed(2)} other ${r.cpu.other.toFixed(2)}`;

async function measureFanout(
  opts: BenchOptions,
  server: Child,
  subs: Subscribers,
  offset: { offsetMs: number; rttMs: number },
  rate: number,
  labels: { scenario: string; engine: string; tag: string; countPostgres: boolean },
): Promise<FanoutRow> {
  if (opts.quietWait > 0) await waitForQuiet(server.pid, 0.25, opts.quietWait, true);
  if (opts.warmup > 0) {
    const warmTag = `warm-${labels.tag}`;
    subs.record(warmTag);
    const w = await server.call<PaceResult>('emitLogs', { rate, seconds: opts.warmup, tag: warmTag });
    await subs.settle(w.emitted, 1000);
  }
  subs.record(labels.tag);
  const stop = cpuMeter(server.pid);
  const pace = await server.call<PaceResult>('emitLogs', { rate, seconds: opts.duration, tag: labels.tag });
  await subs.settle(pace.emitted);
  const cpu = stop();
  const s = subs.stats(offset.offsetMs, pace.emitted);
  const cores = cpu.server + (labels.countPostgres ? cpu.postgres : 0);
  const spanSeconds = s.spanMs / 1000;
  const deliveredPerSecond = spanSeconds > 0 ? s.delivered / spanSeconds : 0;
  return {
    scenario: labels.scenario,
    engine: labels.engine,
    subscribers: subs.count,
    rate,
    emitted: pace.emitted,
    emitSeconds: pace.seconds,
    delivered: s.delivered,
    deliveredPerSecond,
    perSubscriberPerSecond: deliveredPerSecond / subs.count,
    p50: s.p50,
    p99: s.p99,
    max: s.max,
    dropped: s.dropped,
    droppedNotices: s.droppedNotices,
    missing: Math.max(0, pace.emitted * subs.count - s.delivered - s.dropped),
    complete: s.complete,
    outOfOrder: s.outOfOrder,
    clockRttMs: offset.rttMs,
    cpu,
    serverMicrosPerLine: s.delivered > 0 ? (cores * cpu.seconds * 1e6) / s.delivered : NaN,
  };
}

export async function fanoutScenario(opts: BenchOptions, t: Target): Promise<FanoutRow[]> {
  const rows: FanoutRow[] = [];
  const n = opts.fanoutSubscribers;
  const bareOffset = await clockOffset(t.baseline);
  const chartaOffset = await clockOffset(t.child);
  console.log(
    `  (log-fanout: clock offsets ${bareOffset.offsetMs.toFixed(3)} ms (bare ws) and ${chartaOffset.offsetMs.toFixed(3)} ms (${t.engine}), calibrated over round trips of ${bareOffset.rttMs.toFixed(3)} and ${chartaOffset.rttMs.toFixed(3)} ms)`,
  );
  const bare = await subscribe(await t.baseline.call<string>('wsUrl'), n, {});
  let charta: Subscribers | undefined;
  try {
    // The server's own subscribers (the plugin runtime follows the log bus) are there before ours.
    const own = await t.child.call<number>('subscribers');
    charta = await subscribe(`${t.url.replace(/^http/, 'ws')}${LOGGING}`, n, { authorization: t.apiKey });
    const listening = await t.child.call<number>('subscribers');
    if (listening !== own + n) throw new Error(`log-fanout: the server has ${listening} log bus subscribers, expected its own ${own} and ${n} streams`);
    for (const rate of opts.fanoutRates) {
      const b = await measureFanout(opts, t.baseline, bare, bareOffset, rate, {
        scenario: 'ws-baseline',
        engine: `ws (for ${t.engine})`,
        tag: `ws-${t.engine}-${rate}`,
        countPostgres: false,
      });
      rows.push(b);
      console.log(`ws-baseline (for ${t.engine}, ${rate}/s)  ${fanoutLine(b)}`);
      const r = await measureFanout(opts, t.child, charta, chartaOffset, rate, {
        scenario: 'log-fanout',
        engine: t.engine,
        tag: `${t.engine}-${rate}`,
        countPostgres: t.engine === 'postgres',
      });
      rows.push(r);
      console.log(`${t.engine.padEnd(8)}  log-fanout (${rate}/s)  ${fanoutLine(r)}`);
    }
  } finally {
    await bare.close();
    await charta?.close();
  }
  return rows;
}
