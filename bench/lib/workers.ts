// Serving set-ups measured against each other, each as the real `charta-server start` on the
// engine's seeded database, the first set-up the reference of every ratio:
// * `workers` (docs/performance.md, "Multi-process serving"): `--workers 1` (one process, no fork)
//   and `--workers 2`, GET and create. PostgreSQL only: `--workers` above 1 is refused on SQLite
//   (docs/configuration.md, "Multi-process serving").
// * `read-threads` (docs/performance.md, "Reads in threads"): SQLite with
//   CHARTA_SQLITE_READ_THREADS 0 (every read on the event loop), 1 and 2; GET and the list pages.
// The server's CPU is that of the whole process tree (the primary and its workers; the threads are
// the process's). Set-ups are measured in rounds, the order reversed every other round; a path's
// ratio is the median of its rounds' req/s ÷ that of the reference in the same round.
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import type autocannon from 'autocannon';
import { TEST_API_KEY, TEST_CLIENT_ID, TEST_CLIENT_SECRET } from '../../packages/server/test/support/harness.ts';
import { cpuMeter, processTree, waitForIdle, waitForQuiet } from './cpu.ts';
import { median, mergeRounds } from './format.ts';
import { measure } from './load.ts';
import type { BenchOptions } from './options.ts';
import type { WorkersRow } from './report.ts';

const BIN = path.resolve(import.meta.dirname, '../../packages/server/bin/charta-server.js');
/** One way of starting the server. */
export interface ServeSetup {
  /** As the report shows it: `--workers 2`, `read threads 1`. */
  label: string;
  workers: number;
  env?: Record<string, string>;
}

/** The workers scenario's set-ups, in order; the first is the reference of the ratio. */
export const WORKER_SETUPS: ServeSetup[] = [1, 2].map((n) => ({ label: `--workers ${n}`, workers: n }));

/** The read-threads scenario's (SQLite): 0 is every read on the event loop, the reference. */
export const READ_THREAD_SETUPS: ServeSetup[] = [0, 1, 2].map((n) => ({
  label: `read threads ${n}`,
  workers: 1,
  env: { CHARTA_SQLITE_READ_THREADS: String(n) },
}));

/** What to load a server with: one of the Commands API scenarios (GET and create for workers; GET and the lists for read-threads). */
export interface WorkersPath {
  name: string;
  request: string;
  requests: autocannon.Request[];
}

export interface WorkersTarget {
  engine: string;
  databaseUrl: string;
  /** The rest of a process's environment on that database (its secret key's file). */
  databaseEnv: Record<string, string>;
  /** A bearer token of the bootstrap client (valid on any process on the database). */
  token: string;
  paths: WorkersPath[];
}

export interface Served {
  child: ChildProcess;
  url: string;
  exited: Promise<number | null>;
}

/** `charta-server start --workers N` on the database (with `extraEnv`); resolves once it listens (all workers). */
export async function startServed(databaseUrl: string, workers: number, extraEnv: NodeJS.ProcessEnv = {}): Promise<Served> {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('CHARTA_')) env[k] = v;
  Object.assign(env, {
    CHARTA_DATABASE_URL: databaseUrl,
    CHARTA_HOST: '127.0.0.1',
    CHARTA_PORT: '0',
    CHARTA_LOG_LEVEL: 'error',
    CHARTA_DEMO: '0',
    CHARTA_BOOTSTRAP_API_KEY: TEST_API_KEY,
    CHARTA_BOOTSTRAP_CLIENT_ID: TEST_CLIENT_ID,
    CHARTA_BOOTSTRAP_CLIENT_SECRET: TEST_CLIENT_SECRET,
    ...extraEnv,
  });
  const child = spawn(process.execPath, [BIN, 'start', '--workers', String(workers)], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (out += c.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`--workers ${workers}: not listening within 60 s:\n${out}`)), 60_000);
    child.stdout!.on('data', () => {
      const m = /Charta is listening on (http:\/\/\S+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    });
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`--workers ${workers}: exited with ${code} before listening:\n${out}`));
    });
  });
  return { child, url, exited };
}

/** SIGTERM, and its exit awaited; an exit other than 0 is said. */
export async function stopServed(served: Served, what: string): Promise<void> {
  served.child.kill('SIGTERM');
  const code = await served.exited;
  if (code !== 0) console.log(`  (${what} exited with ${code} after SIGTERM)`);
}

export async function servedScenario(opts: BenchOptions, target: WorkersTarget, setups: ServeSetup[], rounds: number): Promise<WorkersRow[]> {
  const measured = new Map<string, WorkersRow[]>();
  const key = (setup: ServeSetup, p: WorkersPath) => `${setup.label}|${p.name}`;
  for (let round = 0; round < rounds; round++) {
    for (const setup of round % 2 === 0 ? setups : [...setups].reverse()) {
      const served = await startServed(target.databaseUrl, setup.workers, { ...target.databaseEnv, ...setup.env });
      try {
        // The tree is taken once the workers listen: the primary, its workers (and any plugin runner).
        const pids = processTree(served.child.pid!);
        for (const p of target.paths) {
          const spec = { url: served.url, connections: opts.connections, headers: { authorization: `Bearer ${target.token}` }, requests: p.requests };
          if (opts.quietWait > 0) await waitForQuiet(pids, 0.25, opts.quietWait, true);
          if (opts.warmup > 0) {
            await measure({ ...spec, duration: opts.warmup });
            await waitForIdle(pids, 60);
          }
          const stop = cpuMeter(pids);
          const r = await measure({ ...spec, duration: opts.duration });
          const cpu = stop();
          await waitForIdle(pids, 60);
          const serverCores = cpu.server + (target.engine === 'postgres' ? cpu.postgres : 0);
          const row: WorkersRow = {
            engine: target.engine,
            path: p.name,
            setup: setup.label,
            workers: setup.workers,
            processes: pids.length,
            request: `${p.request}, charta-server start (${setup.label})`,
            ...r,
            cpu,
            serverMicrosPerRequest: r.ok > 0 ? (serverCores * cpu.seconds * 1e6) / r.ok : NaN,
            scaling: 1,
          };
          measured.set(key(setup, p), [...(measured.get(key(setup, p)) ?? []), row]);
          console.log(
            `${target.engine.padEnd(8)}  ${p.name.padEnd(12)} ${setup.label.padEnd(16)} ${Math.round(r.okPerSecond).toLocaleString('en-US').padStart(7)} req/s  p50 ${r.p50.toFixed(2)} ms  p99 ${r.p99.toFixed(2)} ms  ` +
              `cpu client ${cpu.client.toFixed(2)} server ${cpu.server.toFixed(2)} pg ${cpu.postgres.toFixed(2)} other ${cpu.other.toFixed(2)}` +
              (rounds > 1 ? `  (round ${round + 1})` : '') +
              (r.non2xx + r.errors + r.timeouts ? `  non-2xx ${r.non2xx} errors ${r.errors} timeouts ${r.timeouts} ${JSON.stringify(r.statusCodes)}` : ''),
          );
        }
      } finally {
        await stopServed(served, setup.label);
      }
    }
  }
  const rows: WorkersRow[] = [];
  for (const setup of setups)
    for (const p of target.paths) {
      const all = measured.get(key(setup, p))!;
      const reference = measured.get(key(setups[0]!, p))!;
      const ratios = all.map((r, i) => r.okPerSecond / reference[i]!.okPerSecond);
      const row = { ...mergeRounds(all), scaling: median(ratios), ...(rounds > 1 ? { roundScalings: ratios } : {}) };
      rows.push(row);
      if (setup !== setups[0])
        console.log(
          `${target.engine.padEnd(8)}  ${p.name.padEnd(12)} ${setup.label}: ${row.scaling.toFixed(2)} × the rate with ${setups[0]!.label}` +
            (rounds > 1 ? ` (the median of ${ratios.map((x) => x.toFixed(2)).join(', ')})` : ''),
        );
    }
  return rows;
}
