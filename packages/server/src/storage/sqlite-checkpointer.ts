// SQLite checkpoints off the event loop (docs/performance.md, "Issue 12: what changed"). In WAL
// mode a commit appends to the log, and every thousand pages SQLite copies the log back into the
// database file and syncs it: a checkpoint, which the writer ran inside a COMMIT on the server's
// one event loop, so every request waited for the disk. The writer's automatic checkpoints are
// off; a worker thread with its own connection runs a PASSIVE checkpoint (it never blocks a
// writer or a reader) a few times a second while the log grows. Durability is unchanged: a
// commit is in the log when it is acknowledged, whether or not it has been copied back yet.
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

/** How often the worker looks at the log, ms. */
const INTERVAL_MS = 200;

// Plain JavaScript run by the worker: no TypeScript loader is needed in the thread.
const WORKER = `
const { workerData, parentPort } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.file);
db.pragma('busy_timeout = 5000');
// [checkpoints that copied pages, pages copied]: read by the server's thread (Checkpointer.stats).
const counts = new Int32Array(workerData.counts);
const timer = setInterval(() => {
  try {
    const [result] = db.pragma('wal_checkpoint(PASSIVE)');
    if (result !== undefined && result.checkpointed > 0) {
      Atomics.add(counts, 0, 1);
      Atomics.add(counts, 1, result.checkpointed);
    }
  } catch {
    // Busy or gone: the next tick tries again; the writer's log only grows meanwhile.
  }
}, workerData.interval);
parentPort.on('message', () => {
  clearInterval(timer);
  db.close();
  parentPort.close();
});
`;

export interface Checkpointer {
  /** Stops the worker and closes its connection. */
  close(): Promise<void>;
  /**
   * Checkpoints that copied pages back into the database file, and the pages they copied, since
   * the start (for the bench's writes figures, docs/performance.md): in WAL mode with synchronous
   * NORMAL a commit is not synced, a checkpoint syncs the log and then the database file.
   */
  stats(): CheckpointStats;
}

export interface CheckpointStats {
  checkpoints: number;
  pages: number;
}

/** Starts the background checkpointer of the SQLite database in `file`. */
export function startCheckpointer(file: string): Checkpointer {
  const driver = createRequire(import.meta.url).resolve('better-sqlite3');
  const counts = new SharedArrayBuffer(8);
  const view = new Int32Array(counts);
  const worker = new Worker(WORKER, { eval: true, workerData: { file, driver, interval: INTERVAL_MS, counts } });
  // The worker must never keep the process alive, nor end it: a failure only stops checkpoints
  // (the log then grows until the next start; SQLite checkpoints when the last connection closes).
  worker.unref();
  worker.on('error', () => undefined);
  const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
  return {
    stats: () => ({ checkpoints: Atomics.load(view, 0), pages: Atomics.load(view, 1) }),
    close: async () => {
      // Its exit is awaited: held, or the process could end first (after the timeout below, say).
      worker.ref();
      worker.postMessage('close');
      const timeout = setTimeout(() => void worker.terminate(), 2000);
      await exited;
      clearTimeout(timeout);
    },
  };
}
