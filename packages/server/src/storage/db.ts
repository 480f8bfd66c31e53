// Opens the database named by CHARTA_DATABASE_URL: SQLite (embedded, WAL) or PostgreSQL,
// both behind one Kysely instance so repositories never care which engine runs.
import fs from 'node:fs';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { Kysely, PostgresDialect, SqliteDialect, type SqliteDatabase } from 'kysely';
import pg from 'pg';
import type { Database } from './schema.ts';

export type Engine = 'sqlite' | 'postgres';

export interface Storage {
  db: Kysely<Database>;
  engine: Engine;
  close(): Promise<void>;
}

export interface OpenOptions {
  synchronous?: 'normal' | 'full';
  poolSize?: number;
}

// bigint (int8) columns hold microsecond timestamps and ids: well inside 2^53.
pg.types.setTypeParser(20, (v) => Number(v));

export function engineOf(url: string): Engine {
  return url.startsWith('sqlite:') ? 'sqlite' : 'postgres';
}

export function openStorage(url: string, options: OpenOptions = {}): Storage {
  if (engineOf(url) === 'sqlite') return openSqlite(url.slice('sqlite:'.length), options);
  const pool = new pg.Pool({ connectionString: url, max: options.poolSize ?? 10 });
  // An idle client losing its connection must not crash the process.
  pool.on('error', () => undefined);
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  return { db, engine: 'postgres', close: () => db.destroy() };
}

function openSqlite(file: string, options: OpenOptions): Storage {
  if (file !== ':memory:') fs.mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
  const raw = new BetterSqlite3(file);
  raw.pragma('journal_mode = WAL');
  raw.pragma(`synchronous = ${options.synchronous === 'full' ? 'FULL' : 'NORMAL'}`);
  raw.pragma('foreign_keys = ON');
  raw.pragma('busy_timeout = 5000');
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: cachingStatements(raw) }) });
  return { db, engine: 'sqlite', close: () => db.destroy() };
}

/**
 * Kysely prepares every query anew; preparing is a large part of a primary-key read.
 * Statements are reused per SQL text (Kysely serialises access to the one connection).
 */
function cachingStatements(raw: BetterSqlite3.Database): SqliteDatabase {
  const cache = new Map<string, BetterSqlite3.Statement>();
  return {
    close: () => raw.close(),
    prepare(sql: string) {
      let stmt = cache.get(sql);
      if (stmt === undefined) {
        stmt = raw.prepare(sql);
        if (cache.size >= 500) cache.delete(cache.keys().next().value as string);
        cache.set(sql, stmt);
      }
      return stmt;
    },
  };
}
