// GET /core/api/v1/commands: every filter, date forms, pagination links, ordering, bad values.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ENGINES, startInstance, type Instance } from './support/harness.ts';

const C = '/core/api/v1/commands';

for (const engine of ENGINES) {
  describe(`list commands (${engine})`, () => {
    let api: Instance;
    let noteA: { patientKey: string; noteKey: string };
    let noteB: { patientKey: string; noteKey: string };
    const made: Array<{ uuid: string; created_at: string; updated_at: string; schema_key: string; state: string }> = [];
    let staffKey = '';

    before(async () => {
      api = await startInstance(engine);
      noteA = await api.note();
      noteB = await api.note();
      for (let i = 0; i < 7; i++) {
        const note = i % 2 === 0 ? noteA : noteB;
        const r = await api.call('POST', `${C}/`, { body: { schemaKey: i < 4 ? 'plan' : 'hpi', noteKey: note.noteKey, values: { narrative: `n${i}` } } });
        made.push(r.json);
        staffKey = r.json.originated_by;
      }
      for (const i of [0, 1, 4]) {
        const r = await api.call('POST', `${C}/${made[i]!.uuid}/commit/`);
        made[i] = r.json;
      }
    });
    after(async () => api?.stop());

    const uuids = async (query: string) => {
      const r = await api.call('GET', `${C}?${query}`);
      assert.equal(r.status, 200, r.text);
      return r.json.results.map((c: { uuid: string }) => c.uuid) as string[];
    };

    it('filters by patient, note, originator, committer, kind and state', async () => {
      const inA = made.filter((_, i) => i % 2 === 0).map((c) => c.uuid);
      assert.deepEqual(await uuids(`patient_key=${noteA.patientKey}`), inA);
      assert.deepEqual(await uuids(`note_key=${noteA.noteKey}`), inA);
      assert.equal((await uuids(`originator_key=${staffKey}&limit=1000`)).length >= 7, true);
      assert.deepEqual(await uuids(`committer_key=${staffKey}&note_key=${noteA.noteKey}`), [made[0]!.uuid, made[4]!.uuid]);
      assert.deepEqual(await uuids(`note_key=${noteA.noteKey}&schema_key=hpi`), [made[4]!.uuid, made[6]!.uuid]);
      assert.deepEqual(await uuids(`patient_key=${noteB.patientKey}&state=committed`), [made[1]!.uuid]);
      assert.deepEqual(await uuids(`patient_key=${noteB.patientKey}&state=entered_in_error`), []);
      assert.deepEqual(await uuids(`committer_key=${'0'.repeat(32)}`), []);
    });

    it('created_at and updated_at take timestamps and dates with __lt/__lte/__gt/__gte', async () => {
      const third = made[2]!.created_at;
      const note = `note_key=${noteA.noteKey}`;
      assert.deepEqual(await uuids(`${note}&created_at__gte=${third}`), [made[2]!.uuid, made[4]!.uuid, made[6]!.uuid]);
      assert.deepEqual(await uuids(`${note}&created_at__gt=${third}`), [made[4]!.uuid, made[6]!.uuid]);
      assert.deepEqual(await uuids(`${note}&created_at__lt=${third}`), [made[0]!.uuid]);
      assert.deepEqual(await uuids(`${note}&created_at__lte=${third}`), [made[0]!.uuid, made[2]!.uuid]);
      assert.deepEqual(await uuids(`${note}&created_at=${third}`), [made[2]!.uuid]);
      const today = third.slice(0, 10);
      assert.equal((await uuids(`${note}&created_at=${today}`)).length, 4);
      assert.equal((await uuids(`${note}&created_at__gte=${today}`)).length, 4);
      assert.equal((await uuids(`${note}&created_at__lte=${today}`)).length, 4);
      assert.equal((await uuids(`${note}&created_at__lt=${today}`)).length, 0);
      assert.equal((await uuids(`${note}&created_at__gt=${today}`)).length, 0);
      // updated_at moves on commit: the committed one is the latest updated.
      const r = await api.call('GET', `${C}?${note}&ordering=-updated_at&limit=1`);
      assert.equal(r.json.results[0].uuid, made[4]!.uuid);
      assert.equal((await uuids(`${note}&updated_at__gt=${made[4]!.updated_at}`)).length, 0);
      // A timestamp with an offset means the same instant.
      const plus = encodeURIComponent(third.replace('Z', '+00:00'));
      assert.deepEqual(await uuids(`${note}&created_at=${plus}`), [made[2]!.uuid]);
    });

    it('paginates with count and absolute next/previous links', async () => {
      const q = `patient_key=${noteA.patientKey}`;
      const first = await api.call('GET', `${C}?${q}&limit=2`);
      assert.equal(first.json.count, 4);
      assert.equal(first.json.results.length, 2);
      assert.equal(first.json.previous, null);
      assert.match(first.json.next, /^http:\/\/127\.0\.0\.1:\d+\/core\/api\/v1\/commands\?/);
      const nextUrl = new URL(first.json.next);
      assert.equal(nextUrl.searchParams.get('patient_key'), noteA.patientKey);
      assert.equal(nextUrl.searchParams.get('offset'), '2');
      const second = await api.call('GET', nextUrl.pathname + nextUrl.search);
      assert.equal(second.json.results.length, 2);
      assert.equal(second.json.next, null);
      assert.ok(second.json.previous);
      const all = [...first.json.results, ...second.json.results].map((c: { uuid: string }) => c.uuid);
      assert.deepEqual(
        all,
        made.filter((_, i) => i % 2 === 0).map((c) => c.uuid),
      );
      const none = await api.call('GET', `${C}?${q}&offset=100`);
      assert.deepEqual(none.json.results, []);
      assert.equal(none.json.count, 4);
    });

    it('orders by created_at (default), -created_at, updated_at, -updated_at', async () => {
      const q = `note_key=${noteB.noteKey}`;
      const asc = await uuids(q);
      assert.deepEqual(await uuids(`${q}&ordering=-created_at`), [...asc].reverse());
      assert.deepEqual(await uuids(`${q}&ordering=created_at`), asc);
      const byUpdate = await uuids(`${q}&ordering=updated_at`);
      assert.equal(byUpdate.at(-1), made[1]!.uuid);
      assert.deepEqual(await uuids(`${q}&ordering=-updated_at`), [...byUpdate].reverse());
    });

    it('rejects bad filter values with 400 naming the parameter', async () => {
      const bad = [
        'state=draft',
        'schema_key=vitals',
        'patient_key=xyz',
        'note_key=not-a-uuid',
        'originator_key=ABC',
        'committer_key=1',
        'created_at=yesterday',
        'created_at__gte=2026-02-30',
        'updated_at__lt=2026-11-22T25:00:00Z',
        'created_at__lte=2026-11-22T10:00:00',
        'limit=0',
        'limit=1001',
        'limit=abc',
        'offset=-1',
        'ordering=uuid',
        'patientKey=abc',
      ];
      for (const q of bad) {
        const r = await api.call('GET', `${C}?${q}`);
        assert.equal(r.status, 400, `${q}: ${r.text}`);
        assert.equal(r.json.code, 'validation_failed', q);
        const name = q.split('=')[0]!;
        assert.ok(
          r.json.errors.some((e: { field: string }) => e.field.endsWith(name)),
          `${q}: ${r.text}`,
        );
      }
    });
  });
}
