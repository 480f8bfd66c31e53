// SQLite's reads in worker threads (storage/sqlite-read-threads.ts; docs/configuration.md,
// "SQLite"): each thread reads the file on a connection of its own and sees every committed write;
// a failing statement keeps SQLite's code; a thread that stops fails its reads as the database
// unavailable (503) and the next read starts another; closing the storage closes every thread.
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import os from 'node:os';
import fs from 'node:fs';
import { Worker } from 'node:worker_threads';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import BetterSqlite3 from 'better-sqlite3';
import { sql } from 'kysely';
import { createDatabase, testConfig, type TestDatabase } from './support/harness.ts';
import { openStorage, type Storage } from '../src/storage/db.ts';
import { READER_THREAD_SOURCE, SqliteReadThreads, type ReaderData } from '../src/storage/sqlite-read-threads.ts';
import { sqliteConnectionPragmas } from '../src/storage/sqlite-settings.ts';
import { DatabaseUnavailableError, storageErrorOf } from '../src/storage/errors.ts';
import { ConfigError, DEFAULT_SQLITE_READ_THREADS, loadConfig, storageOptionsOf } from '../src/config.ts';

const PRAGMAS = sqliteConnectionPragmas('normal');

describe('SQLite reads in threads (sqlite)', () => {
  const databases: TestDatabase[] = [];
  after(async () => {
    for (const db of databases) await db.drop();
  });
  const fileOf = async () => {
    const db = await createDatabase('sqlite');
    databases.push(db);
    return db.url.slice('sqlite:'.length);
  };
  const withStorage = async (threads: number, work: (storage: Storage) => Promise<void>) => {
    const storage = openStorage(`sqlite:${await fileOf()}`, { readThreads: threads });
    try {
      await sql`CREATE TABLE t (n INTEGER NOT NULL, label TEXT, blob BLOB)`.execute(storage.db);
      await work(storage);
    } finally {
      await storage.close();
    }
  };

  it('a read sees every write acknowledged before it, from whichever thread answers', async () => {
    await withStorage(2, async (storage) => {
      for (let n = 1; n <= 40; n++) {
        await storage.transact(async (trx) => void (await sql`INSERT INTO t (n) VALUES (${n})`.execute(trx)));
        // Two reads at once: each thread answers one of them, both see the write just made.
        const [a, b] = await Promise.all([
          sql<{ c: number }>`SELECT count(*) AS c FROM t`.execute(storage.reader),
          sql<{ m: number }>`SELECT max(n) AS m FROM t`.execute(storage.reader),
        ]);
        assert.equal(a.rows[0]!.c, n);
        assert.equal(b.rows[0]!.m, n);
      }
      const use = storage.pools().find((p) => p.pool === 'readers');
      assert.deepEqual(use, { pool: 'readers', max: 2, busy: 0, idle: 2, waiting: 0 });
    });
  });

  it('parameters and values cross the thread as they are: text, numbers, null, blobs', async () => {
    await withStorage(1, async (storage) => {
      const blob = Buffer.from([0, 1, 2, 254, 255]);
      const label = 'é — "quoted" \u0000 and a NUL';
      await storage.transact(async (trx) => void (await sql`INSERT INTO t (n, label, blob) VALUES (${2 ** 52}, ${label}, ${blob})`.execute(trx)));
      const { rows } = await sql<{
        n: number;
        label: string;
        blob: Uint8Array;
        none: null;
      }>`SELECT n, label, blob, NULL AS none FROM t WHERE label = ${label}`.execute(storage.reader);
      assert.equal(rows.length, 1);
      assert.equal(rows[0]!.n, 2 ** 52);
      assert.equal(rows[0]!.label, label);
      assert.deepEqual(Buffer.from(rows[0]!.blob), blob);
      assert.equal(rows[0]!.none, null);
    });
  });

  it("a failing statement keeps SQLite's code and message; a statement that writes is refused and writes nothing", async () => {
    await withStorage(1, async (storage) => {
      await assert.rejects(sql`SELECT * FROM no_such_table`.execute(storage.reader), (err: Error & { code?: string }) => {
        assert.equal(err.code, 'SQLITE_ERROR');
        assert.match(err.message, /no such table: no_such_table/);
        return true;
      });
      await assert.rejects(sql`INSERT INTO t (n) VALUES (1)`.execute(storage.reader), /only run queries that return rows/);
      // RETURNING makes a write that returns rows: the connection is query_only.
      await assert.rejects(sql`INSERT INTO t (n) VALUES (1) RETURNING n`.execute(storage.reader), (err: Error & { code?: string }) => {
        assert.equal(err.code, 'SQLITE_READONLY');
        return true;
      });
      const { rows } = await sql<{ c: number }>`SELECT count(*) AS c FROM t`.execute(storage.db);
      assert.equal(rows[0]!.c, 0);
    });
  });

  it('a thread that stops fails what it was asked as the database unavailable; the next read starts a new thread', async () => {
    // Reader threads as the server starts them, except that one asked to run `exit` ends at once.
    let started = 0;
    const spawn = (data: ReaderData) => {
      started++;
      const exitHook = "require('node:worker_threads').parentPort.on('message', (m) => { if (m.sql === 'exit') process.exit(3); });\n";
      return new Worker(exitHook + READER_THREAD_SOURCE, { eval: true, workerData: data });
    };
    const threads = new SqliteReadThreads(await fileOf(), PRAGMAS, 1, spawn);
    try {
      assert.deepEqual(await threads.all('SELECT ? AS one', [1]), [{ one: 1 }]);
      const dying = threads.all('exit', []);
      const queued = threads.all('SELECT 2 AS two', []);
      assert.deepEqual(threads.use(), { pool: 'readers', max: 1, busy: 1, idle: 0, waiting: 1 });
      await assert.rejects(dying, (err) => err instanceof DatabaseUnavailableError && /reader thread stopped/.test(err.message));
      await assert.rejects(queued, DatabaseUnavailableError);
      assert.deepEqual(threads.use(), { pool: 'readers', max: 1, busy: 0, idle: 1, waiting: 0 });
      assert.deepEqual(await threads.all('SELECT ? AS three', [3]), [{ three: 3 }]);
      assert.equal(started, 2);
    } finally {
      await threads.close();
    }
    await assert.rejects(threads.all('SELECT 1', []), (err) => err instanceof DatabaseUnavailableError && /closed/.test(err.message));
  });

  it('a parameter that cannot cross to the thread fails that read alone; the thread owes nothing and reads on', async () => {
    const threads = new SqliteReadThreads(await fileOf(), PRAGMAS, 1);
    try {
      await assert.rejects(threads.all('SELECT ? AS x', [() => 1]), (err: Error) => err.name === 'DataCloneError');
      assert.deepEqual(threads.use(), { pool: 'readers', max: 1, busy: 0, idle: 1, waiting: 0 });
      assert.deepEqual(await threads.all('SELECT ? AS x', ['after']), [{ x: 'after' }]);
    } finally {
      await threads.close();
    }
  });

  it('a thread that cannot open the file fails its reads as the database unavailable', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'charta-read-threads-'));
    const threads = new SqliteReadThreads(path.join(dir, 'missing', 'charta.db'), PRAGMAS, 1);
    try {
      await assert.rejects(threads.all('SELECT 1', []), (err) => {
        assert.ok(storageErrorOf(err) instanceof DatabaseUnavailableError, String(err));
        return true;
      });
    } finally {
      await threads.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('closing while a read is under way: the read is answered and the process waits for the thread to exit', async () => {
    // In a process of its own: whether the process stays alive until close() resolves is the point.
    const script = fileURLToPath(new URL('./support/read-threads-close.ts', import.meta.url));
    const file = await fileOf();
    const { stdout, code } = await new Promise<{ stdout: string; code: number | null }>((resolve, reject) => {
      const child = spawn(process.execPath, ['--import', 'tsx', script, file], { stdio: ['ignore', 'pipe', 'inherit'] });
      let out = '';
      child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
      child.on('error', reject);
      child.on('exit', (exitCode) => resolve({ stdout: out, code: exitCode }));
    });
    assert.equal(stdout, 'closed [{"one":1}]\n');
    assert.equal(code, 0);
  });

  it('closing the storage closes every thread it started, after they reloaded the statistics: the file can leave WAL mode', async () => {
    const file = await fileOf();
    const storage = openStorage(`sqlite:${file}`, { readThreads: 3 });
    await sql`CREATE TABLE t (n INTEGER)`.execute(storage.db);
    await Promise.all([1, 2, 3].map(() => sql`SELECT count(*) FROM t`.execute(storage.reader)));
    await storage.optimize();
    await storage.close();
    const raw = new BetterSqlite3(file);
    try {
      raw.pragma('busy_timeout = 0');
      assert.deepEqual(raw.pragma('journal_mode = DELETE'), [{ journal_mode: 'delete' }]);
    } finally {
      raw.close();
    }
  });

  it("a running thread plans with the statistics gathered since it opened once the storage's optimize has run", async () => {
    await withStorage(1, async (storage) => {
      await sql`CREATE INDEX t_n ON t (n)`.execute(storage.db);
      await sql`CREATE INDEX t_label ON t (label)`.execute(storage.db);
      const fill = async (rows: number, n: (i: number) => number, label: (i: number) => string) => {
        await sql`DELETE FROM t`.execute(storage.db);
        for (let i = 0; i < rows; i += 500) {
          const values = Array.from({ length: Math.min(500, rows - i) }, (_, j) => sql`(${n(i + j)}, ${label(i + j)})`);
          await sql`INSERT INTO t (n, label) VALUES ${sql.join(values)}`.execute(storage.db);
        }
      };
      const plan = async () => {
        const { rows } = await sql<{ detail: string }>`EXPLAIN QUERY PLAN SELECT * FROM t WHERE n = ${1} AND label = ${'x'}`.execute(storage.reader);
        return rows.map((r) => r.detail).join('\n');
      };
      // First n tells rows apart and label does not: the thread opens with those statistics.
      await fill(
        100,
        (i) => i,
        () => 'x',
      );
      await sql`ANALYZE`.execute(storage.db);
      assert.match(await plan(), /INDEX t_n\b/);
      await fill(
        10_000,
        () => 1,
        (i) => `label ${i}`,
      );
      // Then the other way round: the writer gathers new statistics, which the thread, running
      // since, sees only once optimize has told it to reload them.
      await sql`ANALYZE`.execute(storage.db);
      assert.match(await plan(), /INDEX t_n\b/);
      await storage.optimize();
      assert.match(await plan(), /INDEX t_label\b/);
    });
  });

  it('CHARTA_SQLITE_READ_THREADS: 1 by default, 0 reads on the event loop, out of range refused', async () => {
    assert.equal(loadConfig({}).sqliteReadThreads, DEFAULT_SQLITE_READ_THREADS);
    assert.equal(DEFAULT_SQLITE_READ_THREADS, 1);
    assert.equal(loadConfig({ CHARTA_SQLITE_READ_THREADS: '4' }).sqliteReadThreads, 4);
    for (const bad of ['-1', '17', '1.5', 'two'])
      assert.throws(
        () => loadConfig({ CHARTA_SQLITE_READ_THREADS: bad }),
        (err) => err instanceof ConfigError && err.message === `CHARTA_SQLITE_READ_THREADS must be an integer from 0 to 16, got ${bad}`,
      );
    const db = await createDatabase('sqlite');
    databases.push(db);
    const storage = openStorage(db.url, storageOptionsOf(testConfig(db, { sqliteReadThreads: 0 })));
    try {
      assert.deepEqual(
        storage.pools().map((p) => p.pool),
        ['writer'],
      );
    } finally {
      await storage.close();
    }
  });
});
