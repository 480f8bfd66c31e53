// A filtered page must stay an index range scan however many commands there are, and a
// patient's list filtered by state or kind must count from index entries alone (docs/
// performance.md, "Scale: 100k to 10M"): the query plans of the list are checked on both engines
// over a seeded table.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { sql, type CompiledQuery } from 'kysely';
import { ENGINES, startInstance, type Instance } from './support/harness.ts';
import { commandCountQuery, commandPageQuery, type CommandFilter, type CommandOrder } from '../src/storage/commands-repository.ts';
import { newKey, newUuid } from '../src/lib/ids.ts';
import { nowMicros } from '../src/lib/time.ts';

const ROWS = 20_000;
const asc = (column: CommandOrder['column']): CommandOrder => ({ column, direction: 'asc' });

for (const engine of ENGINES) {
  describe(`list query plans (${engine})`, () => {
    let api: Instance;
    let sample = { patient: '', note: '', staff: '' };
    before(async () => {
      api = await startInstance(engine);
      const { patientKey, noteKey } = await api.note();
      const db = api.storage.db;
      const staff = Array.from({ length: 20 }, newKey);
      const start = nowMicros() - ROWS * 1000;
      // Rows straight into the table: 200 patients × 1 note each would need 200 notes; one real
      // note is enough for the foreign key while patient_key varies, as the plans only care about values.
      for (let i = 0; i < ROWS; i += 1000) {
        const rows = Array.from({ length: 1000 }, (_, j) => {
          const n = i + j;
          const state = ['staged', 'committed', 'entered_in_error'][n % 3]!;
          return {
            uuid: newUuid(),
            schema_key: ['plan', 'hpi', 'diagnose', 'goal'][n % 4]!,
            note_uuid: noteKey,
            patient_key: n % 200 === 0 ? patientKey : newKey().slice(0, 30) + String(n % 200).padStart(2, '0'),
            state,
            data: '{}',
            originated_by: staff[n % 20]!,
            edited_by: '[]',
            committed_by: state === 'staged' ? null : staff[(n + 1) % 20]!,
            entered_in_error_by: null,
            created_at: start + n * 1000,
            updated_at: start + n * 1000 + (n % 7),
          };
        });
        await db.insertInto('commands').values(rows).execute();
      }
      // PostgreSQL: as autovacuum leaves a settled table, statistics and the visibility map that
      // lets a count read index entries without visiting the table.
      if (engine === 'postgres') await sql`VACUUM ANALYZE commands`.execute(db);
      else await sql`ANALYZE`.execute(db);
      sample = { patient: patientKey, note: noteKey, staff: staff[3]! };
    });
    after(async () => api?.stop());

    const plan = async (filter: CommandFilter, order: CommandOrder) => explained(commandPageQuery(api.storage.db, filter, order, 20, 40).compile());
    const explained = async (compiled: CompiledQuery) => {
      const explain = engine === 'sqlite' ? 'EXPLAIN QUERY PLAN ' : 'EXPLAIN ';
      const { rows } = await api.storage.db.executeQuery<Record<string, unknown>>({ ...compiled, sql: explain + compiled.sql });
      return rows.map((r) => String(r.detail ?? r['QUERY PLAN'])).join('\n');
    };

    const t = nowMicros() - ROWS * 500;
    const cases: Array<[string, CommandFilter, CommandOrder]> = [
      ['no filter', { times: [] }, asc('created_at')],
      ['no filter, newest first', { times: [] }, { column: 'created_at', direction: 'desc' }],
      ['by updated_at', { times: [] }, asc('updated_at')],
      ['patient_key', { patient_key: 'P', times: [] }, asc('created_at')],
      ['note_key', { note_uuid: 'N', times: [] }, asc('created_at')],
      ['originator_key', { originated_by: 'S', times: [] }, asc('created_at')],
      ['committer_key', { committed_by: 'S', times: [] }, asc('created_at')],
      ['schema_key', { schema_key: 'plan', times: [] }, asc('created_at')],
      ['state', { state: 'committed', times: [] }, asc('created_at')],
      [
        'created_at range',
        {
          times: [
            { column: 'created_at', op: '>=', value: t },
            { column: 'created_at', op: '<', value: t + 1e9 },
          ],
        },
        asc('created_at'),
      ],
      ['updated_at range', { times: [{ column: 'updated_at', op: '>', value: t }] }, asc('updated_at')],
      ['patient_key with created_at', { patient_key: 'P', times: [{ column: 'created_at', op: '>=', value: t }] }, asc('created_at')],
      ['patient_key with state', { patient_key: 'P', state: 'committed', times: [] }, asc('created_at')],
      ['patient_key with schema_key', { patient_key: 'P', schema_key: 'plan', times: [] }, asc('created_at')],
    ];

    // The count of a patient's list filtered by state or kind reads the index that has both
    // columns (migration 007), never the table: its rows are scattered over it.
    // With no filter it walks the page's ordering index, never the table's wide rows.
    const counted: Array<[string, CommandFilter, CommandOrder, string]> = [
      ['patient_key with state', { patient_key: 'P', state: 'committed', times: [] }, asc('created_at'), 'commands_patient_state'],
      ['patient_key with schema_key', { patient_key: 'P', schema_key: 'plan', times: [] }, asc('created_at'), 'commands_patient_schema'],
      ['no filter, newest first', { times: [] }, { column: 'created_at', direction: 'desc' }, 'commands_created'],
      ['no filter, by updated_at', { times: [] }, asc('updated_at'), 'commands_updated'],
    ];
    for (const [name, filter, order, index] of counted) {
      it(`${name}: the count reads ${index} alone`, async () => {
        const f = filter.patient_key === undefined ? filter : { ...filter, patient_key: sample.patient };
        const text = await explained(commandCountQuery(api.storage.db, f, order, 10_001).compile());
        if (engine === 'sqlite') assert.match(text, new RegExp(`USING COVERING INDEX ${index}\\b`), text);
        else assert.match(text, new RegExp(`Index Only Scan using ${index}\\b`), text);
      });
    }
    if (engine === 'sqlite') {
      it('the reader that serves the list plans with the statistics optimize gathers (patient and state: the patient and state index)', async () => {
        // The reader opened before the statistics existed; the server's optimize (at start and
        // every 10 minutes) must make it use them, as the writer does.
        await api.storage.optimize();
        const compiled = commandPageQuery(
          api.storage.reader,
          { patient_key: sample.patient, state: 'committed', times: [] },
          asc('created_at'),
          20,
          0,
        ).compile();
        const { rows } = await api.storage.reader.executeQuery<{ detail: string }>({ ...compiled, sql: `EXPLAIN QUERY PLAN ${compiled.sql}` });
        const text = rows.map((r) => r.detail).join('\n');
        assert.match(text, /INDEX commands_patient_state/, text);
      });
    }

    // Migration 021: staged commands (no committer) are not in the committer's index, which no
    // create or PATCH of a staged command writes; the committer filter still reads it.
    it('committer_key: read from commands_committer, an index of committed commands only', async () => {
      const text = await plan({ committed_by: sample.staff, times: [] }, asc('created_at'));
      if (engine === 'sqlite') assert.match(text, /USING (COVERING )?INDEX commands_committer\b/, text);
      else assert.match(text, /Index (Only )?Scan using commands_committer\b/, text);
      const definition =
        engine === 'sqlite'
          ? (await sql<{ d: string }>`SELECT sql AS d FROM sqlite_schema WHERE name = 'commands_committer'`.execute(api.storage.db)).rows[0]?.d
          : (await sql<{ d: string }>`SELECT indexdef AS d FROM pg_indexes WHERE indexname = 'commands_committer'`.execute(api.storage.db)).rows[0]?.d;
      assert.match(definition ?? '', /WHERE\s+\(?"?committed_by"?\s+IS\s+NOT\s+NULL\)?/i, definition);
    });

    for (const [name, filter, order] of cases) {
      it(`${name}: index scan, no full scan, no sort of the whole result`, async () => {
        const f = {
          ...filter,
          patient_key: filter.patient_key && sample.patient,
          note_uuid: filter.note_uuid && sample.note,
          originated_by: filter.originated_by && sample.staff,
          committed_by: filter.committed_by && sample.staff,
        };
        const text = await plan(f, order);
        if (engine === 'sqlite') {
          assert.match(text, /USING (COVERING )?INDEX commands_/, text);
          assert.doesNotMatch(text, /^SCAN commands$/m, text);
          assert.doesNotMatch(text, /TEMP B-TREE/, text);
        } else {
          assert.match(text, /Index (Only )?Scan/, text);
          assert.doesNotMatch(text, /Seq Scan on commands/, text);
          // The planner may sort a handful of index-selected rows; never a large share of the table.
          const sorted = /^\s*(?:->\s*)?Sort\s+\(cost=[\d.]+ rows=(\d+)/m.exec(text);
          assert.ok(sorted === null || Number(sorted[1]) <= 1000, text);
        }
      });
    }
  });
}
