// Patients and notes (docs/api.md, "Patients" and "Notes"): create, read, list per patient, lock, unlock, soft delete.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ENGINES, startInstance, type Instance } from './support/harness.ts';

const N = '/core/api/v1/notes';
const P = '/core/api/v1/patients';

for (const engine of ENGINES) {
  describe(`patients and notes (${engine})`, () => {
    let api: Instance;
    before(async () => {
      api = await startInstance(engine);
    });
    after(async () => api?.stop());

    it('creates and reads a patient, with a sex at birth or without one (null)', async () => {
      const r = await api.call('POST', `${P}/`, { body: { firstName: 'Grace', lastName: 'Hopper', birthDate: '1906-12-09', sexAtBirth: 'female' } });
      assert.equal(r.status, 201);
      assert.match(r.json.key, /^[0-9a-f]{32}$/);
      assert.deepEqual(
        { ...r.json, key: undefined, created_at: undefined },
        { key: undefined, first_name: 'Grace', last_name: 'Hopper', birth_date: '1906-12-09', sex_at_birth: 'female', created_at: undefined },
      );
      const got = await api.call('GET', `${P}/${r.json.key}`);
      assert.deepEqual(got.json, r.json);
      const unsaid = await api.call('POST', `${P}/`, { body: { firstName: 'Alan', lastName: 'Turing' } });
      assert.equal(unsaid.json.sex_at_birth, null);
      assert.equal((await api.call('GET', `${P}/${unsaid.json.key}`)).json.sex_at_birth, null);
      assert.equal((await api.call('GET', `${P}/${'0'.repeat(32)}`)).status, 404);
    });

    it('validates patients', async () => {
      for (const body of [
        { firstName: 'A' },
        { firstName: '', lastName: 'B' },
        { firstName: 'A', lastName: 'B', birthDate: '1990-02-30' },
        { firstName: 'A', lastName: 'B', birthDate: '2999-01-01' },
        { firstName: 'A', lastName: 'B', age: 3 },
        { firstName: 'A', lastName: 'B', sexAtBirth: 'F' },
        { firstName: 'A', lastName: 'B', sexAtBirth: null },
      ]) {
        const r = await api.call('POST', `${P}/`, { body });
        assert.equal(r.status, 400, JSON.stringify(body));
        assert.equal(r.json.code, 'validation_failed');
      }
    });

    it('creates notes of the six types with default titles, and refuses other types or unknown patients', async () => {
      const patient = (await api.call('POST', `${P}/`, { body: { firstName: 'A', lastName: 'B' } })).json.key;
      for (const noteType of ['encounter', 'review', 'data_import', 'letter', 'message', 'phone_call']) {
        const r = await api.call('POST', `${N}/`, { body: { patientKey: patient, noteType } });
        assert.equal(r.status, 201);
        assert.equal(r.json.note_type, noteType);
        assert.equal(r.json.locked, false);
        assert.equal(r.json.deleted, false);
        assert.ok(r.json.title.length > 0);
      }
      assert.equal((await api.call('POST', `${N}/`, { body: { patientKey: patient, noteType: 'appointment' } })).status, 400);
      const unknown = await api.call('POST', `${N}/`, { body: { patientKey: '0'.repeat(32), noteType: 'encounter' } });
      assert.equal(unknown.status, 400);
      assert.equal(unknown.json.code, 'patient_does_not_exist');
      const list = await api.call('GET', `${N}?patient_key=${patient}&limit=4`);
      assert.equal(list.json.count, 6);
      assert.equal(list.json.results.length, 4);
      assert.ok(list.json.next.includes('offset=4'));
    });

    it('locks, unlocks and soft-deletes a note; a deleted note stays readable and cannot change', async () => {
      const { noteKey } = await api.note();
      const locked = await api.call('POST', `${N}/${noteKey}/lock/`);
      assert.equal(locked.json.locked, true);
      assert.equal((await api.call('GET', `${N}/${noteKey}`)).json.locked, true);
      assert.equal((await api.call('POST', `${N}/${noteKey}/unlock/`)).json.locked, false);
      const deleted = await api.call('DELETE', `${N}/${noteKey}/`);
      assert.equal(deleted.status, 200);
      assert.equal(deleted.json.deleted, true);
      assert.equal((await api.call('GET', `${N}/${noteKey}/`)).json.deleted, true);
      const again = await api.call('POST', `${N}/${noteKey}/lock/`);
      assert.equal(again.status, 400);
      assert.equal(again.json.code, 'note_deleted');
      assert.equal((await api.call('POST', `${N}/00000000-0000-4000-8000-000000000000/lock/`)).status, 404);
    });

    it("lists a patient's notes, deleted ones included unless deleted=false", async () => {
      const { patientKey, noteKey } = await api.note();
      const second = await api.call('POST', `${N}/`, { body: { patientKey, noteType: 'review' } });
      assert.equal((await api.call('DELETE', `${N}/${noteKey}/`)).status, 200);
      const list = async (query: string) =>
        (await api.call('GET', `${N}?patient_key=${patientKey}${query}`)).json as { count: number; results: Array<{ uuid: string }> };
      assert.deepEqual(
        (await list('')).results.map((n) => n.uuid),
        [noteKey, second.json.uuid],
      );
      assert.deepEqual(
        (await list('&deleted=false')).results.map((n) => n.uuid),
        [second.json.uuid],
      );
      assert.deepEqual(
        (await list('&deleted=true')).results.map((n) => n.uuid),
        [noteKey],
      );
      const next = await api.call('GET', `${N}?patient_key=${patientKey}&deleted=false&limit=1&offset=0`);
      assert.equal(next.json.count, 1);
      const bad = await api.call('GET', `${N}?deleted=yes`);
      assert.equal(bad.status, 400);
      assert.equal(bad.json.errors[0].field, 'deleted');
    });
  });
}
