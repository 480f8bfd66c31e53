// SQLite group commit: concurrent writes share a transaction, yet each succeeds or fails alone.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createDatabase, type TestDatabase } from './support/harness.ts';
import { openStorage, type Storage } from '../src/storage/db.ts';
import { migrate } from '../src/storage/migrations/index.ts';

describe('group commit (sqlite)', () => {
  let db: TestDatabase;
  let storage: Storage;
  before(async () => {
    db = await createDatabase('sqlite');
    storage = openStorage(db.url);
    await migrate(storage);
  });
  after(async () => {
    await storage.close();
    await db.drop();
  });

  it('runs concurrent writes; a failing write rolls back alone and the others commit', async () => {
    const before = { ...storage.groupCommit! };
    const results = await Promise.allSettled(
      Array.from({ length: 40 }, (_, i) =>
        storage.transact(async (trx) => {
          await trx
            .insertInto('staff')
            .values({ key: `k${i}`, name: `staff ${i}`, created_at: i })
            .execute();
          if (i % 7 === 3) throw new Error(`write ${i} refused`);
          return i;
        }),
      ),
    );
    results.forEach((r, i) => {
      if (i % 7 === 3) assert.equal(r.status === 'rejected' && (r.reason as Error).message, `write ${i} refused`);
      else assert.deepEqual(r, { status: 'fulfilled', value: i });
    });
    const keys = (await storage.reader.selectFrom('staff').select('key').execute()).map((r) => r.key).sort();
    const expected = Array.from({ length: 40 }, (_, i) => i)
      .filter((i) => i % 7 !== 3)
      .map((i) => `k${i}`)
      .sort();
    assert.deepEqual(keys, expected);
    // Forty writes that arrived together shared far fewer transactions.
    assert.equal(storage.groupCommit!.writes - before.writes, 40);
    assert.ok(storage.groupCommit!.batches - before.batches <= 2, JSON.stringify(storage.groupCommit));
  });

  it('a write sees its own batch mates in order (one transaction), and a constraint error fails only its write', async () => {
    const [a, b] = await Promise.allSettled([
      storage.transact((trx) => trx.insertInto('staff').values({ key: 'dup', name: 'first', created_at: 1 }).execute()),
      storage.transact((trx) => trx.insertInto('staff').values({ key: 'dup', name: 'second', created_at: 2 }).execute()),
    ]);
    assert.equal(a!.status, 'fulfilled');
    assert.equal(b!.status, 'rejected');
    const row = await storage.reader.selectFrom('staff').selectAll().where('key', '=', 'dup').executeTakeFirstOrThrow();
    assert.equal(row.name, 'first');
  });

  it('the reader sees only committed writes', async () => {
    let seenInside: number | undefined;
    await storage.transact(async (trx) => {
      await trx.insertInto('staff').values({ key: 'pending', name: 'p', created_at: 1 }).execute();
      seenInside = (await storage.reader.selectFrom('staff').select('key').where('key', '=', 'pending').execute()).length;
    });
    assert.equal(seenInside, 0);
    assert.equal((await storage.reader.selectFrom('staff').select('key').where('key', '=', 'pending').execute()).length, 1);
  });

  it('the reader refuses to write', async () => {
    await assert.rejects(storage.reader.insertInto('staff').values({ key: 'x', name: 'x', created_at: 1 }).execute());
  });
});
