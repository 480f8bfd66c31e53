// `charta-server backup` and `restore` on SQLite (docs/operations.md, "Backup and restore").
//
// How a backup reaches a running instance: it does not ask the server anything. It opens the
// instance's database file (the one CHARTA_DATABASE_URL or --data-dir names, as `start` does) as a
// second, read-only connection in its own process, and copies it with SQLite's online backup API
// (better-sqlite3's `backup`, sqlite3_backup_step). In WAL mode (docs/configuration.md, "SQLite")
// a reader never waits for the writer nor the writer for a reader, so the server's group commits go
// on while the copy runs.
//
// Why it is consistent: the backup holds one read transaction on its connection from before the
// first page to after the last, so every page comes from one snapshot: the database as of the
// moment that transaction began, every write acknowledged by then included (a write is answered
// after its COMMIT, docs/configuration.md, "Durability"). Without that transaction the backup
// API copies each step in a transaction of its own and starts again from page 1 whenever another
// process wrote in between: under steady writes it never finishes. The snapshot only keeps the
// server's checkpoints from copying the log back past it: the log grows while a backup runs.
//
// A restore validates the file before it writes anything: SQLite's header and size, PRAGMA
// integrity_check on a read-only connection, Charta's migration table and tables, and a schema
// no newer than this build's migrations.
import fs from 'node:fs';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { backupFullAfterPages } from '../lib/test-hooks.ts';
import { MIGRATION_NAMES } from './migrations/index.ts';

/** PRAGMA application_id of a file `charta-server backup` wrote ("CHRT"): how `file` and restore tell it from another SQLite file. */
export const BACKUP_APPLICATION_ID = 0x43485254;

/** The tables every Charta database has since its first migration; a file without them is not Charta's. */
const CORE_TABLES = ['kysely_migration', 'patients', 'notes', 'commands', 'audit_events'];

/** Pages copied per step of the backup API (4 MiB at SQLite's default page size): the progress line's grain. */
const STEP_PAGES = 1024;

/** A refusal or a failure, said for the operator: `charta-server` prints the message and exits 1. */
export class BackupError extends Error {}

export interface BackupOptions {
  /** Called after every step: pages copied so far and the database's pages. */
  progress?: (copied: number, total: number) => void;
  /** Aborting (SIGINT, SIGTERM) stops the copy and removes the partial file. */
  signal?: AbortSignal;
}

export interface BackupResult {
  backup: string;
  database: string;
  /** The newest migration of the copy: its schema version. */
  schema: string;
  migrations: number;
  bytes: number;
  pages: number;
  /** The copy (the backup API), the check of the copy (PRAGMA quick_check) and its sync to disk (fsync), in seconds. */
  seconds: { copy: number; check: number; sync: number };
  /** The copy's throughput in MiB/s (bytes ÷ copy seconds). */
  mibPerSecond: number;
}

/**
 * Copies the SQLite database in `database` into a new file `target` while the instance serves:
 * the copy goes to `<target>.partial-<pid>` (mode 0600: it holds patient data), is checked, synced,
 * then linked to `target` (never replacing a file) and synced in its directory. On any failure
 * the partial file is removed and a BackupError says why.
 */
export async function backupSqlite(database: string, target: string, options: BackupOptions = {}): Promise<BackupResult> {
  const source = path.resolve(database);
  const to = path.resolve(target);
  if ([source, `${source}-wal`, `${source}-shm`, `${source}-journal`].includes(to)) {
    throw new BackupError(`--to ${to} is the instance's own database file: a backup goes to a new file`);
  }
  if (fs.existsSync(to)) throw new BackupError(`${to} exists: a backup never replaces a file; choose a new name or remove it first`);
  const dir = path.dirname(to);
  const dirStat = fs.statSync(dir, { throwIfNoEntry: false });
  if (dirStat === undefined) throw new BackupError(`cannot write ${to}: its directory ${dir} does not exist`);
  if (!dirStat.isDirectory()) throw new BackupError(`cannot write ${to}: ${dir} is not a directory`);
  if (!fs.existsSync(source)) throw new BackupError(`no database at ${source}: is CHARTA_DATABASE_URL (or --data-dir) the instance's?`);

  let db: BetterSqlite3.Database;
  try {
    db = new BetterSqlite3(source, { readonly: true, fileMustExist: true });
  } catch (err) {
    throw new BackupError(`cannot open the database ${source}: ${explain(err)}`);
  }
  const partial = `${to}.partial-${process.pid}`;
  let created = false;
  try {
    db.pragma('busy_timeout = 5000');
    // The snapshot the whole copy reads (see the top of this file): BEGIN is deferred, the first
    // read takes it.
    db.exec('BEGIN');
    const migrations = charta(db, source, 'the database');
    try {
      fs.closeSync(fs.openSync(partial, 'wx', 0o600));
      created = true;
    } catch (err) {
      throw new BackupError(`cannot write ${to}: ${explain(err)}`);
    }
    const pageSize = db.pragma('page_size', { simple: true }) as number;
    const fullAfter = backupFullAfterPages();
    const started = performance.now();
    let pages = 0;
    try {
      const done = await db.backup(partial, {
        progress: ({ totalPages, remainingPages }) => {
          const copied = totalPages - remainingPages;
          if (options.signal?.aborted) throw new BackupError('interrupted');
          if (fullAfter !== undefined && copied >= fullAfter) {
            throw Object.assign(new Error(`database or disk is full (injected by CHARTA_TEST_BACKUP_FULL_AFTER_PAGES=${fullAfter})`), { code: 'SQLITE_FULL' });
          }
          options.progress?.(copied, totalPages);
          // The test hook steps a page at a time, so that it fails after exactly that many pages.
          return fullAfter === undefined ? STEP_PAGES : 1;
        },
      });
      pages = done.totalPages;
    } catch (err) {
      if (err instanceof BackupError) throw err;
      throw new BackupError(`cannot write ${to}: ${explain(err)}`);
    }
    const copied = performance.now();
    db.exec('COMMIT');
    options.progress?.(pages, pages);
    // The copy as a file of its own: rollback-journal mode, so that reading it (restore's check)
    // needs no -wal or -shm beside it; marked as Charta's; read back whole once.
    const check = performance.now();
    let checked = check;
    try {
      const copy = new BetterSqlite3(partial, { fileMustExist: true });
      try {
        copy.pragma('journal_mode = DELETE');
        copy.pragma(`application_id = ${BACKUP_APPLICATION_ID}`);
        const result = copy.pragma('quick_check', { simple: true });
        if (result !== 'ok') throw new BackupError(`the copy failed its check (PRAGMA quick_check: ${String(result)}); the database itself may be damaged`);
      } finally {
        copy.close();
      }
      checked = performance.now();
      syncFile(partial);
    } catch (err) {
      if (err instanceof BackupError) throw err;
      throw new BackupError(`cannot write ${to}: ${explain(err)}`);
    }
    const synced = performance.now();
    placeNoReplace(partial, to);
    created = false;
    const bytes = fs.statSync(to).size;
    const seconds = { copy: (copied - started) / 1000, check: (checked - check) / 1000, sync: (synced - checked) / 1000 };
    return {
      backup: to,
      database: source,
      schema: migrations.at(-1)!,
      migrations: migrations.length,
      bytes,
      pages: pages || bytes / pageSize,
      seconds,
      mibPerSecond: bytes / 2 ** 20 / Math.max(seconds.copy, 1e-6),
    };
  } catch (err) {
    if (err instanceof BackupError) throw new BackupError(`${err.message}. ${created ? `The partial copy was removed; n` : 'N'}othing was left at ${to}`);
    throw err;
  } finally {
    if (db.inTransaction) db.exec('ROLLBACK');
    db.close();
    if (created) removeSqliteFile(partial);
  }
}

export interface Inspection {
  file: string;
  /** A file `charta-server backup` wrote (its application_id), or a Charta database file as is. */
  kind: 'backup' | 'database';
  bytes: number;
  pages: number;
  /** The newest migration in the file: its schema version. */
  schema: string;
  /** This build's migrations the file lacks: `charta-server start` applies them. */
  pending: string[];
}

/**
 * Reads `file` (read-only) and answers what it is if it is a complete Charta database this build
 * can serve; otherwise a BackupError saying why not. Writes nothing.
 */
export function inspectSqliteFile(file: string): Inspection {
  const { db, inspection } = openChecked(file);
  db.close();
  return inspection;
}

/**
 * `file` opened read-only inside a read transaction (what a restore copies is then what was
 * checked) once it passed every check: SQLite's header and size, Charta's tables and migrations,
 * PRAGMA integrity_check. Otherwise a BackupError, and nothing is left open.
 */
function openChecked(file: string): { db: BetterSqlite3.Database; inspection: Inspection } {
  const stat = fs.statSync(file, { throwIfNoEntry: false });
  if (stat === undefined) throw new BackupError(`${file}: no such file`);
  if (!stat.isFile()) throw new BackupError(`${file} is not a file`);
  const header = Buffer.alloc(100);
  const fd = fs.openSync(file, 'r');
  let read: number;
  try {
    read = fs.readSync(fd, header, 0, 100, 0);
  } finally {
    fs.closeSync(fd);
  }
  if (read < 100 || header.toString('latin1', 0, 16) !== 'SQLite format 3\0') {
    throw new BackupError(
      `${file} is not an SQLite database (${read < 100 ? `${stat.size} bytes, fewer than its header` : 'its first bytes are not SQLite’s header'})`,
    );
  }
  const rawPageSize = header.readUInt16BE(16);
  const pageSize = rawPageSize === 1 ? 65536 : rawPageSize;
  if (pageSize < 512 || (pageSize & (pageSize - 1)) !== 0) throw new BackupError(`${file} is damaged: its header gives a page size of ${rawPageSize}`);
  // The header's page count is valid when its "version valid for" matches the change counter.
  const headerPages = header.readUInt32BE(24) === header.readUInt32BE(92) ? header.readUInt32BE(28) : 0;
  if (stat.size % pageSize !== 0 || stat.size < headerPages * pageSize) {
    const expected =
      headerPages > 0 ? `the header says ${headerPages} pages of ${pageSize} bytes (${headerPages * pageSize} bytes)` : `pages are ${pageSize} bytes`;
    throw new BackupError(`${file} is truncated: ${expected}, the file holds ${stat.size} bytes`);
  }
  let db: BetterSqlite3.Database;
  try {
    db = new BetterSqlite3(file, { readonly: true, fileMustExist: true });
  } catch (err) {
    throw new BackupError(`${file} cannot be opened as an SQLite database: ${explain(err)}`);
  }
  try {
    db.exec('BEGIN');
    const migrations = charta(db, file, file);
    // Every page read, every index checked against its table: a backup is restored once, and a
    // damaged one is better found now than by the first request that reads the page.
    let problems: string[];
    try {
      problems = (db.pragma('integrity_check') as Array<{ integrity_check: string }>).map((r) => r.integrity_check);
    } catch (err) {
      throw new BackupError(`${file} fails PRAGMA integrity_check: ${explain(err)}`);
    }
    if (problems.length !== 1 || problems[0] !== 'ok') {
      throw new BackupError(`${file} is damaged (PRAGMA integrity_check: ${problems.slice(0, 3).join('; ')}${problems.length > 3 ? '; …' : ''})`);
    }
    const applicationId = db.pragma('application_id', { simple: true }) as number;
    const inspection: Inspection = {
      file,
      kind: applicationId === BACKUP_APPLICATION_ID ? 'backup' : 'database',
      bytes: stat.size,
      pages: db.pragma('page_count', { simple: true }) as number,
      schema: migrations.at(-1)!,
      pending: MIGRATION_NAMES.filter((name) => !migrations.includes(name)),
    };
    return { db, inspection };
  } catch (err) {
    db.close();
    if (err instanceof BackupError) throw err;
    throw new BackupError(`${file} cannot be read as an SQLite database: ${explain(err)}`);
  }
}

export interface RestoreResult extends Inspection {
  restored: string;
  seconds: number;
}

/**
 * Restores the backup `from` as the database file `target`, whose directory (the data directory)
 * must be empty or absent. Everything is checked first (openChecked); then the file is copied
 * (SQLite's backup API, from the connection and the read transaction that checked it) to a
 * temporary name in that directory, synced and linked to `target`. On a refusal nothing is
 * written; on a failure while writing, what was written is removed.
 */
export async function restoreSqlite(from: string, target: string): Promise<RestoreResult> {
  const source = path.resolve(from);
  const to = path.resolve(target);
  const dir = path.dirname(to);
  const dirStat = fs.statSync(dir, { throwIfNoEntry: false });
  if (dirStat !== undefined) {
    if (!dirStat.isDirectory()) throw new BackupError(`the data directory ${dir} is not a directory`);
    const entries = fs.readdirSync(dir);
    if (entries.length > 0) {
      const shown = entries.slice(0, 5).join(', ') + (entries.length > 5 ? `, … (${entries.length} entries)` : '');
      throw new BackupError(
        `the data directory ${dir} is not empty (${shown}): restore only into an empty or new directory; stop the instance using it and move its files away, or choose another --data-dir`,
      );
    }
  }
  const { db, inspection } = openChecked(source);
  const started = performance.now();
  const createdDir = dirStat === undefined;
  const partial = path.join(dir, `${path.basename(to)}.restoring-${process.pid}`);
  try {
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    fs.closeSync(fs.openSync(partial, 'wx', 0o600));
    // The file is not written meanwhile: all of it in one step.
    await db.backup(partial, { progress: () => 0x7fffffff });
    syncFile(partial);
    placeNoReplace(partial, to);
  } catch (err) {
    removeSqliteFile(partial);
    // The directory it made, if nothing else came into it meanwhile.
    if (createdDir) {
      try {
        fs.rmdirSync(dir);
      } catch {
        // not empty: someone else's file came in; it stays
      }
    }
    if (err instanceof BackupError) throw err;
    throw new BackupError(`cannot write ${to}: ${explain(err)}. Nothing was left in ${dir}`);
  } finally {
    if (db.inTransaction) db.exec('ROLLBACK');
    db.close();
  }
  return { ...inspection, restored: to, seconds: (performance.now() - started) / 1000 };
}

/**
 * The Charta migrations an open database records, oldest first; a BackupError when it is not a
 * Charta database or one of a newer build. `what` names it in the messages.
 */
function charta(db: BetterSqlite3.Database, file: string, what: string): string[] {
  let tables: string[];
  try {
    tables = (db.prepare("SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY name").all() as Array<{ name: string }>).map((r) => r.name);
  } catch (err) {
    throw new BackupError(`${what} cannot be read as an SQLite database: ${explain(err)}`);
  }
  const missing = CORE_TABLES.filter((t) => !tables.includes(t));
  if (missing.length > 0) {
    const shown = tables.length === 0 ? 'it has no tables' : `its tables: ${tables.slice(0, 8).join(', ')}${tables.length > 8 ? ', …' : ''}`;
    throw new BackupError(`${what === file ? file : `${what} ${file}`} is not a Charta database: no ${missing.join(', ')} table (${shown})`);
  }
  const applicationId = db.pragma('application_id', { simple: true }) as number;
  if (applicationId !== 0 && applicationId !== BACKUP_APPLICATION_ID) {
    throw new BackupError(`${what === file ? file : `${what} ${file}`} is not a Charta database: its application_id is ${applicationId}`);
  }
  const migrations = (db.prepare('SELECT name FROM kysely_migration ORDER BY name').all() as Array<{ name: string }>).map((r) => r.name);
  if (migrations.length === 0) throw new BackupError(`${what === file ? file : `${what} ${file}`} is not a Charta database: its migration table is empty`);
  const unknown = migrations.filter((m) => !MIGRATION_NAMES.includes(m));
  if (unknown.length > 0) {
    throw new BackupError(
      `${what === file ? file : `${what} ${file}`} was made by a newer Charta: its migrations ${unknown.join(', ')} are unknown to this build (whose newest is ${MIGRATION_NAMES.at(-1)}); use that version or a newer one`,
    );
  }
  return migrations;
}

/** Links `partial` to `target` (failing if `target` exists: no file is ever replaced), removes `partial`, syncs the directory. */
function placeNoReplace(partial: string, target: string): void {
  try {
    fs.linkSync(partial, target);
    fs.unlinkSync(partial);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') throw new BackupError(`${target} appeared while the copy was written: it was left as it is`);
    // A file system without hard links: rename, after checking again that nothing is in the way.
    if ((code === 'EPERM' || code === 'ENOTSUP' || code === 'EXDEV') && !fs.existsSync(target)) fs.renameSync(partial, target);
    else throw err;
  }
  syncDirectory(path.dirname(target));
}

function syncFile(file: string): void {
  const fd = fs.openSync(file, 'r+');
  try {
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

function syncDirectory(dir: string): void {
  let fd: number | undefined;
  try {
    fd = fs.openSync(dir, 'r');
    fs.fsyncSync(fd);
  } catch {
    // Some file systems cannot sync a directory; the file itself is synced.
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}

/** Removes an SQLite file and the journal files SQLite may have left beside it. */
function removeSqliteFile(file: string): void {
  for (const f of [file, `${file}-journal`, `${file}-wal`, `${file}-shm`]) fs.rmSync(f, { force: true });
}

/** A file system's or SQLite's error, in words an operator acts on (with its code). */
export function explain(err: unknown): string {
  const e = err as { code?: unknown; message?: unknown };
  const code = typeof e?.code === 'string' ? e.code : undefined;
  const message = typeof e?.message === 'string' ? e.message : String(err);
  const said: Record<string, string> = {
    ENOSPC: 'the disk is full',
    SQLITE_FULL: 'the disk is full',
    EDQUOT: 'the disk quota is exhausted',
    EACCES: 'permission denied',
    EPERM: 'permission denied',
    SQLITE_CANTOPEN: 'the file cannot be opened (a missing directory or no permission)',
    EROFS: 'the file system is read-only',
    SQLITE_READONLY: 'the file system or file is read-only',
    ENOENT: 'no such file or directory',
    ENOTDIR: 'a part of the path is not a directory',
    EISDIR: 'it is a directory',
    SQLITE_NOTADB: 'not an SQLite database',
    SQLITE_CORRUPT: 'the file is damaged',
  };
  const known = code === undefined ? undefined : (said[code] ?? (code.startsWith('SQLITE_IOERR') ? 'an I/O error' : undefined));
  if (known === undefined) return code === undefined ? message : `${message} (${code})`;
  return `${known} (${code}: ${message.replace(/^[A-Z]+: /, '').replace(/, open '.*'$/, '')})`;
}
