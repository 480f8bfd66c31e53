// Group commit for SQLite. Every write waits for its COMMIT, and a COMMIT costs far more than
// the statements before it (each changed page is one write to the log). Writes that arrive
// while a batch runs form the next batch: one transaction, one savepoint per write, one COMMIT.
// A write that fails rolls back to its savepoint and fails alone (unless SQLite rolled back the
// whole transaction, as on a full disk: then the batch fails with that write's error); an answer
// is only given once its batch is committed, so nothing acknowledged can be lost.
//
// A write may hold checks that are still running (storage/holds.ts: a plugin's PRE handler). The
// next writes do not wait for them: each write's savepoint is opened inside the one before, and
// before the COMMIT the checks are awaited in the order of the writes. A check that refuses
// rolls back to its write's savepoint, which also undoes every write after it; those ran on top
// of the refused write, so they are run again (docs/plugins.md "Delivery and guarantees").
// A check still running PARK_AFTER_MS later does not hold the batch either: its write is set
// aside the same way (the writes after it run again without it and commit), and runs again in a
// later batch once its check has settled; the plugin runtime answers that second run's check
// from the first one's decision when the change is the same (runtime/dispatch.ts).
import { CompiledQuery, type Kysely } from 'kysely';
import type { Database } from './schema.ts';
import { holds, type Hold } from './holds.ts';
import { runAsync, withDirectRun, type RunStatement } from './sqlite-direct.ts';

type Work<T> = (trx: Kysely<Database>, hold: Hold) => Promise<T>;

interface Job {
  work: Work<unknown>;
  /** When it joined the queue (performance.now()): its wait for a batch, for the metrics. */
  queuedAt: number;
  resolve(value: unknown): void;
  reject(reason: unknown): void;
  /** Times it was set aside for a slow check. */
  parked: number;
}

type Result = { ok: true; value: unknown } | { ok: false; error: unknown };

/** What the metrics learn of each batch (docs/operations.md, "Monitoring"): O(1) a batch, and a write. */
export interface GroupCommitObserver {
  /** A transaction begins with `writes` writes. */
  batch(writes: number): void;
  /** A write waited this long in the queue before its transaction began, in seconds. */
  waited(seconds: number): void;
}

/** A write that ran in this transaction: its savepoint, its checks, what it gave. */
interface Ran {
  job: Job;
  savepoint: string;
  settled(): Promise<void>;
  result: Result;
}

// Compiled once: these run for every write.
const BEGIN = CompiledQuery.raw('BEGIN IMMEDIATE');
const COMMIT = CompiledQuery.raw('COMMIT');
const ROLLBACK = CompiledQuery.raw('ROLLBACK');

/** Most writes in one transaction; keeps one batch's latency bounded. */
const MAX_BATCH = 64;
/** How long a batch waits for a write's check before it sets the write aside. */
export const PARK_AFTER_MS = 100;
/** A write is set aside at most this often; then its batch waits for its check. */
const MAX_PARKS = 2;

const SLOW = Symbol('slow');

export class GroupCommit {
  private readonly queue: Job[] = [];
  private running = false;
  /** Transactions committed or rolled back, writes run in them, and writes set aside for a slow check (for tests and metrics). */
  readonly stats = { batches: 0, writes: 0, parked: 0 };
  /** Told of every batch and write's wait when set (the metrics). */
  observer: GroupCommitObserver | undefined;

  /**
   * `direct`, when given, runs statements on the connection `db` opens (its write connection): the
   * batch's own statements and the compiled ones of its writes then skip Kysely's executor
   * (sqlite-direct.ts).
   */
  constructor(
    private readonly db: Kysely<Database>,
    private readonly direct?: RunStatement,
  ) {}

  /** Runs `query` on the batch's connection `conn`. */
  private exec(conn: Kysely<Database>, query: CompiledQuery): Promise<unknown> {
    return this.direct === undefined ? conn.executeQuery(query) : runAsync(this.direct, query.sql, query.parameters);
  }

  run<T>(work: Work<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.enqueue({ work, resolve: resolve as (v: unknown) => void, reject, parked: 0, queuedAt: 0 });
    });
  }

  /** Writes waiting for a batch, and whether one runs now (the writer queue of the metrics). */
  get queued(): number {
    return this.queue.length;
  }

  get busy(): boolean {
    return this.running;
  }

  private enqueue(job: Job): void {
    if (this.observer !== undefined) job.queuedAt = performance.now();
    this.queue.push(job);
    if (!this.running) {
      this.running = true;
      // A batch runs entirely in microtasks, so no request can join it once it starts. Start
      // after the current I/O phase instead: every request already received gets in.
      setImmediate(() => void this.drain());
    }
  }

  private async drain(): Promise<void> {
    try {
      while (this.queue.length > 0) await this.batch(this.queue.splice(0, MAX_BATCH));
    } finally {
      this.running = false;
    }
  }

  private async batch(jobs: Job[]): Promise<void> {
    this.stats.batches += 1;
    this.stats.writes += jobs.length;
    const observer = this.observer;
    if (observer !== undefined) {
      observer.batch(jobs.length);
      const now = performance.now();
      for (const job of jobs) observer.waited(job.queuedAt === 0 ? 0 : (now - job.queuedAt) / 1000);
    }
    const results = new Map<Job, Result>();
    const parked = new Set<Job>();
    try {
      await this.db.connection().execute(async (conn) => {
        const transaction = async () => {
          await this.exec(conn, BEGIN);
          try {
            let next = jobs;
            for (let round = 0; next.length > 0; round++) next = await this.round(conn, next, round, results, parked);
            await this.exec(conn, COMMIT);
          } catch (error) {
            await this.exec(conn, ROLLBACK).catch(() => undefined);
            throw error;
          }
        };
        await (this.direct === undefined ? transaction() : withDirectRun(conn, this.direct, transaction));
      });
    } catch (error) {
      // The batch as a whole did not commit: every write in it failed (those set aside run later).
      for (const job of jobs) if (!parked.has(job)) job.reject(error);
      return;
    }
    for (const job of jobs) {
      const result = results.get(job);
      // A write set aside is answered by the batch it runs in later.
      if (result === undefined) continue;
      if (result.ok) job.resolve(result.value);
      else job.reject(result.error);
    }
  }

  /**
   * Runs `jobs` in order, each in a savepoint inside the one before, then awaits their checks in
   * the same order. Gives the jobs to run again: those after a write a check refused.
   */
  private async round(conn: Kysely<Database>, jobs: Job[], round: number, results: Map<Job, Result>, parked: Set<Job>): Promise<Job[]> {
    const ran: Ran[] = [];
    for (const job of jobs) {
      const savepoint = `w${round}_${ran.length}`;
      await this.exec(conn, CompiledQuery.raw(`SAVEPOINT ${savepoint}`));
      const checks = holds();
      let result: Result;
      try {
        result = { ok: true, value: await job.work(conn, checks.hold) };
      } catch (error) {
        await this.rollbackTo(conn, savepoint, error);
        result = { ok: false, error };
      }
      ran.push({ job, savepoint, settled: checks.settled, result });
    }
    for (const [i, { job, savepoint, settled, result }] of ran.entries()) {
      if (result.ok) {
        const checks = settled();
        // Looked at below, possibly not at all (a write set aside): a refusal is not unhandled.
        checks.catch(() => undefined);
        try {
          if (job.parked < MAX_PARKS ? (await within(checks, PARK_AFTER_MS)) === SLOW : (await checks, false)) {
            // Set aside until its check settles; the writes after it run again without it.
            await this.rollbackTo(conn, savepoint, new Error('a write set aside could not be undone'));
            parked.add(job);
            this.park(job, checks);
            return ran.slice(i + 1).map((r) => r.job);
          }
        } catch (error) {
          await this.rollbackTo(conn, savepoint, error);
          results.set(job, { ok: false, error });
          return ran.slice(i + 1).map((r) => r.job);
        }
      }
      results.set(job, result);
    }
    return [];
  }

  /** Runs the write again in a later batch once its check has settled (either way). */
  private park(job: Job, checks: Promise<unknown>): void {
    job.parked += 1;
    this.stats.parked += 1;
    const again = () => this.enqueue(job);
    checks.then(again, again);
  }

  /** Undoes a write (and every write after it). If SQLite already rolled the whole transaction back, the batch fails with `error`. */
  private async rollbackTo(conn: Kysely<Database>, savepoint: string, error: unknown): Promise<void> {
    try {
      await this.exec(conn, CompiledQuery.raw(`ROLLBACK TO ${savepoint}`));
    } catch {
      // SQLite rolled the whole transaction back itself (a full disk, an I/O error): the batch
      // failed, with this write's error rather than the missing savepoint's.
      throw error;
    }
  }
}

/** `promise`'s value, or SLOW if it has not settled within `ms`. */
function within<T>(promise: Promise<T>, ms: number): Promise<T | typeof SLOW> {
  let timer: NodeJS.Timeout | undefined;
  const slow = new Promise<typeof SLOW>((resolve) => (timer = setTimeout(() => resolve(SLOW), ms)));
  return Promise.race([promise, slow]).finally(() => clearTimeout(timer));
}
