// SQLite faults against a real server on port 0 (docs/api.md, "When the database is away"):
// a full disk (a small tmpfs the test mounts and fills; where mounting is not allowed, the
// `max_page_count` pragma), a database that refuses writes, and a write lock held by another
// connection past the busy timeout. Each answers a 507 or 503 problem (never 500), leaves the
// file intact (`PRAGMA integrity_check`), keeps every acknowledged write and recovers once the
// cause is gone, with no restart.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { sql } from 'kysely';
import { startServer, type Running } from '../src/server.ts';
import { request, testConfig, type Reply } from './support/harness.ts';
import { tokenFor } from './support/processes.ts';

const BASE = '/core/api/v1/commands';

interface Setup {
  dir: string;
  file: string;
  server: Running;
  token: string;
  noteKey: string;
  mounted: boolean;
  call(method: string, urlPath: string, body?: unknown): Promise<Reply>;
  /** Stops the server (once). */
  close(): Promise<void>;
  /** Stops the server and removes the directory (unmounting it first). */
  stop(): Promise<void>;
}

/** A server over a SQLite file in a new directory: a small tmpfs when `tmpfsMb` is given and mounting is allowed. */
async function setUp(tmpfsMb?: number): Promise<Setup> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'charta-sqlite-faults-'));
  let mounted = false;
  if (tmpfsMb !== undefined && tmpfsMb > 0) {
    try {
      execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${tmpfsMb}m`, 'tmpfs', dir], { stdio: 'ignore' });
      mounted = true;
    } catch {
      // Not allowed here (no privilege): the caller falls back to max_page_count.
    }
  }
  const file = path.join(dir, 'charta.db');
  const server = await startServer(testConfig({ url: `sqlite:${file}`, dataDir: dir, env: {}, drop: async () => undefined }), () => undefined);
  const token = await tokenFor(server.url);
  const call = (method: string, urlPath: string, body?: unknown) => request(server.url, method, urlPath, { body }, token);
  const patient = await call('POST', '/core/api/v1/patients/', { firstName: 'Disk', lastName: 'Fault' });
  assert.equal(patient.status, 201, patient.text);
  const note = await call('POST', '/core/api/v1/notes/', { patientKey: patient.json.key, noteType: 'encounter' });
  assert.equal(note.status, 201, note.text);
  let closing: Promise<unknown> | undefined;
  const close = async () => {
    closing ??= server.close();
    await closing;
  };
  return {
    dir,
    file,
    server,
    token,
    noteKey: note.json.uuid,
    mounted,
    call,
    close,
    stop: async () => {
      await close();
      if (mounted) execFileSync('umount', [dir]);
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

const create = (s: Setup, narrative: string) => s.call('POST', `${BASE}/`, { schemaKey: 'plan', noteKey: s.noteKey, values: { narrative } });

/** `PRAGMA integrity_check` on a connection of its own. */
function integrity(file: string): string {
  const raw = new BetterSqlite3(file, { readonly: true });
  try {
    return (raw.pragma('integrity_check') as Array<{ integrity_check: string }>).map((r) => r.integrity_check).join('; ');
  } finally {
    raw.close();
  }
}

/** The uuids of the commands stored in the file (after the server is stopped). */
function storedCommands(file: string): Set<string> {
  const raw = new BetterSqlite3(file, { readonly: true });
  try {
    return new Set((raw.prepare('SELECT uuid FROM commands').all() as Array<{ uuid: string }>).map((r) => r.uuid));
  } finally {
    raw.close();
  }
}

/** Fills the small file system holding `dir` with a ballast file (never more than `maxMb`); returns its path. */
function fillDisk(dir: string, maxMb: number): string {
  const ballast = path.join(dir, 'ballast');
  const fd = fs.openSync(ballast, 'w');
  const chunk = Buffer.alloc(64 * 1024, 1);
  try {
    for (let written = 0; written <= maxMb * 1024 * 1024; written += chunk.length) fs.writeSync(fd, chunk);
    assert.fail(`the file system took more than ${maxMb} MB`);
  } catch (err) {
    assert.equal((err as NodeJS.ErrnoException).code, 'ENOSPC');
  } finally {
    fs.closeSync(fd);
  }
  return ballast;
}

describe('SQLite faults', () => {
  for (const [label, tmpfsMb] of [
    ['a full disk (a 16 MB tmpfs where it can be mounted)', 16],
    ['a database at its max_page_count', undefined],
  ] as const)
    describe(label, () => {
      let s: Setup;
      before(async () => {
        s = await setUp(tmpfsMb);
      });
      after(async () => {
        await s?.stop();
      });

      it('answers 507 storage_full, keeps the file intact and every acknowledged write, and writes again once there is room', async (t) => {
        const acknowledged: string[] = [];
        const first = await create(s, 'before the disk filled');
        assert.equal(first.status, 201, first.text);
        acknowledged.push(first.json.uuid);

        let free: () => Promise<void>;
        if (s.mounted) {
          const ballast = fillDisk(s.dir, 16);
          free = async () => fs.rmSync(ballast);
        } else {
          // No tmpfs here: the same SQLITE_FULL, from a size limit at the file's current size.
          const pages = (await sql<{ page_count: number }>`PRAGMA page_count`.execute(s.server.storage.db)).rows[0]!.page_count;
          await sql.raw(`PRAGMA max_page_count = ${pages}`).execute(s.server.storage.db);
          free = async () => {
            await sql.raw('PRAGMA max_page_count = 1073741823').execute(s.server.storage.db);
          };
        }
        t.diagnostic(s.mounted ? 'a 16 MB tmpfs, filled by a ballast file' : 'max_page_count');

        const refusals: Reply[] = [];
        for (let i = 0; i < 3000 && refusals.length < 3; i++) {
          const r = await create(s, `write ${i} `.padEnd(1500, 'x'));
          if (r.status === 201) acknowledged.push(r.json.uuid);
          else refusals.push(r);
        }
        assert.ok(refusals.length > 0, 'the disk filled up');
        for (const r of refusals) {
          assert.equal(r.status, 507, `a full disk is 507: ${r.status} ${r.text}`);
          assert.equal(r.json.code, 'storage_full');
        }
        // Reads still work, and the server is ready (its database answers).
        const read = await s.call('GET', `${BASE}/${acknowledged[0]}`);
        assert.equal(read.status, 200, read.text);
        assert.equal((await fetch(`${s.server.url}/readyz`)).status, 200);
        assert.equal(integrity(s.file), 'ok');

        await free();
        const again = await create(s, 'after the disk was freed');
        assert.equal(again.status, 201, `writes succeed again once there is room: ${again.text}`);
        acknowledged.push(again.json.uuid);
        t.diagnostic(`${acknowledged.length} writes acknowledged before and after ${refusals.length} refusals`);

        await s.close();
        assert.equal(integrity(s.file), 'ok');
        const stored = storedCommands(s.file);
        for (const uuid of acknowledged) assert.ok(stored.has(uuid), `acknowledged write ${uuid} is stored`);
      });
    });

  describe('a database that refuses writes', () => {
    let s: Setup;
    before(async () => {
      s = await setUp();
    });
    after(async () => {
      await s?.stop();
    });

    it('answers 503 database_read_only with Retry-After, serves reads, and writes again once writable', async () => {
      const first = await create(s, 'before');
      assert.equal(first.status, 201, first.text);
      // The test runs as root in CI, where file modes do not bind and a read-only remount is refused
      // while the file is open: the write connection is made read-only instead (SQLITE_READONLY alike).
      await sql`PRAGMA query_only = 1`.execute(s.server.storage.db);
      const refused = await create(s, 'while read-only');
      assert.equal(refused.status, 503, refused.text);
      assert.equal(refused.json.code, 'database_read_only');
      assert.equal(refused.headers.get('retry-after'), '2');
      assert.equal((await s.call('GET', `${BASE}/${first.json.uuid}`)).status, 200, 'reads still work');

      await sql`PRAGMA query_only = 0`.execute(s.server.storage.db);
      const again = await create(s, 'after');
      assert.equal(again.status, 201, again.text);
      assert.equal(integrity(s.file), 'ok');
    });
  });

  describe('a write lock held past the busy timeout', () => {
    let s: Setup;
    before(async () => {
      s = await setUp();
    });
    after(async () => {
      await s?.stop();
    });

    it('answers 503 database_busy with Retry-After, and writes again once the lock is released', async () => {
      const first = await create(s, 'before the lock');
      assert.equal(first.status, 201, first.text);
      const other = new BetterSqlite3(s.file);
      try {
        other.exec('BEGIN IMMEDIATE'); // another process's writer, holding the lock
        const refused = await create(s, 'while locked');
        assert.equal(refused.status, 503, refused.text);
        assert.equal(refused.json.code, 'database_busy');
        assert.equal(refused.headers.get('retry-after'), '2');
        assert.equal((await s.call('GET', `${BASE}/${first.json.uuid}`)).status, 200, 'reads do not wait for the lock');
        other.exec('ROLLBACK');
      } finally {
        other.close();
      }
      const again = await create(s, 'after the lock');
      assert.equal(again.status, 201, again.text);
      assert.equal(integrity(s.file), 'ok');
    });
  });
});
