// The `metrics` scenario (docs/performance.md, "Metrics cost"; issue 23: "the cost of metrics on
// the hottest path, GET a command, in the same run with metrics on and off"). Two real
// `charta-server start` processes on the engine's seeded database, one with CHARTA_METRICS=off and
// one with metrics on, scraped every second through GET /metrics with CHARTA_METRICS_TOKEN (as
// Prometheus would, docs/operations.md, "Monitoring") while it is loaded. Both stay up; they are
// loaded in turn, BENCH_METRICS_ROUNDS rounds, the order swapped each round so that the machine's
// drift falls on both alike. The figure is on ÷ off: the 2xx req/s (all rounds together) and the
// p99 (median of the rounds); on this shared 2-core machine the absolute figures are noise.
import type autocannon from 'autocannon';
import { cpuMeter, processTree, waitForIdle, waitForQuiet } from './cpu.ts';
import { measure } from './load.ts';
import type { BenchOptions } from './options.ts';
import type { MetricsRow } from './report.ts';
import { startServed, stopServed, type Served } from './workers.ts';
import { Metrics } from '../../packages/server/src/metrics/registry.ts';
import { median } from './format.ts';

export const METRICS_SCENARIO = 'metrics';
/** What the scraper sends: not a secret outside the bench. */
const SCRAPE_TOKEN = 'bench-metrics-token-0123456789abcdef';
const SCRAPE_EVERY_MS = 1000;

export interface MetricsTarget {
  engine: string;
  databaseUrl: string;
  /** The rest of a process's environment on that database (its secret key's file). */
  databaseEnv: Record<string, string>;
  /** A bearer token of the bootstrap client (valid on any process on the database). */
  token: string;
  /** GET a command: the `get` scenario's requests. */
  request: string;
  requests: autocannon.Request[];
}

interface Scrapes {
  count: number;
  failed: number;
  bytes: number;
  ms: number[];
}

/** GET /metrics every second until stopped, as Prometheus does. */
function scraper(url: string): { stop(): Promise<Scrapes> } {
  const scrapes: Scrapes = { count: 0, failed: 0, bytes: 0, ms: [] };
  let running: Promise<void> = Promise.resolve();
  const scrape = async () => {
    const started = performance.now();
    try {
      const res = await fetch(`${url}/metrics`, { headers: { authorization: `Bearer ${SCRAPE_TOKEN}` } });
      const text = await res.text();
      if (res.status !== 200) throw new Error(`${res.status} ${text.slice(0, 200)}`);
      scrapes.count += 1;
      scrapes.bytes = text.length;
      scrapes.ms.push(performance.now() - started);
    } catch (err) {
      scrapes.failed += 1;
      if (scrapes.failed === 1) console.log(`  (a scrape failed: ${err instanceof Error ? err.message : err})`);
    }
  };
  const timer = setInterval(() => (running = scrape()), SCRAPE_EVERY_MS);
  return {
    stop: async () => {
      clearInterval(timer);
      await running;
      return scrapes;
    },
  };
}

export async function metricsScenario(opts: BenchOptions, target: MetricsTarget, rounds: number): Promise<MetricsRow[]> {
  const rows: MetricsRow[] = [];
  const variants: Array<MetricsRow['variant']> = ['off', 'on'];
  const servers: Partial<Record<MetricsRow['variant'], Served>> = {};
  try {
    servers.off = await startServed(target.databaseUrl, 1, { ...target.databaseEnv, CHARTA_METRICS: 'off' });
    servers.on = await startServed(target.databaseUrl, 1, { ...target.databaseEnv, CHARTA_METRICS: 'on', CHARTA_METRICS_TOKEN: SCRAPE_TOKEN });
    const pids = { off: processTree(servers.off.child.pid!), on: processTree(servers.on.child.pid!) };
    const all = [...pids.off, ...pids.on];
    const spec = (variant: MetricsRow['variant']) => ({
      url: servers[variant]!.url,
      connections: opts.connections,
      headers: { authorization: `Bearer ${target.token}` },
      requests: target.requests,
    });
    for (let round = 1; round <= rounds; round++) {
      if (opts.quietWait > 0) await waitForQuiet(all, 0.25, opts.quietWait, true);
      if (opts.warmup > 0) {
        await Promise.all(variants.map((v) => measure({ ...spec(v), duration: opts.warmup })));
        await waitForIdle(all, 60);
      }
      // Both at once: whatever else the machine does falls on both alike.
      const scraping = scraper(servers.on.url);
      const meters = variants.map((v) => cpuMeter(pids[v]));
      const results = await Promise.all(variants.map((v) => measure({ ...spec(v), duration: opts.duration })));
      const cpus = meters.map((stop) => stop());
      const scrapes = await scraping.stop();
      await waitForIdle(all, 60);
      for (const [i, variant] of variants.entries()) {
        const r = results[i]!;
        const cpu = cpus[i]!;
        const on = variant === 'on';
        const row: MetricsRow = {
          engine: target.engine,
          variant,
          round,
          request: on ? `${target.request}, CHARTA_METRICS=on, GET /metrics every ${SCRAPE_EVERY_MS / 1000} s` : `${target.request}, CHARTA_METRICS=off`,
          ...r,
          cpu,
          // PostgreSQL's CPU serves both servers at once here: each is given the server process's own.
          serverMicrosPerRequest: r.ok > 0 ? (cpu.server * cpu.seconds * 1e6) / r.ok : NaN,
          scrapes: on ? scrapes.count : 0,
          scrapeFailures: on ? scrapes.failed : 0,
          scrapeP50Ms: on ? median(scrapes.ms) : NaN,
          scrapeBytes: on ? scrapes.bytes : 0,
        };
        rows.push(row);
        console.log(
          `${target.engine.padEnd(8)}  metrics ${variant.padEnd(3)} round ${round}  ${Math.round(r.okPerSecond).toLocaleString('en-US').padStart(7)} req/s  p50 ${r.p50.toFixed(2)} ms  p99 ${r.p99.toFixed(2)} ms  ` +
            `server ${Math.round(row.serverMicrosPerRequest)} µs/req  cpu other ${cpu.other.toFixed(2)}` +
            (on ? `  ${scrapes.count} scrapes (p50 ${row.scrapeP50Ms.toFixed(1)} ms, ${(row.scrapeBytes / 1024).toFixed(0)} KiB)` : '') +
            (r.non2xx + r.errors + r.timeouts ? `  non-2xx ${r.non2xx} errors ${r.errors} timeouts ${r.timeouts} ${JSON.stringify(r.statusCodes)}` : ''),
        );
      }
    }
  } finally {
    for (const [variant, served] of Object.entries(servers)) await stopServed(served, `metrics ${variant}`);
  }
  const summary = metricsSummary(rows).find((s) => s.engine === target.engine);
  if (summary !== undefined)
    console.log(
      `${target.engine.padEnd(8)}  metrics on ÷ off (median of ${summary.rounds} rounds): req/s ${summary.rateRatio.toFixed(3)}, p99 ${summary.p99Ratio.toFixed(3)}, server µs/req ${summary.cpuRatio.toFixed(3)}`,
    );
  return rows;
}

/** Per engine, metrics on ÷ off in each round (both measured at once), and the median over the rounds: req/s, p99, server CPU per request. */
export function metricsSummary(rows: MetricsRow[]): Array<{ engine: string; rounds: number; rateRatio: number; p99Ratio: number; cpuRatio: number }> {
  const engines = [...new Set(rows.map((r) => r.engine))];
  return engines.map((engine) => {
    const pairs = [...new Set(rows.filter((r) => r.engine === engine).map((r) => r.round))].flatMap((round) => {
      const of = (variant: MetricsRow['variant']) => rows.find((r) => r.engine === engine && r.round === round && r.variant === variant);
      const [on, off] = [of('on'), of('off')];
      return on === undefined || off === undefined ? [] : [{ on, off }];
    });
    const ratio = (value: (r: MetricsRow) => number) => median(pairs.map(({ on, off }) => value(on) / value(off)));
    return {
      engine,
      rounds: pairs.length,
      rateRatio: ratio((r) => r.okPerSecond),
      p99Ratio: ratio((r) => r.p99),
      cpuRatio: ratio((r) => r.serverMicrosPerRequest),
    };
  });
}

/** What metrics add on the way of a request, timed alone in a loop (µs per call, the median of 5 runs of 1M calls each), and prom-client's part of a scrape (ms). */
export interface HookCost {
  requestMicros: number;
  connectionWaitMicros: number;
  scrapeMs: number;
}

/**
 * The per-request work of metrics measured without a server: the request hook's counter and
 * histogram (Metrics.request, three route patterns in turn) and a pool wait's histogram, each
 * 1M times, five times over; and the text of a scrape with no database and no runner behind it.
 */
export async function hookCost(): Promise<HookCost> {
  const metrics = new Metrics({
    storage: { engine: 'postgres', pools: () => [], reader: undefined as never, groupCommit: undefined },
    logs: { subscribers: 0, droppedLines: 0 },
    runnerStats: async () => null,
  });
  const routes = ['/core/api/v1/commands/:uuid', '/core/api/v1/notes/:uuid', '/core/api/v1/commands'];
  const N = 1_000_000;
  const time = (call: (i: number) => void) => {
    const runs: number[] = [];
    for (let run = 0; run < 5; run++) {
      const started = performance.now();
      for (let i = 0; i < N; i++) call(i);
      runs.push(((performance.now() - started) * 1000) / N);
    }
    return median(runs);
  };
  const requestMicros = time((i) => metrics.request('GET', routes[i % 3]!, 200, 0.004));
  const connectionWaitMicros = time(() => metrics.storage.waitedFor('main', 0.0001));
  const scrapes: number[] = [];
  for (let i = 0; i < 20; i++) {
    const started = performance.now();
    await metrics.local();
    scrapes.push(performance.now() - started);
  }
  return { requestMicros, connectionWaitMicros, scrapeMs: median(scrapes) };
}
