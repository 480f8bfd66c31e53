// SQLite group commit: concurrent writes share a transaction, yet each succeeds or fails alone;
// and on both engines, a write commits only once the checks it holds have resolved.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createDatabase, ENGINES, type TestDatabase } from './support/harness.ts';
import type { Kysely } from 'kysely';
import { openStorage, type Storage } from '../src/storage/db.ts';
import type { Hold } from '../src/storage/holds.ts';
import type { Database } from '../src/storage/schema.ts';
import { migrate } from '../src/storage/migrations/index.ts';
import { executeCompiled, insertRow } from '../src/storage/compiled.ts';
import { directRunOf } from '../src/storage/sqlite-direct.ts';

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

  it("a batch's compiled statements run on the write connection past Kysely's executor, in order with its builder queries; a failing one fails only its write", async () => {
    let directInside = false;
    let held: Kysely<Database> | undefined;
    const [ok, refused] = await Promise.allSettled([
      storage.transact(async (trx) => {
        held = trx;
        directInside = directRunOf(trx) !== undefined;
        await insertRow(trx, 'staff', { key: 'direct-1', name: 'compiled', created_at: 1 });
        // A builder query (through Kysely) after a direct statement sees it, and the one after it sees the builder's.
        await trx.updateTable('staff').set({ name: 'builder' }).where('key', '=', 'direct-1').execute();
        return (
          await executeCompiled(trx, 'test staff name', ['direct-1'], ([k]) =>
            trx
              .selectFrom('staff')
              .select('name')
              .where('key', '=', k as string),
          )
        ).rows;
      }),
      storage.transact(async (trx) => {
        await insertRow(trx, 'staff', { key: 'direct-2', name: 'kept?', created_at: 2 });
        await insertRow(trx, 'staff', { key: 'direct-1', name: 'duplicate', created_at: 3 });
      }),
    ]);
    assert.equal(directInside, true);
    assert.deepEqual(ok, { status: 'fulfilled', value: [{ name: 'builder' }] });
    assert.equal(refused.status, 'rejected');
    assert.equal((refused as PromiseRejectedResult).reason.code, 'SQLITE_CONSTRAINT_PRIMARYKEY');
    const rows = await storage.reader.selectFrom('staff').select(['key', 'name']).where('key', 'like', 'direct-%').orderBy('key').execute();
    assert.deepEqual(rows, [{ key: 'direct-1', name: 'builder' }]);
    // Once its batch is over, the transaction no longer runs anything directly.
    assert.equal(directRunOf(held!), undefined);
  });
  it('the next write of a batch runs while the one before waits on its check (it would wait forever otherwise)', { timeout: 30_000 }, async () => {
    const check = deferred();
    const [first, second] = await Promise.all([
      storage.transact(async (trx, hold) => {
        await trx.insertInto('staff').values({ key: 'spec-1', name: 'first', created_at: 1 }).execute();
        hold(check.promise);
        return 1;
      }),
      storage.transact(async (trx) => {
        // Only this write settles the first one's check: it must run before that check is done.
        await trx.insertInto('staff').values({ key: 'spec-2', name: 'second', created_at: 2 }).execute();
        check.resolve();
        return 2;
      }),
    ]);
    assert.deepEqual([first, second], [1, 2]);
    assert.deepEqual(await names(storage, 'spec-'), ['spec-1=first', 'spec-2=second']);
  });

  it('a write whose check is slow is set aside: the writes after it commit without it, and it runs again and commits once its check settles', async () => {
    const before = { ...storage.groupCommit! };
    const check = deferred();
    const runs: string[] = [];
    const done: string[] = [];
    const write = (key: string, work: (trx: Kysely<Database>, hold: Hold) => Promise<void>) =>
      storage
        .transact(async (trx, hold) => {
          runs.push(key);
          await work(trx, hold);
          return key;
        })
        .then((value) => {
          done.push(value);
          return value;
        });
    const slow = write('slow', async (trx, hold) => {
      await trx.insertInto('staff').values({ key: 'park-slow', name: 'slow', created_at: 1 }).execute();
      hold(check.promise);
    });
    const quick = [1, 2, 3].map((i) =>
      write(`quick-${i}`, async (trx) => {
        await trx
          .insertInto('staff')
          .values({ key: `park-quick-${i}`, name: 'quick', created_at: 2 })
          .execute();
      }),
    );
    // The writes after the slow one are answered while its check still runs.
    assert.deepEqual(await Promise.all(quick), ['quick-1', 'quick-2', 'quick-3']);
    assert.deepEqual(done, ['quick-1', 'quick-2', 'quick-3']);
    assert.deepEqual(await names(storage, 'park-'), ['park-quick-1=quick', 'park-quick-2=quick', 'park-quick-3=quick']);
    check.resolve();
    assert.equal(await slow, 'slow');
    assert.deepEqual(await names(storage, 'park-slow'), ['park-slow=slow']);
    assert.equal(runs.filter((r) => r === 'slow').length, 2, 'the slow write ran again once its check settled');
    assert.equal(storage.groupCommit!.parked - before.parked, 1);
  });

  it('a write set aside whose check refuses fails with the refusal, and writes nothing', async () => {
    const check = deferred();
    const slow = storage.transact(async (trx, hold) => {
      await trx.insertInto('staff').values({ key: 'refused-later', name: 'no', created_at: 1 }).execute();
      hold(check.promise);
      return 'written';
    });
    const quick = storage.transact(async (trx) => {
      await trx.insertInto('staff').values({ key: 'refused-quick', name: 'yes', created_at: 2 }).execute();
      return 'quick';
    });
    assert.equal(await quick, 'quick');
    check.reject(new Error('refused by its check'));
    await assert.rejects(slow, /refused by its check/);
    assert.deepEqual(await names(storage, 'refused-'), ['refused-quick=yes']);
  });

  it('a refused write undoes the writes after it, which run again without it; the writes before it stay', async () => {
    const before = { ...storage.groupCommit! };
    const check = deferred();
    const runs: string[] = [];
    const write = (key: string, work: (trx: Kysely<Database>, hold: Hold) => Promise<void>) =>
      storage.transact(async (trx, hold) => {
        runs.push(key);
        await work(trx, hold);
        return key;
      });
    const results = await Promise.allSettled([
      write('a', (trx) =>
        trx
          .insertInto('staff')
          .values({ key: 'redo-a', name: 'kept', created_at: 1 })
          .execute()
          .then(() => undefined),
      ),
      write('b', async (trx, hold) => {
        await trx.insertInto('staff').values({ key: 'redo-b', name: 'refused', created_at: 2 }).execute();
        hold(check.promise);
      }),
      write('c', async (trx) => {
        // What this write sees depends on b: while b stands it sees it, once b is undone it does not.
        const seen = await trx.selectFrom('staff').select('key').where('key', '=', 'redo-b').execute();
        await trx
          .insertInto('staff')
          .values({ key: 'redo-c', name: seen.length === 0 ? 'saw no b' : 'saw b', created_at: 3 })
          .execute();
        check.reject(new Error('b refused'));
      }),
      write('d', async (trx) => {
        // A write that fails on top of b fails alone, and is run again too.
        const seen = await trx.selectFrom('staff').select('key').where('key', '=', 'redo-b').execute();
        if (seen.length > 0) throw new Error('d cannot go on while b stands');
        await trx.insertInto('staff').values({ key: 'redo-d', name: 'ran again', created_at: 4 }).execute();
      }),
    ]);
    assert.deepEqual(
      results.map((r) => (r.status === 'fulfilled' ? r.value : (r.reason as Error).message)),
      ['a', 'b refused', 'c', 'd'],
    );
    assert.deepEqual(runs, ['a', 'b', 'c', 'd', 'c', 'd']);
    assert.deepEqual(await names(storage, 'redo-'), ['redo-a=kept', 'redo-c=saw no b', 'redo-d=ran again']);
    assert.equal(storage.groupCommit!.batches - before.batches, 1, 'the four writes and the two run again shared one transaction');
  });
});

/** `key=name` of the committed staff rows whose key starts with `prefix`. */
async function names(storage: Storage, prefix: string): Promise<string[]> {
  const rows = await storage.reader.selectFrom('staff').select(['key', 'name']).where('key', 'like', `${prefix}%`).orderBy('key').execute();
  return rows.map((r) => `${r.key}=${r.name}`);
}

/** A promise and the functions that settle it. */
function deferred(): { promise: Promise<void>; resolve(): void; reject(reason: unknown): void } {
  let resolve!: () => void;
  let reject!: (reason: unknown) => void;
  const promise = new Promise<void>((res, rej) => ((resolve = res), (reject = rej)));
  return { promise, resolve, reject };
}

for (const engine of ENGINES) {
  describe(`writes holding checks (${engine})`, () => {
    let db: TestDatabase;
    let storage: Storage;
    before(async () => {
      db = await createDatabase(engine);
      storage = openStorage(db.url);
      await migrate(storage);
    });
    after(async () => {
      await storage.close();
      await db.drop();
    });
    it('a write commits once its check resolves, and is undone with the reason when it refuses', async () => {
      const refused = await storage
        .transact(async (trx, hold) => {
          await trx.insertInto('staff').values({ key: 'hold-no', name: 'refused', created_at: 1 }).execute();
          hold(Promise.resolve());
          hold(Promise.reject(new Error('refused by a check')));
          return 'written';
        })
        .then(
          () => 'committed',
          (err: Error) => err.message,
        );
      assert.equal(refused, 'refused by a check');
      const late = deferred();
      const accepted = storage.transact(async (trx, hold) => {
        await trx.insertInto('staff').values({ key: 'hold-yes', name: 'accepted', created_at: 1 }).execute();
        hold(late.promise);
        return 'written';
      });
      setImmediate(() => late.resolve());
      assert.equal(await accepted, 'written');
      assert.deepEqual(await names(storage, 'hold-'), ['hold-yes=accepted']);
    });
  });
}
