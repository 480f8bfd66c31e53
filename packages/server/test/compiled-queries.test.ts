// Hot queries compiled once per shape (storage/compiled.ts) and, on PostgreSQL, sent as named
// statements (storage/pg-statements.ts): the values of each call reach the database, the SQL
// text is built once, and a statement is parsed once per connection.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { createDatabase, ENGINES, type TestDatabase } from './support/harness.ts';
import { openStorage, type Storage } from '../src/storage/db.ts';
import { migrate } from '../src/storage/migrations/index.ts';
import { compiledShapeCount, executeCompiled, insertRow, MAX_COMPILED_SHAPES, updateRow } from '../src/storage/compiled.ts';
import { statementName } from '../src/storage/pg-statements.ts';
import { listCommands } from '../src/storage/commands-repository.ts';

for (const engine of ENGINES) {
  describe(`compiled queries (${engine})`, () => {
    let db: TestDatabase;
    let storage: Storage;
    before(async () => {
      db = await createDatabase(engine);
      // One connection on PostgreSQL, so the prepared statements seen below are those of the queries run here.
      storage = openStorage(db.url, { poolSize: 1 });
      await migrate(storage);
    });
    after(async () => {
      await storage.close();
      await db.drop();
    });

    const byKey = (key: string) =>
      executeCompiled(storage.reader, 'test: staff by key', [key], ([k]) =>
        storage.reader
          .selectFrom('staff')
          .selectAll()
          .where('key', '=', k as string),
      );

    it('fills in each call’s values: rows inserted, updated and read by one compiled shape each', async () => {
      for (let i = 0; i < 5; i++) await insertRow(storage.db, 'staff', { key: `s${i}`, name: `staff ${i}`, created_at: 1000 + i });
      await updateRow(storage.db, 'staff', 'key', 's3', { name: 'renamed' });
      for (let i = 0; i < 5; i++) {
        const { rows } = await byKey(`s${i}`);
        assert.deepEqual(
          rows.map((r) => ({ key: r.key, name: r.name, created_at: Number(r.created_at) })),
          [{ key: `s${i}`, name: i === 3 ? 'renamed' : `staff ${i}`, created_at: 1000 + i }],
        );
      }
      assert.deepEqual((await byKey('nobody')).rows, []);
    });

    it('a column whose value is undefined is left out, as Kysely itself does', async () => {
      await insertRow(storage.db, 'staff', { key: 'u1', name: 'no date', created_at: 7, deactivated_at: undefined } as never);
      assert.equal((await byKey('u1')).rows.length, 1);
    });

    it('constants written into the query stay in place beside the placeholders', async () => {
      const named = (key: string) =>
        executeCompiled(storage.reader, 'test: staff by key and name', [key], ([k]) =>
          storage.reader
            .selectFrom('staff')
            .select('key')
            .where('key', '=', k as string)
            .where('name', '=', 'renamed'),
        );
      assert.deepEqual((await named('s3')).rows, [{ key: 's3' }]);
      assert.deepEqual((await named('s2')).rows, []);
    });

    it('a query that uses a value to shape its SQL is refused, not run with the wrong values', () => {
      assert.throws(
        () => executeCompiled(storage.reader, 'test: inlined', ['x'], ([k]) => storage.reader.selectFrom('staff').select(sql.lit(k as string).as('v'))),
        /inlined into the SQL/,
      );
    });

    it('a command list is compiled per shape of its filter: same shape, other values, their own rows', async () => {
      const page = (patient: string, state?: string) =>
        listCommands(storage.reader, { patient_key: patient, state, times: [] }, { column: 'created_at', direction: 'asc' }, 20, 0, 100);
      const before = compiledShapeCount(storage.reader);
      for (const patient of ['a'.repeat(32), 'b'.repeat(32)])
        assert.deepEqual(await page(patient), { rows: [], hasNext: false, count: 0, countIsEstimate: false });
      assert.equal(compiledShapeCount(storage.reader), before + 1, 'one page shape for both patients');
      await page('a'.repeat(32), 'committed');
      assert.equal(compiledShapeCount(storage.reader), before + 2, 'a filter with one more condition is a shape of its own');
    });

    it(`past ${MAX_COMPILED_SHAPES} shapes a new shape still runs with its values, and is not kept`, async () => {
      const byShape = (i: number, key: string) =>
        executeCompiled(storage.reader, `test: shape ${i}`, [key], ([k]) =>
          storage.reader
            .selectFrom('staff')
            .select(sql<number>`${i}`.as('shape'))
            .select('key')
            .where('key', '=', k as string),
        );
      let i = 0;
      while (compiledShapeCount(storage.reader) < MAX_COMPILED_SHAPES) await byShape(i++, 's1');
      for (const key of ['s1', 's2', 'nobody']) {
        const { rows } = await byShape(i++, key);
        assert.deepEqual(
          rows.map((r) => r.key),
          key === 'nobody' ? [] : [key],
        );
      }
      assert.equal(compiledShapeCount(storage.reader), MAX_COMPILED_SHAPES);
    });

    if (engine === 'postgres') {
      it('PostgreSQL: a compiled query is prepared once on the connection, under its own name; other queries are not', async () => {
        for (let i = 0; i < 3; i++) await byKey(`s${i}`);
        const adHoc = storage.reader.selectFrom('staff').select('key').where('name', '=', 'renamed');
        for (let i = 0; i < 3; i++) await adHoc.execute();
        const prepared = await sql<{ name: string; statement: string }>`select name, statement from pg_prepared_statements`.execute(storage.reader);
        const text = byKeyText();
        assert.ok(statementName(text), 'the compiled text has a name');
        assert.deepEqual(
          prepared.rows.filter((r) => r.statement === text).map((r) => r.name),
          [statementName(text)],
        );
        const adHocText = adHoc.compile().sql;
        assert.equal(statementName(adHocText), undefined);
        assert.deepEqual(
          prepared.rows.filter((r) => r.statement === adHocText),
          [],
        );
      });
    }
  });
}

/** The SQL text of the 'staff by key' shape as PostgreSQL receives it. */
function byKeyText(): string {
  return 'select * from "staff" where "key" = $1';
}
