// What a measured window wrote (issue "Speed, second pass", item 4; docs/performance.md,
// "Writes per request"): transactions, syncs to disk and bytes written, each per request, beside
// every Commands scenario and its bare twin (reads write too: their audit rows).
// - SQLite: transactions are the group commit's (and the bare-sqlite twin's own batches); the
//   commits of synchronous NORMAL in WAL mode are not synced: a checkpoint that copies pages back
//   syncs the log and then the file (two syncs; under FULL every commit syncs the log too); bytes are
//   what the server's process (its checkpointer thread included) dirtied in files (write_bytes of
//   /proc/<pid>/io): the log's frames and the checkpoints' copies.
// - PostgreSQL: transactions are pg_stat_database's xact_commit of the bench's database; syncs and
//   bytes are pg_stat_wal's wal_sync and wal_bytes (the log only: data pages are written later by
//   PostgreSQL's own checkpointer), cluster-wide, so other work on the cluster counts too.
import fs from 'node:fs';

/** Counters read before and after a window; the child answers all but `writeBytes`. */
export interface WriteCounters {
  transactions: number;
  /** SQLite: checkpoints that copied pages, and the pages copied. */
  checkpoints: number;
  pages: number;
  /** PostgreSQL: the WAL's bytes and syncs. */
  walBytes: number;
  walSyncs: number;
  /** SQLite: bytes the server's process dirtied in files. */
  writeBytes: number;
}

export interface WriteFigures {
  transactionsPerRequest: number;
  syncsPerRequest: number;
  bytesPerRequest: number;
}

/** write_bytes of /proc/<pid>/io (0 where it cannot be read). */
export function processWriteBytes(pid: number | undefined): number {
  if (pid === undefined) return 0;
  try {
    const m = /^write_bytes:\s*(\d+)$/m.exec(fs.readFileSync(`/proc/${pid}/io`, 'utf8'));
    return m === null ? 0 : Number(m[1]);
  } catch {
    return 0;
  }
}

export function writeFigures(engine: string, synchronous: 'normal' | 'full', before: WriteCounters, after: WriteCounters, requests: number): WriteFigures {
  const d = (k: keyof WriteCounters) => after[k] - before[k];
  const per = (n: number) => (requests > 0 ? n / requests : NaN);
  if (engine === 'postgres')
    return { transactionsPerRequest: per(d('transactions')), syncsPerRequest: per(d('walSyncs')), bytesPerRequest: per(d('walBytes')) };
  const syncs = 2 * d('checkpoints') + (synchronous === 'full' ? d('transactions') : 0);
  return { transactionsPerRequest: per(d('transactions')), syncsPerRequest: per(syncs), bytesPerRequest: per(d('writeBytes')) };
}

/** "0.25 tx · 0.8 syncs/1k · 9.1 KiB", per request. */
export const writesCell = (w: WriteFigures | undefined): string =>
  w === undefined
    ? '–'
    : `${w.transactionsPerRequest.toFixed(2)} tx · ${(w.syncsPerRequest * 1000).toFixed(1)} syncs/1k · ${(w.bytesPerRequest / 1024).toFixed(1)} KiB`;
