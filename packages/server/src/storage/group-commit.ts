// Group commit for SQLite. Every write waits for its COMMIT, and a COMMIT costs far more than
// the statements before it (each changed page is one write to the log). Writes that arrive
// while a batch runs form the next batch: one transaction, one savepoint per write, one COMMIT.
// A write that fails rolls back to its savepoint and fails alone (unless SQLite rolled back the
// whole transaction, as on a full disk: then the batch fails with that write's error); an answer
// is only given once its batch is committed, so nothing acknowledged can be lost.
import { CompiledQuery, type Kysely } from 'kysely';
import type { Database } from './schema.ts';

type Work<T> = (trx: Kysely<Database>) => Promise<T>;

interface Job {
  work: Work<unknown>;
  resolve(value: unknown): void;
  reject(reason: unknown): void;
}

// Compiled once: these run for every write.
const BEGIN = CompiledQuery.raw('BEGIN IMMEDIATE');
const SAVEPOINT = CompiledQuery.raw('SAVEPOINT write');
const RELEASE = CompiledQuery.raw('RELEASE write');
const ROLLBACK_TO = CompiledQuery.raw('ROLLBACK TO write');
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
    const outcomes: Array<{ ok: true; value: unknown } | { ok: false; error: unknown }> = [];
    try {
      await this.db.connection().execute(async (conn) => {
        await conn.executeQuery(BEGIN);
        try {
          for (const job of jobs) {
            await conn.executeQuery(SAVEPOINT);
            try {
              const value = await job.work(conn);
              await conn.executeQuery(RELEASE);
              outcomes.push({ ok: true, value });
            } catch (error) {
              try {
                await conn.executeQuery(ROLLBACK_TO);
                await conn.executeQuery(RELEASE);
              } catch {
                // SQLite rolled the whole transaction back itself (a full disk, an I/O error): the
                // batch failed, with this write's error rather than the missing savepoint's.
                throw error;
              }
              outcomes.push({ ok: false, error });
            }
          }
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
    jobs.forEach((job, i) => {
      const outcome = outcomes[i]!;
      if (outcome.ok) job.resolve(outcome.value);
      else job.reject(outcome.error);
    });
  }
}
