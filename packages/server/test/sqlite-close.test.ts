// Closing SQLite storage closes every connection, used or not: a start that only migrated never
// queried the reader, and Kysely closes only the connections it has used. A connection left open
// keeps the file (a bulk load, a backup or a journal mode change would find it locked).
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import BetterSqlite3 from 'better-sqlite3';
import { createDatabase, type TestDatabase } from './support/harness.ts';
import { openStorage } from '../src/storage/db.ts';
import { migrate } from '../src/storage/migrations/index.ts';

describe('SQLite storage close (sqlite)', () => {
  let db: TestDatabase | undefined;
  after(async () => db?.drop());

  it('after close, no connection is left: the file can leave WAL mode, which needs it alone', async () => {
    db = await createDatabase('sqlite');
    const storage = openStorage(db.url);
    await migrate(storage); // the writer only: the reader never runs a query
    await storage.close();
    const raw = new BetterSqlite3(db.url.slice('sqlite:'.length));
    try {
      raw.pragma('busy_timeout = 0');
      assert.deepEqual(raw.pragma('journal_mode = DELETE'), [{ journal_mode: 'delete' }]);
    } finally {
      raw.close();
    }
  });
});
