// Opens the database named by CHARTA_DATABASE_URL: SQLite (embedded, WAL) or PostgreSQL,
// both behind Kysely so repositories never care which engine runs.
import fs from 'node:fs';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { CompiledQuery, Kysely, PostgresDialect, SqliteDialect, sql } from 'kysely';
import pg from 'pg';
import type { Database } from './schema.ts';
import { GroupCommit, type GroupCommitObserver } from './group-commit.ts';
import { holds, type Hold } from './holds.ts';
import { rowsOn, SqliteReaderDialect } from './sqlite-reader.ts';
import { runOn } from './sqlite-direct.ts';
import { SqliteReadThreads } from './sqlite-read-threads.ts';
import { namedStatementPool, type ConnectionWaits } from './pg-statements.ts';
import { startCheckpointer, type CheckpointStats } from './sqlite-checkpointer.ts';
import { sqliteConnectionPragmas } from './sqlite-settings.ts';
import { isConnectionError, OutcomeUnknownError, storageErrorOf } from './errors.ts';

export type Engine = 'sqlite' | 'postgres';

export interface Storage {
  /** Writes, and reads that must see a transaction's own changes. */
  db: Kysely<Database>;
  /** Reads outside any transaction: the last committed state. */
  reader: Kysely<Database>;
  /**
   * Plugins' reads of the record (runtime/data-reads.ts), also the last committed state: on
   * PostgreSQL a small pool of their own, so a PRE handler's reads never wait for a connection
   * that the write transactions waiting for that handler hold; on SQLite the reader.
   */
  pluginReader: Kysely<Database>;
  engine: Engine;
  /**
   * Runs `work` in one write transaction (on SQLite, grouped with concurrent writes). It commits
   * only once every check `work` hands to `hold` has resolved (storage/holds.ts).
   */
  transact<T>(work: (trx: Kysely<Database>, hold: Hold) => Promise<T>): Promise<T>;
  /** SQLite only: how writes were grouped into transactions. */
  groupCommit?: GroupCommit['stats'];
  /** SQLite only (a file, not `:memory:`): the background checkpointer's work so far (sqlite-checkpointer.ts). */
  checkpoints?: () => CheckpointStats;
  /** Where each connection pool stands now, read at a metrics scrape (docs/operations.md, "Monitoring"). */
  pools(): PoolUse[];
  /** From now on, tells `observer` of every wait for a connection, and on SQLite of every group-commit batch. */
  observe(observer: StorageObserver): void;
  /** Refreshes the query planner's statistics (SQLite; PostgreSQL's autovacuum does it). */
  optimize(): Promise<void>;
  /**
   * SQLite: rewrites the file from its live rows (VACUUM) and empties the write-ahead log
   * (checkpoint TRUNCATE), so that nothing overwritten or deleted stays in either: after secrets
   * stored in plaintext were sealed (docs/operations.md, "Sealed secrets"). Takes time and disk
   * in proportion to the file; never during serving. PostgreSQL: nothing (its history is its own).
   */
  scrub(): Promise<void>;
  close(): Promise<void>;
}

/**
 * One pool of connections: on PostgreSQL `main` (requests and writes) and `plugin_reads` (plugins'
 * reads of the record); on SQLite `writer`, the one connection every write takes in turn through
 * the group commit, `waiting` being the writes queued for the next batch, and `readers`, the
 * reader threads (busy: those running a query; waiting: queries queued behind those).
 */
export interface PoolUse {
  pool: 'main' | 'plugin_reads' | 'writer' | 'readers';
  max: number;
  busy: number;
  idle: number;
  waiting: number;
}

/** What the metrics are told as it happens (each call O(1)). */
export interface StorageObserver {
  /** A query or transaction waited this long for a connection of `pool` (on SQLite: a write for its batch), in seconds. */
  waitedFor(pool: PoolUse['pool'], seconds: number): void;
  /** SQLite: a group-commit transaction begins with `writes` writes. */
  batch: GroupCommitObserver['batch'];
}

export interface OpenOptions {
  synchronous?: 'normal' | 'full';
  poolSize?: number;
  /**
   * SQLite in a file: threads that run the reads outside a write, each on a connection of its
   * own (sqlite-read-threads.ts); 0, the default, reads on a second connection on the event loop.
   */
  readThreads?: number;
}

// bigint (int8) columns hold microsecond timestamps and ids: well inside 2^53.
pg.types.setTypeParser(20, (v) => Number(v));

export function engineOf(url: string): Engine {
  return url.startsWith('sqlite:') ? 'sqlite' : 'postgres';
}

export function openStorage(url: string, options: OpenOptions = {}): Storage {
  if (engineOf(url) === 'sqlite') return openSqlite(url.slice('sqlite:'.length), options);
  const max = options.poolSize ?? 10;
  const pool = new pg.Pool({ connectionString: url, max, connectionTimeoutMillis: CONNECT_TIMEOUT_MS });
  // No database fault may end the process (docs/api.md, "When the database is away"): an idle
  // client losing its connection is reported to the pool, and every client gets its own
  // listener when it connects, so one checked out when the server ends it does not throw either.
  // A broken client is not reused: released after a statement failed on its connection, it is
  // discarded (pg-statements.ts), before the pool itself has seen the socket close.
  pool.on('error', () => undefined);
  pool.on('connect', (client) => client.on('error', () => undefined));
  const mainWaits: ConnectionWaits = { waited: undefined };
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool: namedStatementPool(pool, mainWaits) }) });
  const readPool = new pg.Pool({ connectionString: url, max: PLUGIN_READ_POOL_SIZE, connectionTimeoutMillis: CONNECT_TIMEOUT_MS });
  readPool.on('error', () => undefined);
  readPool.on('connect', (client) => client.on('error', () => undefined));
  const readWaits: ConnectionWaits = { waited: undefined };
  const pluginReader = new Kysely<Database>({ dialect: new PostgresDialect({ pool: namedStatementPool(readPool, readWaits) }) });
  const use = (name: 'main' | 'plugin_reads', p: pg.Pool, size: number): PoolUse => ({
    pool: name,
    max: size,
    busy: p.totalCount - p.idleCount,
    idle: p.idleCount,
    waiting: p.waitingCount,
  });
  return {
    db,
    reader: db,
    pluginReader,
    engine: 'postgres',
    transact: (work) => pgTransaction(db, work),
    pools: () => [use('main', pool, max), use('plugin_reads', readPool, PLUGIN_READ_POOL_SIZE)],
    observe: (observer) => {
      mainWaits.waited = (seconds) => observer.waitedFor('main', seconds);
      readWaits.waited = (seconds) => observer.waitedFor('plugin_reads', seconds);
    },
    optimize: async () => undefined,
    scrub: async () => undefined,
    close: async () => {
      await Promise.all([db.destroy(), pluginReader.destroy()]);
    },
  };
}

// A transaction's own statements, compiled once.
const PG_BEGIN = CompiledQuery.raw('BEGIN');
const PG_COMMIT = CompiledQuery.raw('COMMIT');
const PG_ROLLBACK = CompiledQuery.raw('ROLLBACK');

/** Connections of the pool of plugins' reads on PostgreSQL (beside the server's own pool). */
const PLUGIN_READ_POOL_SIZE = 4;

/** How long a request waits for a new PostgreSQL connection before it is refused (503). */
const CONNECT_TIMEOUT_MS = 5000;

/**
 * One PostgreSQL transaction on one connection. A COMMIT whose connection breaks has an unknown
 * outcome (the server may have committed before the answer was lost): OutcomeUnknownError, so
 * the caller is told to retry with its Idempotency-Key instead of being told the write failed.
 */
async function pgTransaction<T>(db: Kysely<Database>, work: (trx: Kysely<Database>, hold: Hold) => Promise<T>): Promise<T> {
  try {
    return await db.connection().execute(async (conn) => {
      await conn.executeQuery(PG_BEGIN);
      let result: T;
      try {
        const checks = holds();
        result = await work(conn, checks.hold);
        await checks.settled();
      } catch (err) {
        await conn.executeQuery(PG_ROLLBACK).catch(() => undefined);
        throw err;
      }
      try {
        await conn.executeQuery(PG_COMMIT);
      } catch (err) {
        if (isConnectionError(err)) throw new OutcomeUnknownError('The connection broke during COMMIT', { cause: err });
        throw err;
      }
      return result;
    });
  } catch (err) {
    throw storageErrorOf(err) ?? err;
  }
}

function openSqlite(file: string, options: OpenOptions): Storage {
  if (file !== ':memory:') fs.mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
  const pragmas = sqliteConnectionPragmas(options.synchronous ?? 'normal');
  const open = () => {
    const raw = new BetterSqlite3(file);
    for (const pragma of pragmas) raw.pragma(pragma);
    return raw;
  };
  const writer = open();
  // Checkpoints run in a worker thread, not inside the writer's COMMITs (sqlite-checkpointer.ts).
  const checkpointer = file === ':memory:' ? undefined : startCheckpointer(file);
  if (checkpointer !== undefined) writer.pragma('wal_autocheckpoint = 0');
  const prepareWrite = statementCache(writer);
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: { close: () => writer.close(), prepare: prepareWrite } }) });
  // Reads outside a write: in reader threads (sqlite-read-threads.ts), or on a second connection
  // on the event loop. An in-memory database exists once per connection: there the writer serves
  // reads too.
  const threads = file !== ':memory:' && (options.readThreads ?? 0) > 0 ? new SqliteReadThreads(file, pragmas, options.readThreads!) : undefined;
  const readerRaw = file === ':memory:' || threads !== undefined ? undefined : open();
  readerRaw?.pragma('query_only = 1');
  // The threads are the storage's to close (below), whether or not Kysely ever used them.
  const reader = threads
    ? new Kysely<Database>({ dialect: new SqliteReaderDialect(threads.all, () => undefined) })
    : readerRaw
      ? new Kysely<Database>({ dialect: new SqliteReaderDialect(rowsOn(statementCache(readerRaw)), () => readerRaw.close()) })
      : db;
  // A batch's statements run on the write connection past Kysely's executor (sqlite-direct.ts).
  const group = new GroupCommit(db, runOn(prepareWrite));
  return {
    db,
    reader,
    pluginReader: reader,
    engine: 'sqlite',
    transact: (work) => group.run(work).catch((err: unknown) => Promise.reject(storageErrorOf(err) ?? err)),
    groupCommit: group.stats,
    ...(checkpointer === undefined ? {} : { checkpoints: () => checkpointer.stats() }),
    pools: () => [
      { pool: 'writer', max: 1, busy: group.busy ? 1 : 0, idle: group.busy ? 0 : 1, waiting: group.queued },
      ...(threads === undefined ? [] : [threads.use()]),
    ],
    observe: (observer) => {
      group.observer = { batch: (writes) => observer.batch(writes), waited: (seconds) => observer.waitedFor('writer', seconds) };
    },
    optimize: async () => {
      await sql`PRAGMA optimize`.execute(db);
      // The reader read the planner's statistics when it opened and keeps them: reload them, or
      // its plans (the list pages) go on without the statistics just gathered. query_only refuses
      // ANALYZE even of sqlite_schema, which only reads, so it is lifted for that one statement.
      if (readerRaw !== undefined) {
        readerRaw.pragma('query_only = 0');
        try {
          readerRaw.exec('ANALYZE sqlite_schema');
        } finally {
          readerRaw.pragma('query_only = 1');
        }
      }
      await threads?.analyze();
    },
    scrub: async () => {
      // The copy VACUUM makes goes to a temporary file, not memory (temp_store is MEMORY otherwise).
      writer.pragma('temp_store = FILE');
      try {
        writer.exec('VACUUM');
      } finally {
        writer.pragma('temp_store = MEMORY');
      }
      // The background checkpointer may hold the log for a moment: then the truncation is tried again.
      for (let attempt = 0; attempt < 10; attempt++) {
        const [result] = writer.pragma('wal_checkpoint(TRUNCATE)') as Array<{ busy: number }>;
        if (result?.busy === 0) return;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      throw new Error('the write-ahead log could not be emptied (SQLite kept answering busy)');
    },
    close: async () => {
      await checkpointer?.close();
      if (reader !== db) await reader.destroy();
      await db.destroy();
      // Kysely closes only a connection it has used: a reader that never ran a query (a start
      // that only migrated) would stay open, and with it the file.
      if (readerRaw?.open) readerRaw.close();
      await threads?.close();
      if (writer.open) writer.close();
    },
  };
}

/**
 * Kysely prepares every query anew; preparing is a large part of a primary-key read.
 * Statements are reused per SQL text (each connection runs one statement at a time).
 */
function statementCache(raw: BetterSqlite3.Database): (sql: string) => BetterSqlite3.Statement {
  const cache = new Map<string, BetterSqlite3.Statement>();
  return (text) => {
    let stmt = cache.get(text);
    if (stmt === undefined) {
      stmt = raw.prepare(text);
      if (cache.size >= 500) cache.delete(cache.keys().next().value as string);
      cache.set(text, stmt);
    }
    return stmt;
  };
}
