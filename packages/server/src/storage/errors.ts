// Storage's own errors: what went wrong with the database, named without HTTP. The HTTP layer
// maps them to catalog problems (http/storage-errors.ts; docs/errors.md lists the answers).
// `storageErrorOf` also names the drivers' raw errors (pg, better-sqlite3) that reach a caller
// without passing through storage's own code, such as a read on a broken connection.

export abstract class StorageError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** An Idempotency-Key sent again with a different request. */
export class IdempotencyKeyReusedError extends StorageError {
  constructor() {
    super('This Idempotency-Key was used with a different request');
  }
}

/** The database cannot be reached (refused, ended, terminated, not accepting connections). */
export class DatabaseUnavailableError extends StorageError {}

/**
 * The connection broke while COMMIT was under way: the write may or may not have been stored.
 * A retry with the same Idempotency-Key tells which (docs/api.md, "When the database is away").
 */
export class OutcomeUnknownError extends StorageError {}

/** The disk (or the database's size limit) is full (SQLite: SQLITE_FULL). */
export class StorageFullError extends StorageError {}

/** The database refuses writes: a read-only file, file system or moved file (SQLite: SQLITE_READONLY*). */
export class ReadOnlyError extends StorageError {}

/** Another writer held the database past the busy timeout (SQLite: SQLITE_BUSY, SQLITE_LOCKED). */
export class DatabaseBusyError extends StorageError {}

/** A unique or primary-key constraint hit (either engine): a concurrent writer got there first. */
export function isUniqueViolation(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return code === '23505' || code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}

/** PostgreSQL SQLSTATEs and Node socket codes that mean the connection or the server is gone. */
const PG_UNAVAILABLE = new Set([
  '57P01', // admin_shutdown (pg_terminate_backend, a restart)
  '57P02', // crash_shutdown
  '57P03', // cannot_connect_now (starting up, shutting down)
  '53300', // too_many_connections
  '3D000', // invalid_catalog_name: the database is gone
]);
const SOCKET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);
/** Messages node-postgres gives its own connection errors (they carry no code). */
const PG_CONNECTION_MESSAGES = [
  'Connection terminated',
  'connection error and is not queryable',
  'timeout exceeded when trying to connect',
  'Client was closed and is not queryable',
  'is not currently accepting connections',
];

/** True when `err` says the connection to the database is lost or cannot be made. */
export function isConnectionError(err: unknown): boolean {
  if (err instanceof DatabaseUnavailableError) return true;
  const e = err as { code?: unknown; message?: unknown } | null;
  if (e === null || typeof e !== 'object') return false;
  const code = typeof e.code === 'string' ? e.code : '';
  if (PG_UNAVAILABLE.has(code) || code.startsWith('08') || SOCKET_CODES.has(code)) return true;
  const message = typeof e.message === 'string' ? e.message : '';
  return PG_CONNECTION_MESSAGES.some((m) => message.includes(m));
}

/** The storage error `err` is, or stands for; undefined for anything else (a bug, a constraint…). */
export function storageErrorOf(err: unknown): StorageError | undefined {
  if (err instanceof StorageError) return err;
  if (isConnectionError(err)) return new DatabaseUnavailableError('The database is unreachable', { cause: err });
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code !== 'string' || !code.startsWith('SQLITE_')) return undefined;
  if (code === 'SQLITE_FULL') return new StorageFullError('The database is full', { cause: err });
  if (code.startsWith('SQLITE_READONLY')) return new ReadOnlyError('The database is read-only', { cause: err });
  if (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED'))
    return new DatabaseBusyError('The database is locked by another writer', { cause: err });
  if (code.startsWith('SQLITE_IOERR') || code.startsWith('SQLITE_CANTOPEN'))
    return new DatabaseUnavailableError('The database file cannot be used', { cause: err });
  return undefined;
}
