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
import { CompiledQuery, type Kysely } from 'kysely';
import type { Database } from './schema.ts';
import { holds, type Hold } from './holds.ts';

type Work<T> = (trx: Kysely<Database>, hold: Hold) => Promise<T>;

interface Job {
  work: Work<unknown>;
  resolve(value: unknown): void;
  reject(reason: unknown): void;
}

type Result = { ok: true; value: unknown } | { ok: false; error: unknown };

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

export class GroupCommit {
  private readonly queue: Job[] = [];
  private running = false;
  /** Transactions committed or rolled back, and writes run in them (for tests and metrics). */
  readonly stats = { batches: 0, writes: 0 };

  constructor(private readonly db: Kysely<Database>) {}

  run<T>(work: Work<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ work, resolve: resolve as (v: unknown) => void, reject });
      if (!this.running) {
        this.running = true;
        // A batch runs entirely in microtasks, so no request can join it once it starts. Start
        // after the current I/O phase instead: every request already received gets in.
        setImmediate(() => void this.drain());
      }
    });
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
    const results = new Map<Job, Result>();
    try {
      await this.db.connection().execute(async (conn) => {
        await conn.executeQuery(BEGIN);
        try {
          let next = jobs;
          for (let round = 0; next.length > 0; round++) next = await this.round(conn, next, round, results);
          await conn.executeQuery(COMMIT);
        } catch (error) {
          await conn.executeQuery(ROLLBACK).catch(() => undefined);
          throw error;
        }
      });
    } catch (error) {
      // The batch as a whole did not commit: every write in it failed.
      for (const job of jobs) job.reject(error);
      return;
    }
    for (const job of jobs) {
      const result = results.get(job)!;
      if (result.ok) job.resolve(result.value);
      else job.reject(result.error);
    }
  }

  /**
   * Runs `jobs` in order, each in a savepoint inside the one before, then awaits their checks in
   * the same order. Gives the jobs to run again: those after a write a check refused.
   */
  private async round(conn: Kysely<Database>, jobs: Job[], round: number, results: Map<Job, Result>): Promise<Job[]> {
    const ran: Ran[] = [];
    for (const job of jobs) {
      const savepoint = `w${round}_${ran.length}`;
      await conn.executeQuery(CompiledQuery.raw(`SAVEPOINT ${savepoint}`));
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
        try {
          await settled();
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

  /** Undoes a write (and every write after it). If SQLite already rolled the whole transaction back, the batch fails with `error`. */
  private async rollbackTo(conn: Kysely<Database>, savepoint: string, error: unknown): Promise<void> {
    try {
      await conn.executeQuery(CompiledQuery.raw(`ROLLBACK TO ${savepoint}`));
    } catch {
      // SQLite rolled the whole transaction back itself (a full disk, an I/O error): the batch
      // failed, with this write's error rather than the missing savepoint's.
      throw error;
    }
  }
}
