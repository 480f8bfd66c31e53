// SQLite checkpoints run in a worker thread (storage/sqlite-checkpointer.ts), never inside the
// writer's COMMIT on the event loop: the writer's automatic checkpoints are off, and what the
// writes append to the log still reaches the database file, with the server's thread idle.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { sql } from 'kysely';
import { createDatabase, type TestDatabase } from './support/harness.ts';
import { until } from './support/until.ts';
import { openStorage, type Storage } from '../src/storage/db.ts';
import { migrate } from '../src/storage/migrations/index.ts';

describe('SQLite checkpoints (sqlite)', () => {
  let db: TestDatabase;
  let storage: Storage;
  let file: string;
  before(async () => {
    db = await createDatabase('sqlite');
    file = db.url.slice('sqlite:'.length);
    storage = openStorage(db.url);
    await migrate(storage);
  });
  after(async () => {
    await storage.close();
    await db.drop();
  });

  it('the writer never checkpoints; the worker copies the log into the database file', async () => {
    const autocheckpoint = await storage.transact(async (trx) => {
      const { rows } = await sql<{ wal_autocheckpoint: number }>`PRAGMA wal_autocheckpoint`.execute(trx);
      return rows[0]!.wal_autocheckpoint;
    });
    assert.equal(autocheckpoint, 0, "the writer's automatic checkpoints are off");

    const sizeBefore = fs.statSync(file).size;
    const countsBefore = storage.checkpoints!();
    await storage.transact(async (trx) => {
      for (let i = 0; i < 2000; i++)
        await trx
          .insertInto('staff')
          .values({ key: `k${i}`, name: 'x'.repeat(400), created_at: i })
          .execute();
    });
    // About 1 MB of rows: only a checkpoint moves them from the log into the database file.
    await until('the checkpointer to copy the log into the database file', () => fs.statSync(file).size > sizeBefore + 500_000);
    const staff = await storage.reader
      .selectFrom('staff')
      .select((eb) => eb.fn.countAll().as('n'))
      .executeTakeFirstOrThrow();
    assert.equal(Number(staff.n), 2000);
    // And it counts its work (the bench's writes figures): at least the ~250 pages of those rows.
    // The file grows while a checkpoint copies; its count comes when that checkpoint ends.
    await until('the checkpointer to count its checkpoints and pages', () => {
      const now = storage.checkpoints!();
      return now.checkpoints > countsBefore.checkpoints && now.pages - countsBefore.pages >= 200;
    });
    const counts = storage.checkpoints!();
    assert.ok(counts.checkpoints > countsBefore.checkpoints, JSON.stringify(counts));
    assert.ok(counts.pages - countsBefore.pages >= 200, JSON.stringify(counts));
  });
});
