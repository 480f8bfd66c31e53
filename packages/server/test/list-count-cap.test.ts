// The commands and notes lists count exactly only up to a cap past the page's offset (docs/api.md,
// "Pagination"): beyond it `count` is offset + cap and `count_is_estimate` is true, so a count
// costs the same at any table size. `next` comes from reading one row more than the page, never
// from the count. Small caps (CHARTA_LIST_COUNT_CAP) keep the rows few; one case seeds more than
// the default cap.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ENGINES, startInstance, type Instance } from './support/harness.ts';
import { DEFAULT_LIST_COUNT_CAP } from '../src/http/pagination.ts';
import { ConfigError, loadConfig } from '../src/config.ts';
import { newUuid } from '../src/lib/ids.ts';
import { nowMicros } from '../src/lib/time.ts';

const C = '/core/api/v1/commands';
const N = '/core/api/v1/notes';
const CAP = 5;
const ROWS = 12;

interface PageJson {
  count: number;
  count_is_estimate: boolean;
  next: string | null;
  previous: string | null;
  results: Array<{ uuid: string }>;
}

describe('CHARTA_LIST_COUNT_CAP', () => {
  it(`defaults to ${DEFAULT_LIST_COUNT_CAP.toLocaleString('en-US')}, takes a positive integer, refuses anything else`, () => {
    assert.equal(loadConfig({}).listCountCap, DEFAULT_LIST_COUNT_CAP);
    assert.equal(loadConfig({ CHARTA_LIST_COUNT_CAP: '250' }).listCountCap, 250);
    for (const bad of ['0', '-3', '1.5', 'many', '1000000001']) {
      assert.throws(
        () => loadConfig({ CHARTA_LIST_COUNT_CAP: bad }),
        (err: unknown) => err instanceof ConfigError && /CHARTA_LIST_COUNT_CAP/.test(err.message),
      );
    }
  });
});

for (const engine of ENGINES) {
  describe(`list count cap (${engine})`, () => {
    let api: Instance;
    let note: { patientKey: string; noteKey: string };
    const made: string[] = [];

    before(async () => {
      api = await startInstance(engine, { listCountCap: CAP });
      note = await api.note();
      for (let i = 0; i < ROWS; i++) {
        const r = await api.call('POST', `${C}/`, { body: { schemaKey: 'plan', noteKey: note.noteKey, values: { narrative: `n${i}` } } });
        assert.equal(r.status, 201, r.text);
        made.push(r.json.uuid);
      }
      for (const i of [0, 5]) assert.equal((await api.call('POST', `${C}/${made[i]}/commit/`)).status, 200);
    });
    after(async () => api?.stop());

    const page = async (query: string): Promise<PageJson> => {
      const r = await api.call('GET', `${C}?note_key=${note.noteKey}&${query}`);
      assert.equal(r.status, 200, r.text);
      return r.json as PageJson;
    };
    const offsetOf = (link: string | null) => (link === null ? null : Number(new URL(link).searchParams.get('offset')));

    it('more matching rows than offset + cap: count is offset + cap, flagged as an estimate; next is there', async () => {
      const first = await page('limit=2');
      assert.deepEqual(
        { count: first.count, estimate: first.count_is_estimate, next: offsetOf(first.next), previous: first.previous },
        { count: CAP, estimate: true, next: 2, previous: null },
      );
      assert.deepEqual(
        first.results.map((c) => c.uuid),
        made.slice(0, 2),
      );
      const later = await page('limit=2&offset=4');
      assert.deepEqual({ count: later.count, estimate: later.count_is_estimate, next: offsetOf(later.next) }, { count: 4 + CAP, estimate: true, next: 6 });
      assert.deepEqual(
        later.results.map((c) => c.uuid),
        made.slice(4, 6),
      );
    });

    it('all matching rows within offset + cap: the count is exact', async () => {
      const p = await page('limit=2&offset=8');
      assert.deepEqual({ count: p.count, estimate: p.count_is_estimate, next: offsetOf(p.next) }, { count: ROWS, estimate: false, next: 10 });
      const committed = await page('state=committed&limit=1');
      assert.deepEqual(
        { count: committed.count, estimate: committed.count_is_estimate, next: offsetOf(committed.next) },
        { count: 2, estimate: false, next: 1 },
      );
    });

    it('next is null on the last page, also when it is exactly full, and past the end', async () => {
      for (const [query, results] of [
        ['limit=2&offset=10', 2],
        ['limit=5&offset=10', 2],
        [`limit=${ROWS}`, ROWS],
      ] as const) {
        const p = await page(query);
        assert.deepEqual(
          { count: p.count, estimate: p.count_is_estimate, next: p.next, results: p.results.length },
          { count: ROWS, estimate: false, next: null, results },
          query,
        );
      }
      const short = await page(`limit=${ROWS - 1}`);
      assert.equal(offsetOf(short.next), ROWS - 1);
      const beyond = await page('limit=2&offset=20');
      assert.deepEqual(
        { count: beyond.count, estimate: beyond.count_is_estimate, next: beyond.next, previous: offsetOf(beyond.previous), results: beyond.results.length },
        { count: ROWS, estimate: false, next: null, previous: 18, results: 0 },
      );
    });

    it('the notes list counts the same way; the other lists stay exact', async () => {
      const patient = (await api.call('POST', '/core/api/v1/patients/', { body: { firstName: 'Many', lastName: 'Notes' } })).json.key as string;
      for (let i = 0; i < CAP + 2; i++) assert.equal((await api.call('POST', `${N}/`, { body: { patientKey: patient, noteType: 'encounter' } })).status, 201);
      const capped = (await api.call('GET', `${N}?patient_key=${patient}&limit=1`)).json as PageJson;
      assert.deepEqual({ count: capped.count, estimate: capped.count_is_estimate, next: offsetOf(capped.next) }, { count: CAP, estimate: true, next: 1 });
      const exact = (await api.call('GET', `${N}?patient_key=${patient}&limit=1&offset=3`)).json as PageJson;
      assert.deepEqual({ count: exact.count, estimate: exact.count_is_estimate }, { count: CAP + 2, estimate: false });
      const alerts = (await api.call('GET', `/core/api/v1/patients/${patient}/banner-alerts/`)).json as Record<string, unknown>;
      assert.equal(alerts.count_is_estimate, false, 'one page shape: an exact count says so');
    });
  });

  describe(`list count cap, default (${engine})`, () => {
    let api: Instance;
    let noteKey = '';
    const total = DEFAULT_LIST_COUNT_CAP + 5;

    before(async () => {
      api = await startInstance(engine);
      const note = await api.note();
      noteKey = note.noteKey;
      const me = (await api.call('POST', `${C}/`, { body: { schemaKey: 'plan', noteKey, values: {} } })).json as { originated_by: string };
      // Straight into the table, a thousand rows a statement, in one transaction.
      const start = nowMicros();
      await api.storage.db.transaction().execute(async (trx) => {
        for (let i = 1; i < total; i += 1000) {
          const rows = Array.from({ length: Math.min(1000, total - i) }, (_, j) => ({
            uuid: newUuid(),
            schema_key: 'plan',
            note_uuid: noteKey,
            patient_key: note.patientKey,
            state: 'staged',
            data: '{}',
            originated_by: me.originated_by,
            edited_by: JSON.stringify([me.originated_by]),
            committed_by: null,
            entered_in_error_by: null,
            created_at: start + i + j,
            updated_at: start + i + j,
          }));
          await trx.insertInto('commands').values(rows).execute();
        }
      });
    });
    after(async () => api?.stop());

    it(`more than ${DEFAULT_LIST_COUNT_CAP.toLocaleString('en-US')} matching commands: count ${DEFAULT_LIST_COUNT_CAP.toLocaleString('en-US')}, an estimate; exact again near the end`, async () => {
      const first = await api.call('GET', `${C}?note_key=${noteKey}&limit=1`);
      assert.equal(first.status, 200, first.text);
      assert.deepEqual({ count: first.json.count, estimate: first.json.count_is_estimate }, { count: DEFAULT_LIST_COUNT_CAP, estimate: true });
      const nearEnd = await api.call('GET', `${C}?note_key=${noteKey}&limit=1&offset=10`);
      assert.deepEqual({ count: nearEnd.json.count, estimate: nearEnd.json.count_is_estimate }, { count: total, estimate: false });
    });
  });
}
