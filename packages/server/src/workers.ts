// Multi-process serving (docs/configuration.md, "Multi-process serving"): `charta-server start
// --workers N`, PostgreSQL only. The primary prepares the database once (migrations, starter
// data, bootstrap and first-start credentials, demo data), forks N workers with node:cluster,
// which share the listening port, and prints the welcome text once all of them listen. A worker
// opens its own pool, plugin runner and log relay and serves; it never migrates and never prints
// credentials. The primary replaces a worker that dies (with back-off) and on SIGTERM or SIGINT
// stops them all gracefully: it exits 0, or 1 if any worker had to cut requests off.
import cluster, { type Worker } from 'node:cluster';
import os from 'node:os';
import type { Config } from './config.ts';
import { prepareStorage, startServer, welcome } from './server.ts';
import { stopOnSignals } from './shutdown.ts';
import { answerPrimary, gatherForWorkers, joinWorkers } from './metrics/cluster.ts';

/** Set by the primary in each worker's environment: the worker's slot, 1 to N. */
const SLOT_VARIABLE = 'CHARTA_WORKER_SLOT';
/** A worker's message to the primary once it listens. */
const LISTENING = 'charta:listening';
/** The first replacement of a dead worker waits this long; each further one in a row twice as long… */
const BACKOFF_MS = 500;
/** …up to this. */
const MAX_BACKOFF_MS = 30_000;
/** A worker that served this long before dying starts the back-off over. */
const STABLE_MS = 60_000;
/** After CHARTA_SHUTDOWN_TIMEOUT, how long a worker still gets to exit before it is killed. */
const SHUTDOWN_GRACE_MS = 5_000;

/** True in a process the primary forked (not in one run under another cluster manager). */
export function isWorker(): boolean {
  return cluster.isWorker && process.env[SLOT_VARIABLE] !== undefined;
}

/** The worker side: serve on the prepared database, tell the primary where, stop on its SIGTERM. */
export async function runWorker(config: Config): Promise<void> {
  // A scrape reaching any worker answers every worker's metrics, each labelled with its slot (metrics/cluster.ts).
  if (config.metrics) answerPrimary();
  const running = await startServer(config, () => undefined, { prepared: true });
  if (running.app.metrics !== null) joinWorkers(running.app.metrics, Number(process.env[SLOT_VARIABLE]));
  stopOnSignals(running, config);
  // If the primary dies, node:cluster ends its workers at once (nothing would hand them connections).
  process.send!({ type: LISTENING, url: running.url });
}

interface Slot {
  n: number;
  worker: Worker | undefined;
  startedAt: number;
  /** The worker of this slot has answered LISTENING. */
  listening: boolean;
  /** Replacements in a row without a worker that lived STABLE_MS. */
  restarts: number;
  timer: NodeJS.Timeout | undefined;
}

/** The primary side. Resolves once every worker listens; the process then lives until stopped. */
export async function runPrimary(config: Config, announce: (text: string) => void = (t) => process.stdout.write(t)): Promise<void> {
  if (!cluster.isPrimary) throw new Error('--workers needs charta-server to be the primary process, not a worker of another cluster manager');
  const log = primaryLog(config.logLevel);
  const { storage, firstStart, secretKey } = await prepareStorage(config);
  await storage.close();
  if (config.metrics) gatherForWorkers();

  const slots: Slot[] = Array.from({ length: config.workers }, (_, i) => ({
    n: i + 1,
    worker: undefined,
    startedAt: 0,
    listening: false,
    restarts: 0,
    timer: undefined,
  }));
  let phase: 'starting' | 'serving' | 'stopping' | 'failed' = 'starting';
  let cutOff = false;
  let startup!: { resolve: () => void; reject: (err: Error) => void };
  const started = new Promise<void>((resolve, reject) => (startup = { resolve, reject }));

  const fork = (slot: Slot) => {
    slot.timer = undefined;
    const worker = cluster.fork({ [SLOT_VARIABLE]: String(slot.n) });
    Object.assign(slot, { worker, startedAt: Date.now(), listening: false });
    worker.on('message', (message: { type?: string; url?: string }) => {
      if (message?.type !== LISTENING || slot.worker !== worker) return;
      slot.listening = true;
      if (phase === 'serving') log('info', { worker: slot.n, workerPid: worker.process.pid }, 'worker replaced: the new one listens');
      if (phase === 'starting' && slots.every((s) => s.listening)) {
        phase = 'serving';
        announce(welcome(message.url!, config, firstStart, secretKey.lines));
        startup.resolve();
      }
    });
    worker.on('exit', (code, signal) => exited(slot, worker, code, signal));
  };

  const exited = (slot: Slot, worker: Worker, code: number | null, signal: string | null) => {
    if (slot.worker !== worker) return;
    const served = slot.listening;
    Object.assign(slot, { worker: undefined, listening: false });
    const how = signal ? `signal ${signal}` : `exit code ${code}`;
    if (phase === 'failed') return; // runPrimary waits for every worker, then fails
    if (phase === 'stopping') {
      // A worker that served and did not exit 0 cut requests off (it said so on stderr).
      if (served && code !== 0) {
        cutOff = true;
        console.error(`charta-server: worker ${slot.n} (pid ${worker.process.pid}) ended its shutdown with ${how}`);
      }
      if (slots.every((s) => s.worker === undefined)) process.exit(cutOff ? 1 : 0);
      return;
    }
    if (phase === 'starting') {
      // A worker that cannot start (address in use, database refused) fails the start.
      phase = 'failed';
      for (const s of slots) s.worker?.process.kill('SIGTERM');
      startup.reject(new Error(`worker ${slot.n} exited before listening (${how})`));
      return;
    }
    if (Date.now() - slot.startedAt >= STABLE_MS) slot.restarts = 0;
    const delay = Math.min(MAX_BACKOFF_MS, BACKOFF_MS * 2 ** slot.restarts);
    slot.restarts += 1;
    log('error', { worker: slot.n, workerPid: worker.process.pid, exit: how, restartInMs: delay }, 'worker died unexpectedly; starting a replacement');
    slot.timer = setTimeout(() => fork(slot), delay);
  };

  const stop = (signal: string) => {
    if (phase === 'stopping' || phase === 'failed') return;
    phase = 'stopping';
    log('info', { signal, timeoutMs: config.shutdownTimeoutMs, workers: slots.filter((s) => s.worker).length }, 'shutting down');
    for (const slot of slots) {
      clearTimeout(slot.timer);
      slot.timer = undefined;
      slot.worker?.process.kill('SIGTERM');
    }
    if (slots.every((s) => s.worker === undefined)) process.exit(0);
    // A worker stops itself within CHARTA_SHUTDOWN_TIMEOUT; one that does not is killed.
    setTimeout(() => {
      for (const slot of slots) {
        if (slot.worker === undefined) continue;
        console.error(
          `charta-server: worker ${slot.n} (pid ${slot.worker.process.pid}) still running ${SHUTDOWN_GRACE_MS} ms after the shutdown timeout; killed`,
        );
        cutOff = true;
        slot.worker.process.kill('SIGKILL');
      }
    }, config.shutdownTimeoutMs + SHUTDOWN_GRACE_MS).unref();
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));

  for (const slot of slots) fork(slot);
  try {
    await started;
  } catch (err) {
    // The others were asked to stop; wait for them, so none outlives the failed start.
    const left = slots.flatMap((s) => (s.worker ? [s.worker] : []));
    await Promise.all(left.map((w) => new Promise((resolve) => w.once('exit', resolve))));
    throw err;
  }
}

type Level = 'info' | 'warn' | 'error';
const LEVELS: Record<string, number> = { trace: 10, debug: 20, info: 30, warn: 40, error: 50, fatal: 60, silent: Infinity };

/** The primary's own lines, shaped like the workers' (pino: level number, time, pid, hostname, msg). */
function primaryLog(threshold: string): (level: Level, fields: Record<string, unknown>, msg: string) => void {
  const hostname = os.hostname();
  return (level, fields, msg) => {
    if (LEVELS[level]! < LEVELS[threshold]!) return;
    process.stdout.write(JSON.stringify({ level: LEVELS[level], time: Date.now(), pid: process.pid, hostname, role: 'primary', ...fields, msg }) + '\n');
  };
}
