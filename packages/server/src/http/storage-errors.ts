// Storage's own errors (storage/errors.ts) as catalog problems (docs/errors.md, "Catalog").
// The error handler calls `storageProblem` first: a database fault is a 503 or 507, never a 500.
import {
  DatabaseBusyError,
  DatabaseUnavailableError,
  IdempotencyKeyReusedError,
  OutcomeUnknownError,
  ReadOnlyError,
  StorageFullError,
  storageErrorOf,
} from '../storage/errors.ts';
import { problem, type Problem } from './problem.ts';

/** Seconds a client should wait before retrying while the database is away or busy. */
export const RETRY_AFTER_SECONDS = 2;

const retry = { headers: { 'retry-after': String(RETRY_AFTER_SECONDS) } };

/** True for a storage error, or a raw driver error that stands for one. */
export function isStorageFault(error: unknown): boolean {
  return storageErrorOf(error) !== undefined;
}

/** The problem for a storage fault (see isStorageFault); anything else is a 500. */
export function storageProblem(error: unknown): Problem {
  const e = storageErrorOf(error);
  if (e instanceof IdempotencyKeyReusedError) return problem('idempotency_key_reused');
  if (e instanceof OutcomeUnknownError) return problem('write_outcome_unknown', retry);
  if (e instanceof StorageFullError) return problem('storage_full');
  if (e instanceof ReadOnlyError) return problem('database_read_only', retry);
  if (e instanceof DatabaseBusyError) return problem('database_busy', retry);
  if (e instanceof DatabaseUnavailableError) return problem('database_unavailable', retry);
  return problem('internal_error');
}
