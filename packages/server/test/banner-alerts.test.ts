// Banner alerts (docs/api.md, "Banner alerts") on both engines: rows written through the repository
// the banner operations write with (add replaces the alert of the same patient, plugin and key; remove
// drops one), read on the patient with a clinical token, paginated like the chart reads; 404 for
// an unknown patient, 401 and 403 like the other patient reads.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ENGINES, TEST_API_KEY, startInstance, type Instance } from './support/harness.ts';
import { listBannerAlerts, removeBannerAlert, upsertBannerAlert } from '../src/storage/banner-alerts-repository.ts';

const path = (patient: string, query = '') => `/core/api/v1/patients/${patient}/banner-alerts/${query}`;

for (const engine of ENGINES) {
  describe(`banner alerts (${engine})`, () => {
    let api: Instance;
    let patient = '';
    let other = '';

    const alert = (key: string, micros: number, over: Partial<Parameters<typeof upsertBannerAlert>[1]> = {}) => ({
      patient_key: patient,
      plugin_name: 'vitals-alert',
      key,
      narrative: `Alert ${key}`,
      placement: JSON.stringify(['chart', 'timeline']),
      intent: 'warning',
      created_at: micros,
      updated_at: micros,
      ...over,
    });

    before(async () => {
      api = await startInstance(engine);
      ({ patientKey: patient } = await api.note());
      ({ patientKey: other } = await api.note());
    });
    after(async () => api?.stop());

    it('an empty list for a patient without alerts', async () => {
      const r = await api.call('GET', path(patient));
      assert.equal(r.status, 200, r.text);
      assert.deepEqual(r.json, { count: 0, count_is_estimate: false, next: null, previous: null, results: [] });
    });

    it('lists what the repository wrote, oldest first, in the documented shape; the same key replaces, keeping created_at', async () => {
      const db = api.storage.db;
      const t0 = Date.UTC(2026, 0, 2, 3, 4, 5) * 1000 + 123456;
      await upsertBannerAlert(db, alert('b', t0 + 2));
      await upsertBannerAlert(db, alert('a', t0 + 1, { intent: 'info', placement: JSON.stringify(['chart']) }));
      await upsertBannerAlert(db, alert('c', t0 + 3, { plugin_name: 'other-plugin' }));
      await upsertBannerAlert(db, alert('x', t0, { patient_key: other }));
      // Added again with key b: a new narrative, the first created_at.
      await upsertBannerAlert(db, alert('b', t0 + 10, { narrative: 'Blood pressure high' }));

      const r = await api.call('GET', path(patient));
      assert.equal(r.status, 200, r.text);
      assert.equal(r.json.count, 3);
      assert.deepEqual(r.json.results[0], {
        plugin: 'vitals-alert',
        key: 'a',
        narrative: 'Alert a',
        placement: ['chart'],
        intent: 'info',
        created_at: '2026-01-02T03:04:05.123457Z',
        updated_at: '2026-01-02T03:04:05.123457Z',
      });
      assert.deepEqual(
        r.json.results.map((a: { plugin: string; key: string; narrative: string }) => [a.plugin, a.key, a.narrative]),
        [
          ['vitals-alert', 'a', 'Alert a'],
          ['vitals-alert', 'b', 'Blood pressure high'],
          ['other-plugin', 'c', 'Alert c'],
        ],
      );
      assert.equal(r.json.results[1].created_at, '2026-01-02T03:04:05.123458Z');
      assert.equal(r.json.results[1].updated_at, '2026-01-02T03:04:05.123466Z');
      assert.deepEqual(r.json.results[1].placement, ['chart', 'timeline']);

      const theirs = await api.call('GET', path(other));
      assert.deepEqual(
        theirs.json.results.map((a: { key: string }) => a.key),
        ['x'],
        "another patient's alerts are not shown",
      );
    });

    it('paginates like the chart reads (limit, offset, absolute next/previous links)', async () => {
      const first = await api.call('GET', path(patient, '?limit=2'));
      assert.equal(first.status, 200, first.text);
      assert.equal(first.json.count, 3);
      assert.equal(first.json.results.length, 2);
      assert.equal(first.json.previous, null);
      assert.equal(first.json.next, `${api.url}${path(patient)}?limit=2&offset=2`);
      const second = await api.call('GET', first.json.next.slice(api.url.length));
      assert.deepEqual(
        second.json.results.map((a: { key: string }) => a.key),
        ['c'],
      );
      assert.equal(second.json.next, null);
      assert.equal(second.json.previous, `${api.url}${path(patient)}?limit=2&offset=0`);
      for (const query of ['?limit=0', '?limit=x', '?offset=-1', '?status=active']) {
        const bad = await api.call('GET', path(patient, query));
        assert.equal(bad.status, 400, `${query}: ${bad.text}`);
      }
    });

    it('removeBannerAlert drops one alert and says whether there was one', async () => {
      assert.equal(await removeBannerAlert(api.storage.db, patient, 'vitals-alert', 'a'), true);
      assert.equal(await removeBannerAlert(api.storage.db, patient, 'vitals-alert', 'a'), false);
      assert.equal(await removeBannerAlert(api.storage.db, patient, 'other-plugin', 'b'), false, 'the key is per plugin');
      const { rows, count } = await listBannerAlerts(api.storage.db, patient, 10, 0);
      assert.equal(count, 2);
      assert.deepEqual(
        rows.map((r) => r.key),
        ['b', 'c'],
      );
    });

    it('404 for an unknown or malformed patient key; 401 without credentials; 403 for an API key', async () => {
      for (const key of ['0'.repeat(32), 'not-a-key']) {
        const r = await api.call('GET', path(key));
        assert.equal(r.status, 404, r.text);
        assert.equal(r.json.code, 'patient_not_found');
      }
      assert.equal((await api.call('GET', path(patient), { token: null })).status, 401);
      assert.equal((await api.call('GET', path(patient), { token: 'not-a-token' })).status, 401);
      const key = await api.call('GET', path(patient), { authorization: TEST_API_KEY });
      assert.equal(key.status, 403, key.text);
    });
  });
}
