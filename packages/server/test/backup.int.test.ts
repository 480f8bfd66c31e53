// Backup and restore as an operator runs them (docs/operations.md, "Backup and restore"; issue 23
// item 3), each through the real `charta-server` binary or PostgreSQL's own programs:
// - under load, per engine: concurrent creates and commits through the HTTP API of an instance on
//   port 0, a backup taken while they go on (SQLite: `charta-server backup`; PostgreSQL: pg_dump),
//   restored into a fresh database (`charta-server restore`; pg_restore) and served by a new
//   `charta-server start`: every command acknowledged before the backup started is there with its
//   audit rows, the copy is one consistent moment (each command in it has exactly the audit rows of
//   its state), the instance never refused a write meanwhile, and the restored one serves;
// - the faults (SQLite): a backup to a missing, read-only or full file system fails with its
//   reason, leaves no partial file, and the instance keeps serving (the read-only and full ones are
//   small tmpfs mounts when the test may mount, as root here; a full disk is also injected in the
//   middle of a copy through CHARTA_TEST_BACKUP_FULL_AFTER_PAGES, always); a restore into a non-empty
//   directory, or from a truncated, damaged, random, foreign or newer file, is refused before
//   anything is written; an older backup restores and `start` migrates it.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { Migrator, sql } from 'kysely';
import { openStorage, type Engine } from '../src/storage/db.ts';
import { MIGRATION_NAMES, migrationsFor } from '../src/storage/migrations/index.ts';
import { BACKUP_APPLICATION_ID } from '../src/storage/sqlite-backup.ts';
import { createDatabase, request, startInstance, type Instance, type Reply, type TestDatabase } from './support/harness.ts';
import { runChartaServer, runProgram, startServerProcess, stopAll, tokenFor, type Ran } from './support/processes.ts';
import { describeWithPgTools, type PgTools } from './support/pg-tools.ts';
import { until } from './support/until.ts';

const BASE = '/core/api/v1/commands';

/** `charta-server <args>` on the database `url`. */
const chartaServer = (args: string[], url: string, env: NodeJS.ProcessEnv = {}) => runChartaServer(args, { CHARTA_DATABASE_URL: url, ...env });

/** A temporary directory, removed by `cleanup`. */
const temporaries: string[] = [];
function tempDir(prefix: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  temporaries.push(dir);
  return dir;
}
/** The file systems mounted by the tests, unmounted by `cleanup`. */
const mounts: string[] = [];
function mountTmpfs(dir: string, options: string): boolean {
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', options, 'tmpfs', dir], { stdio: 'ignore' });
    mounts.push(dir);
    return true;
  } catch {
    return false;
  }
}
async function cleanup(): Promise<void> {
  await stopAll();
  for (const dir of mounts.splice(0)) execFileSync('umount', [dir], { stdio: 'ignore' });
  for (const dir of temporaries.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
}

/** A plan's narrative of 10,000 characters (its most): long plans make a database of some size quickly. */
const narrative = (seed: string) => `Plan ${seed}: ` + crypto.createHash('sha256').update(seed).digest('hex').repeat(160).slice(0, 9_980);

/** A command the load wrote and was told so: when its create (and its commit, if any) was acknowledged. */
interface Acked {
  uuid: string;
  created: number;
  committed?: number;
}

interface Load {
  acked: Acked[];
  /** Answers other than 201/200: the instance refusing a write. */
  refused: string[];
  stop(): Promise<void>;
}

/** `loops` clients, each creating plans in the notes in turn and committing every other one, until stopped. */
function writeLoad(call: Instance['call'], notes: string[], loops: number): Load {
  const acked: Acked[] = [];
  const refused: string[] = [];
  let stopping = false;
  const loop = async (i: number) => {
    for (let n = 0; !stopping; n++) {
      const noteKey = notes[(i + n) % notes.length]!;
      const c = await call('POST', `${BASE}/`, { body: { schemaKey: 'plan', noteKey, values: { narrative: narrative(`${i}-${n}`) } } });
      if (c.status !== 201) {
        refused.push(`create: ${c.status} ${c.text.slice(0, 200)}`);
        continue;
      }
      const a: Acked = { uuid: c.json.uuid, created: performance.now() };
      acked.push(a);
      if (n % 2 === 1) continue;
      const r = await call('POST', `${BASE}/${a.uuid}/commit/`);
      if (r.status === 200) a.committed = performance.now();
      else refused.push(`commit: ${r.status} ${r.text.slice(0, 200)}`);
    }
  };
  const running = Promise.all(Array.from({ length: loops }, (_, i) => loop(i)));
  return {
    acked,
    refused,
    stop: async () => {
      stopping = true;
      await running;
    },
  };
}

/** A patient with `count` encounter notes, through the API. */
async function notesOf(call: Instance['call'], count: number): Promise<{ patientKey: string; notes: string[] }> {
  const p = await call('POST', '/core/api/v1/patients/', { body: { firstName: 'Backup', lastName: 'Load' } });
  assert.equal(p.status, 201, p.text);
  const notes: string[] = [];
  for (let i = 0; i < count; i++) {
    const n = await call('POST', '/core/api/v1/notes/', { body: { patientKey: p.json.key, noteType: 'encounter' } });
    assert.equal(n.status, 201, n.text);
    notes.push(n.json.uuid);
  }
  return { patientKey: p.json.key, notes };
}

/**
 * What a restored database must hold, read through a server started on it (`url`) and directly:
 * every command acknowledged before `startedAt` (committed, if its commit was), its audit rows, each
 * command of the copy with exactly the audit rows of its state (one moment, no half-written
 * change), nothing the load did not write; the list and a new write serve.
 */
async function checkRestored(engine: Engine, restored: TestDatabase, url: string, load: Load, startedAt: number, patientKey: string, notes: string[]) {
  const token = await tokenFor(url);
  const call = (method: string, urlPath: string, body?: unknown): Promise<Reply> => request(url, method, urlPath, { body }, token);
  const before = load.acked.filter((a) => a.created < startedAt);
  assert.ok(before.length > 0, 'commands were acknowledged before the backup');
  for (const a of before) {
    const r = await call('GET', `${BASE}/${a.uuid}`);
    assert.equal(r.status, 200, `${a.uuid}, acknowledged before the backup, is served by the restored instance: ${r.text}`);
    if (a.committed !== undefined && a.committed < startedAt) assert.equal(r.json.state, 'committed', `${a.uuid}'s commit was acknowledged before the backup`);
  }
  const storage = openStorage(restored.url);
  try {
    const commands = await storage.db.selectFrom('commands').select(['uuid', 'state']).where('patient_key', '=', patientKey).execute();
    const audit = new Map<string, string[]>();
    for (let i = 0; i < commands.length; i += 500) {
      const rows = await storage.db
        .selectFrom('audit_events')
        .select(['entity_id', 'action'])
        .where('entity_type', '=', 'command')
        .where(
          'entity_id',
          'in',
          commands.slice(i, i + 500).map((c) => c.uuid),
        )
        .orderBy('id')
        .execute();
      // The changes' rows (reads of the record are audited too: the checks after the restore read them).
      for (const row of rows) if (!row.action.endsWith('.read')) audit.set(row.entity_id, [...(audit.get(row.entity_id) ?? []), row.action]);
    }
    const written = new Set(load.acked.map((a) => a.uuid));
    const stored = new Set(commands.map((c) => c.uuid));
    for (const a of before) {
      assert.ok(stored.has(a.uuid), `${a.uuid} is in the restored database`);
      const expected = a.committed !== undefined && a.committed < startedAt ? ['command.created', 'command.committed'] : ['command.created'];
      for (const action of expected) assert.ok(audit.get(a.uuid)?.includes(action), `${a.uuid} has its ${action} audit row`);
    }
    for (const c of commands) {
      assert.ok(written.has(c.uuid), `${c.uuid} was written by the load`);
      assert.deepEqual(
        audit.get(c.uuid),
        c.state === 'committed' ? ['command.created', 'command.committed'] : ['command.created'],
        `${c.uuid} (${c.state}): its audit rows`,
      );
    }
    const list = await call('GET', `${BASE}?patient_key=${patientKey}&limit=5`);
    assert.equal(list.status, 200, list.text);
    assert.equal(list.json.count, commands.length, 'the list counts the restored commands');
    const write = await call('POST', `${BASE}/`, { schemaKey: 'plan', noteKey: notes[0], values: { narrative: 'After the restore' } });
    assert.equal(write.status, 201, `the restored instance (${engine}) takes writes: ${write.text}`);
    return { before: before.length, restored: commands.length };
  } finally {
    await storage.close();
  }
}

/** The directory of a TestDatabase made for a restore (the restore itself creates `dir`). */
function restoredSqlite(dir: string): TestDatabase {
  return { url: `sqlite:${path.join(dir, 'charta.db')}`, dataDir: dir, env: {}, drop: async () => fs.rmSync(dir, { recursive: true, force: true }) };
}

/** A load that grew the database, and the moment a backup started while it went on. */
async function underLoad(instance: Instance, enough: number, takeBackup: () => Promise<void>) {
  const { patientKey, notes } = await notesOf(instance.call, 4);
  const load = writeLoad(instance.call, notes, 8);
  try {
    await until(
      `${enough} commands acknowledged (the load refused: ${load.refused.slice(0, 3).join('; ')})`,
      () => load.acked.length >= enough || load.refused.length > 0,
      120_000,
    );
    assert.deepEqual(load.refused, [], 'the instance takes every write before the backup');
    const startedAt = performance.now();
    await takeBackup();
    const endedAt = performance.now();
    const during = load.acked.filter((a) => a.created > startedAt && a.created < endedAt).length;
    await load.stop();
    assert.deepEqual(load.refused, [], 'the instance takes every write while the backup runs');
    assert.ok(during > 0, 'writes were acknowledged while the backup ran');
    return { load, startedAt, during, seconds: (endedAt - startedAt) / 1000, patientKey, notes };
  } finally {
    await load.stop();
  }
}

describe('backup under load (sqlite)', () => {
  after(cleanup);

  it('keeps every command acknowledged before it, audit trail included, and the restored instance serves', async (t) => {
    const instance = await startInstance('sqlite');
    try {
      const dir = tempDir('charta-backup-');
      const file = path.join(dir, 'charta-backup.db');
      let backup: Ran | undefined;
      const { load, startedAt, during, seconds, patientKey, notes } = await underLoad(instance, 800, async () => {
        backup = await chartaServer(['backup', '--to', file], instance.db.url);
      });
      assert.equal(backup!.code, 0, backup!.stderr);
      const summary = JSON.parse(backup!.stdout) as { bytes: number; schema: string; mibPerSecond: number; seconds: { copy: number } };
      assert.equal(summary.schema, MIGRATION_NAMES.at(-1));
      assert.equal(fs.statSync(file).mode & 0o777, 0o600, 'the backup is readable by its owner only');
      assert.deepEqual(fs.readdirSync(dir), ['charta-backup.db'], 'no partial or journal file is left beside it');
      const copy = new BetterSqlite3(file, { readonly: true });
      try {
        assert.equal(copy.pragma('application_id', { simple: true }), BACKUP_APPLICATION_ID);
        assert.equal(copy.pragma('journal_mode', { simple: true }), 'delete', 'a file of its own: no -wal needed to read it');
        assert.equal(copy.pragma('integrity_check', { simple: true }), 'ok');
      } finally {
        copy.close();
      }

      const restored = restoredSqlite(path.join(dir, 'restored'));
      const r = await chartaServer(['restore', '--from', file], restored.url);
      assert.equal(r.code, 0, r.stderr);
      assert.equal(fs.statSync(path.join(dir, 'restored', 'charta.db')).mode & 0o777, 0o600);
      const server = await startServerProcess(restored);
      const counts = await checkRestored('sqlite', restored, server.url, load, startedAt, patientKey, notes);
      t.diagnostic(
        `${load.acked.length} commands written, ${counts.before} acknowledged before the backup, ${during} while it ran (${seconds.toFixed(2)} s with the process's start); ` +
          `${counts.restored} in the copy of ${(summary.bytes / 2 ** 20).toFixed(1)} MiB, copied in ${summary.seconds.copy.toFixed(2)} s (${summary.mibPerSecond.toFixed(0)} MiB/s)`,
      );
    } finally {
      await instance.stop();
    }
  });
});

describeWithPgTools('pg_dump under load (postgres)', (tools: PgTools) => {
  after(cleanup);

  it('keeps every command acknowledged before it, audit trail included, and the restored instance serves', async (t) => {
    const instance = await startInstance('postgres');
    const restored = await createDatabase('postgres');
    try {
      const file = path.join(tempDir('charta-pgdump-'), 'charta.dump');
      let dump: Ran | undefined;
      const { load, startedAt, during, patientKey, notes } = await underLoad(instance, 300, async () => {
        // The commands docs/operations.md gives.
        dump = await runProgram(tools.pgDump, ['--format=custom', '--no-owner', `--file=${file}`, instance.db.url]);
      });
      assert.equal(dump!.code, 0, dump!.stderr);
      const r = await runProgram(tools.pgRestore, ['--no-owner', '--exit-on-error', '--single-transaction', `--dbname=${restored.url}`, file]);
      assert.equal(r.code, 0, r.stderr);
      const server = await startServerProcess(restored);
      const counts = await checkRestored('postgres', restored, server.url, load, startedAt, patientKey, notes);
      t.diagnostic(
        `${load.acked.length} commands written, ${counts.before} acknowledged before pg_dump started, ${during} while it ran; ${counts.restored} in the dump`,
      );
    } finally {
      await stopAll();
      await instance.stop();
      await restored.drop();
    }
  });
});

describe('backup faults (sqlite)', () => {
  let instance: Instance;
  let dir: string;

  before(async () => {
    instance = await startInstance('sqlite');
    // About 4 MiB of plans: more than the full file system below holds.
    const { notes } = await notesOf(instance.call, 2);
    for (let i = 0; i < 120; i++) {
      const c = await instance.call('POST', `${BASE}/`, { body: { schemaKey: 'plan', noteKey: notes[i % 2], values: { narrative: narrative(`fill-${i}`) } } });
      assert.equal(c.status, 201, c.text);
    }
    dir = tempDir('charta-backup-faults-');
  });
  after(async () => {
    await instance?.stop();
    await cleanup();
  });

  /** The instance answers a read and takes a write. */
  const serves = async () => {
    const c = await instance.command();
    const g = await instance.call('GET', `${BASE}/${c.uuid}`);
    assert.equal(g.status, 200, g.text);
  };

  /** A backup to `to` that fails with exit 1, a message matching `reason`, and nothing left in `dirToCheck`. */
  const fails = async (to: string, reason: RegExp, env: NodeJS.ProcessEnv = {}) => {
    const entries = fs.statSync(path.dirname(to), { throwIfNoEntry: false })?.isDirectory() ? fs.readdirSync(path.dirname(to)) : undefined;
    const r = await chartaServer(['backup', '--to', to], instance.db.url, env);
    assert.equal(r.code, 1, `exit 1: ${r.stdout}${r.stderr}`);
    assert.equal(r.stdout, '');
    assert.match(r.stderr, /^charta-server: backup failed: /);
    assert.match(r.stderr, reason);
    assert.match(r.stderr, /The instance was not affected/);
    if (entries !== undefined) assert.deepEqual(fs.readdirSync(path.dirname(to)), entries, 'no partial file is left');
    await serves();
    return r.stderr;
  };

  it('a missing directory, a path through a file, an existing file and the database itself are refused', async () => {
    await fails(path.join(dir, 'no-such-directory', 'b.db'), /its directory .*no-such-directory does not exist/);
    fs.writeFileSync(path.join(dir, 'a-file'), 'x');
    await fails(path.join(dir, 'a-file', 'b.db'), /is not a directory/);
    fs.writeFileSync(path.join(dir, 'taken.db'), 'keep me');
    await fails(path.join(dir, 'taken.db'), /exists: a backup never replaces a file/);
    assert.equal(fs.readFileSync(path.join(dir, 'taken.db'), 'utf8'), 'keep me');
    await fails(instance.db.url.slice('sqlite:'.length), /is the instance's own database file/);
  });

  it('an unwritable directory fails with its reason and leaves nothing', async (t) => {
    const ro = path.join(dir, 'read-only');
    fs.mkdirSync(ro);
    // Root writes through a directory's permissions: it gets a read-only file system instead.
    if (process.getuid?.() === 0) {
      if (!mountTmpfs(ro, 'ro,size=64k'))
        return t.skip('running as root without the right to mount a read-only file system: no unwritable directory can be made');
      await fails(path.join(ro, 'b.db'), /the file system is read-only \(EROFS/);
    } else {
      fs.chmodSync(ro, 0o555);
      await fails(path.join(ro, 'b.db'), /permission denied \(EACCES/);
    }
  });

  it('a full disk fails with its reason, removes its partial file, and the instance serves', async (t) => {
    const small = path.join(dir, 'small');
    fs.mkdirSync(small);
    if (!mountTmpfs(small, 'size=1m,mode=0700')) {
      return t.skip('no file system could be mounted (not root, or no CAP_SYS_ADMIN): the injected full disk below stands in for it');
    }
    await fails(path.join(small, 'b.db'), /the disk is full \((SQLITE_FULL|ENOSPC)/);
    assert.deepEqual(fs.readdirSync(small), []);
  });

  it('a disk that fills in the middle of the copy (SQLITE_FULL injected after 64 pages) removes the partial copy', async () => {
    const injected = path.join(dir, 'injected');
    fs.mkdirSync(injected);
    const said = await fails(path.join(injected, 'b.db'), /the disk is full \(SQLITE_FULL/, { CHARTA_TEST_BACKUP_FULL_AFTER_PAGES: '64' });
    assert.match(said, /The partial copy was removed/);
    assert.deepEqual(fs.readdirSync(injected), []);
  });

  it('is for SQLite: on PostgreSQL it points at pg_dump', async () => {
    const r = await chartaServer(['backup', '--to', path.join(dir, 'pg.db')], 'postgres://nobody@127.0.0.1:1/none');
    assert.equal(r.code, 2);
    assert.match(r.stderr, /backup is for SQLite instances; on PostgreSQL use pg_dump \(docs\/operations\.md/);
  });
});

describe('restore refusals (sqlite)', () => {
  let dir: string;
  let good: string;
  let instance: Instance;

  before(async () => {
    dir = tempDir('charta-restore-');
    instance = await startInstance('sqlite');
    await instance.command();
    good = path.join(dir, 'good.db');
    const r = await chartaServer(['backup', '--to', good], instance.db.url);
    assert.equal(r.code, 0, r.stderr);
  });
  after(async () => {
    await instance?.stop();
    await cleanup();
  });

  /** A restore from `from` into the data directory `target` that is refused (exit `code`, the message matching `reason`) and writes nothing there. */
  const refused = async (from: string, reason: RegExp, target = path.join(dir, `target-${crypto.randomBytes(4).toString('hex')}`), code = 1) => {
    const existed = fs.existsSync(target) ? fs.readdirSync(target).sort() : undefined;
    const r = await chartaServer(['restore', '--from', from], `sqlite:${path.join(target, 'charta.db')}`);
    assert.equal(r.code, code, `${r.stdout}${r.stderr}`);
    assert.equal(r.stdout, '');
    assert.match(r.stderr, reason);
    if (existed === undefined) assert.ok(!fs.existsSync(target), `${target} was not created`);
    else assert.deepEqual(fs.readdirSync(target).sort(), existed, `${target} is as it was`);
  };
  const copyOf = (name: string, change: (bytes: Buffer) => Buffer) => {
    const file = path.join(dir, name);
    fs.writeFileSync(file, change(fs.readFileSync(good)));
    return file;
  };

  it('a data directory that is not empty is refused and named', async () => {
    const target = path.join(dir, 'busy');
    fs.mkdirSync(target);
    fs.writeFileSync(path.join(target, 'notes.txt'), 'something of the operator');
    await refused(good, new RegExp(`restore refused: the data directory ${target} is not empty \\(notes\\.txt\\)`), target);
  });

  it('a truncated backup is refused', async () => {
    const pageSize = 4096;
    const half = copyOf('half.db', (b) => b.subarray(0, Math.floor(b.length / 2 / pageSize) * pageSize));
    await refused(half, /half\.db is truncated: the header says \d+ pages/);
    await refused(
      copyOf('ragged.db', (b) => b.subarray(0, b.length - 100)),
      /ragged\.db is truncated/,
    );
  });

  it('a damaged backup is refused', async () => {
    const damaged = copyOf('damaged.db', (b) => {
      const out = Buffer.from(b);
      crypto.randomFillSync(out, 8 * 4096, 4 * 4096);
      return out;
    });
    await refused(damaged, /damaged\.db (is damaged|fails PRAGMA integrity_check|cannot be read)/);
  });

  it('a file that is not an SQLite database, and an SQLite database that is not Charta’s, are refused', async () => {
    const random = path.join(dir, 'random.bin');
    fs.writeFileSync(random, crypto.randomBytes(64 * 1024));
    await refused(random, /random\.bin is not an SQLite database \(its first bytes are not SQLite’s header\)/);
    const empty = path.join(dir, 'empty.db');
    fs.writeFileSync(empty, '');
    await refused(empty, /empty\.db is not an SQLite database \(0 bytes/);
    const foreign = path.join(dir, 'foreign.db');
    const f = new BetterSqlite3(foreign);
    f.exec('CREATE TABLE invoices (id INTEGER PRIMARY KEY, total REAL); INSERT INTO invoices (total) VALUES (12.5)');
    f.close();
    await refused(foreign, /foreign\.db is not a Charta database: no kysely_migration, patients, notes, commands, audit_events table \(its tables: invoices\)/);
  });

  it('a backup of a newer Charta is refused', async () => {
    const newer = copyOf('newer.db', (b) => b);
    const n = new BetterSqlite3(newer);
    n.prepare('INSERT INTO kysely_migration (name, timestamp) VALUES (?, ?)').run('999-from-the-future', new Date().toISOString());
    n.close();
    await refused(newer, /newer\.db was made by a newer Charta: its migrations 999-from-the-future are unknown to this build/);
  });

  it('is for SQLite: on PostgreSQL it points at pg_restore', async () => {
    const r = await chartaServer(['restore', '--from', good], 'postgres://nobody@127.0.0.1:1/none');
    assert.equal(r.code, 2);
    assert.match(r.stderr, /restore is for SQLite instances; on PostgreSQL use pg_restore/);
  });

  it('a backup of an older schema restores, and start migrates it and serves', async () => {
    // A database one migration behind this build, as an older Charta left it.
    const older = await createDatabase('sqlite');
    try {
      const storage = openStorage(older.url);
      try {
        const migrator = new Migrator({ db: storage.db, provider: { getMigrations: async () => migrationsFor('sqlite') } });
        const { error } = await migrator.migrateTo(MIGRATION_NAMES.at(-2)!);
        if (error) throw error;
      } finally {
        await storage.close();
      }
      const file = path.join(dir, 'older.db');
      const b = await chartaServer(['backup', '--to', file], older.url);
      assert.equal(b.code, 0, b.stderr);
      assert.equal(JSON.parse(b.stdout).schema, MIGRATION_NAMES.at(-2));
      const restored = restoredSqlite(path.join(dir, 'older-restored'));
      const r = await chartaServer(['restore', '--from', file], restored.url);
      assert.equal(r.code, 0, r.stderr);
      const said = JSON.parse(r.stdout) as { kind: string; schema: string; pending: string[] };
      assert.deepEqual([said.kind, said.schema, said.pending], ['backup', MIGRATION_NAMES.at(-2), [MIGRATION_NAMES.at(-1)]]);
      const server = await startServerProcess(restored);
      const token = await tokenFor(server.url);
      const p = await request(server.url, 'POST', '/core/api/v1/patients/', { body: { firstName: 'After', lastName: 'Restore' } }, token);
      assert.equal(p.status, 201, p.text);
      await stopAll();
      const migrated = openStorage(restored.url);
      try {
        const { rows } = await sql<{ name: string }>`SELECT name FROM kysely_migration ORDER BY name`.execute(migrated.db);
        const names = rows.map((m) => m.name);
        assert.deepEqual(names, [...MIGRATION_NAMES]);
      } finally {
        await migrated.close();
      }
    } finally {
      await older.drop();
    }
  });
});
