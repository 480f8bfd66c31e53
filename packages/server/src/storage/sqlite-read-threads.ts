// Reads on SQLite in worker threads (docs/performance.md, "Reads in threads"): each thread holds
// its own read-only connection to the file; in WAL mode every one of them sees the last committed
// state and none waits for the writer or for another reader. The server's event loop then only
// sends a statement and its parameters and takes back the rows: the statement's own work (the
// B-tree walk, the rows' values) runs on another core.
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import type { PoolUse } from './db.ts';
import { DatabaseUnavailableError, storageErrorOf } from './errors.ts';

/** Plain JavaScript run by each thread (no TypeScript loader is needed there), with `ReaderData`. */
export const READER_THREAD_SOURCE = `
const { workerData, parentPort } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.file);
for (const pragma of workerData.pragmas) db.pragma(pragma);
db.pragma('query_only = 1');
const statements = new Map();
function prepared(sql) {
  let stmt = statements.get(sql);
  if (stmt === undefined) {
    stmt = db.prepare(sql);
    if (statements.size >= 500) statements.delete(statements.keys().next().value);
    statements.set(sql, stmt);
  }
  return stmt;
}
parentPort.on('message', (m) => {
  if (m.op === 'close') {
    db.close();
    parentPort.close();
    return;
  }
  try {
    if (m.op === 'analyze') {
      // query_only refuses ANALYZE even of sqlite_schema, which only reloads the statistics.
      db.pragma('query_only = 0');
      try { db.exec('ANALYZE sqlite_schema'); } finally { db.pragma('query_only = 1'); }
      parentPort.postMessage({ id: m.id, rows: [] });
      return;
    }
    const stmt = prepared(m.sql);
    if (!stmt.reader) throw new Error('the SQLite reader threads only run queries that return rows');
    parentPort.postMessage({ id: m.id, rows: stmt.all(m.params) });
  } catch (err) {
    parentPort.postMessage({ id: m.id, error: { name: err?.name, message: String(err?.message ?? err), code: err?.code } });
  }
});
`;

/** What each thread is started with. */
export interface ReaderData {
  file: string;
  /** better-sqlite3's entry point, resolved here. */
  driver: string;
  pragmas: readonly string[];
}

/** How long close() waits for a thread to end: a statement in native code cannot be interrupted. */
const CLOSE_WAIT_MS = 5000;

interface Pending {
  resolve(rows: unknown[]): void;
  reject(err: Error): void;
}

interface Answer {
  id: number;
  rows?: unknown[];
  error?: { name?: string; message: string; code?: string };
}

/** One thread and what it has been asked and not yet answered. */
class ReadThread {
  private worker: Worker | undefined;
  private readonly pending = new Map<number, Pending>();
  private exited: Promise<void> = Promise.resolve();
  /** Closing: the thread holds the process until it has exited, whatever it still owes. */
  private closing = false;

  constructor(private readonly start: () => Worker) {}

  get inFlight(): number {
    return this.pending.size;
  }

  get running(): boolean {
    return this.worker !== undefined;
  }

  ask(id: number, message: object): Promise<unknown[]> {
    const worker = this.worker ?? this.spawn();
    // The thread keeps the process alive only while it owes an answer.
    if (this.pending.size === 0) worker.ref();
    return new Promise<unknown[]>((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      try {
        worker.postMessage(message);
      } catch (err) {
        // A value that cannot cross (DataCloneError): nothing was sent, nothing is owed.
        this.settle(id, worker);
        reject(err as Error);
      }
    });
  }

  private spawn(): Worker {
    const worker = this.start();
    this.worker = worker;
    // A thread must never keep an idle process alive, nor end it. One that stops (its connection
    // could not open, the thread ended) fails what it was asked with the database unavailable
    // (503, docs/api.md); the next read starts a new one.
    worker.unref();
    let failure: unknown;
    worker.on('message', (answer: Answer) => {
      const waiting = this.settle(answer.id, worker);
      if (waiting === undefined) return;
      if (answer.error === undefined) waiting.resolve(answer.rows!);
      else waiting.reject(Object.assign(new Error(answer.error.message), { name: answer.error.name ?? 'Error', code: answer.error.code }));
    });
    worker.on('error', (err) => (failure = err));
    this.exited = new Promise<void>((resolve) =>
      worker.once('exit', () => {
        if (this.worker === worker) this.worker = undefined;
        const err = storageErrorOf(failure) ?? new DatabaseUnavailableError('A SQLite reader thread stopped', { cause: failure });
        for (const waiting of this.pending.values()) waiting.reject(err);
        this.pending.clear();
        resolve();
      }),
    );
    return worker;
  }

  /** Takes the read `id` off what `worker` owes; the thread stops holding the process once it owes nothing. */
  private settle(id: number, worker: Worker): Pending | undefined {
    const waiting = this.pending.get(id);
    this.pending.delete(id);
    // Not while closing: the last answer of a read asked before the close would let the process
    // end before the thread's exit, which close() awaits (a test's or a shutdown's await left pending).
    if (this.pending.size === 0 && !this.closing) worker.unref();
    return waiting;
  }

  /**
   * Ends the thread once it has answered what it was asked before (or stops it, if it takes
   * longer). A thread stuck in a statement is left behind after CLOSE_WAIT_MS: it keeps no process
   * alive (unref) and ends with it.
   */
  async close(): Promise<void> {
    const worker = this.worker;
    if (worker === undefined) return;
    this.closing = true;
    worker.ref(); // its exit is awaited
    worker.postMessage({ op: 'close' });
    let timer: NodeJS.Timeout | undefined;
    const gaveUp = new Promise<void>((resolve) => {
      timer = setTimeout(() => {
        void worker.terminate();
        timer = setTimeout(resolve, CLOSE_WAIT_MS).unref();
      }, CLOSE_WAIT_MS).unref();
    });
    await Promise.race([this.exited, gaveUp]);
    clearTimeout(timer);
    worker.unref(); // one left behind, stuck in a statement, holds nothing
  }
}

/** `count` threads reading `file`, each connection opened with `pragmas`; each starts at its first read. */
export class SqliteReadThreads {
  private readonly threads: ReadThread[];
  private nextId = 0;
  private closed = false;

  /** `spawn` starts one thread (tests give a thread that can be made to fail). */
  constructor(
    file: string,
    pragmas: readonly string[],
    count: number,
    spawn = (data: ReaderData) => new Worker(READER_THREAD_SOURCE, { eval: true, workerData: data }),
  ) {
    const data: ReaderData = { file, driver: createRequire(import.meta.url).resolve('better-sqlite3'), pragmas };
    this.threads = Array.from({ length: count }, () => new ReadThread(() => spawn(data)));
  }

  /** The rows of one query, from the thread with the fewest queries waiting (a ReadRows). */
  readonly all = (sql: string, params: readonly unknown[]): Promise<unknown[]> => {
    if (this.closed) return Promise.reject(new DatabaseUnavailableError('The SQLite reader threads are closed'));
    const id = this.nextId++;
    return this.idlest().ask(id, { id, sql, params });
  };

  /**
   * The running threads reload the planner's statistics (after PRAGMA optimize on the writer); a
   * thread not started yet reads them when it opens its connection.
   */
  async analyze(): Promise<void> {
    await Promise.all(
      this.threads
        .filter((thread) => thread.running)
        .map((thread) => {
          const id = this.nextId++;
          return thread.ask(id, { op: 'analyze', id });
        }),
    );
  }

  /** Where the threads stand now (a metrics scrape: docs/operations.md, "Monitoring"). */
  use(): PoolUse {
    let busy = 0;
    let queued = 0;
    for (const thread of this.threads) {
      if (thread.inFlight > 0) busy++;
      queued += Math.max(0, thread.inFlight - 1);
    }
    return { pool: 'readers', max: this.threads.length, busy, idle: this.threads.length - busy, waiting: queued };
  }

  async close(): Promise<void> {
    this.closed = true;
    await Promise.all(this.threads.map((thread) => thread.close()));
  }

  private idlest(): ReadThread {
    let best = this.threads[0]!;
    for (const thread of this.threads) if (thread.inFlight < best.inFlight) best = thread;
    return best;
  }
}
