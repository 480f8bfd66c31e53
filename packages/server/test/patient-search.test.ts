// Finding patients by name (docs/api.md, "GET /core/api/v1/patients"): every word of `name` in
// "first last" ignoring case, ordered by last then first name, paged with the capped count, and
// a 400 naming the parameter for every bad input. On both engines.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ENGINES, startInstance, type Instance } from './support/harness.ts';

const P = '/core/api/v1/patients';

for (const engine of ENGINES) {
  describe(`patient search (${engine})`, () => {
    let api: Instance;
    const keys: Record<string, string> = {};
    before(async () => {
      api = await startInstance(engine, { listCountCap: 3 });
      for (const [firstName, lastName] of [
        ['Ada', 'Lovelace'],
        ['Grace', 'Hopper'],
        ['Adam', 'Smith'],
        ['Mary', 'Adams'],
        ['Percy', '100%_Sure\\'],
      ]) {
        const r = await api.call('POST', `${P}/`, { body: { firstName, lastName } });
        assert.equal(r.status, 201);
        keys[`${firstName} ${lastName}`] = r.json.key;
      }
    });
    after(async () => api?.stop());

    const names = (r: { json: { results: Array<{ first_name: string; last_name: string }> } }) => r.json.results.map((p) => `${p.first_name} ${p.last_name}`);

    it('matches every word anywhere in the name, ignoring case, ordered by last then first name', async () => {
      let r = await api.call('GET', `${P}?name=ADA`);
      assert.equal(r.status, 200);
      assert.deepEqual(names(r), ['Mary Adams', 'Ada Lovelace', 'Adam Smith']);
      assert.equal(r.json.count, 3);
      assert.equal(r.json.count_is_estimate, false);
      assert.deepEqual(r.json.results[1], (await api.call('GET', `${P}/${keys['Ada Lovelace']}`)).json, 'the same patient as a read');
      r = await api.call('GET', `${P}/?name=${encodeURIComponent('  love   ada ')}`);
      assert.deepEqual(names(r), ['Ada Lovelace'], 'words in any order, spaces ignored');
      r = await api.call('GET', `${P}?name=hopper%20smith`);
      assert.deepEqual(names(r), [], 'every word must match');
    });

    it('matches %, _ and \\ as themselves', async () => {
      assert.deepEqual(names(await api.call('GET', `${P}?name=${encodeURIComponent('100%_')}`)), ['Percy 100%_Sure\\']);
      assert.deepEqual(names(await api.call('GET', `${P}?name=${encodeURIComponent('sure\\')}`)), ['Percy 100%_Sure\\']);
      assert.deepEqual(names(await api.call('GET', `${P}?name=%25`)), ['Percy 100%_Sure\\']);
      assert.deepEqual(names(await api.call('GET', `${P}?name=_`)), ['Percy 100%_Sure\\']);
    });

    it('pages with next and previous, and caps the count past the offset', async () => {
      let r = await api.call('GET', `${P}?limit=2`);
      assert.equal(r.json.results.length, 2);
      assert.match(r.json.next, /\/core\/api\/v1\/patients\?limit=2&offset=2$/);
      assert.equal(r.json.previous, null);
      // Five patients, a cap of three past offset 0: at least three.
      assert.equal(r.json.count, 3);
      assert.equal(r.json.count_is_estimate, true);
      r = await api.call('GET', `${P}?name=ad&limit=2&offset=2`);
      assert.deepEqual(names(r), ['Adam Smith']);
      assert.equal(r.json.next, null);
      assert.match(r.json.previous, /\?name=ad&limit=2&offset=0$/);
      assert.equal(r.json.count, 3);
      assert.equal(r.json.count_is_estimate, false);
    });

    it('refuses bad input with a 400 naming the parameter', async () => {
      for (const [query, field] of [
        ['name=', 'name'],
        ['name=%20%20', 'name'],
        ['name=a%00b', 'name'],
        ['name=a%0Ab', 'name'],
        [`name=${'x'.repeat(101)}`, 'querystring.name'],
        ['name=a%20b%20c%20d%20e%20f', 'name'],
        ['limit=0', 'querystring.limit'],
        ['limit=1001', 'querystring.limit'],
        ['offset=-1', 'querystring.offset'],
        ['nme=ada', 'querystring.nme'],
      ]) {
        const r = await api.call('GET', `${P}?${query}`);
        assert.equal(r.status, 400, query);
        assert.equal(r.json.code, 'validation_failed', query);
        assert.ok(
          r.json.errors.some((e: { field: string }) => e.field === field),
          `${query}: ${JSON.stringify(r.json.errors)}`,
        );
      }
    });

    it('needs a clinical token: no credentials 401, an API key 403', async () => {
      assert.equal((await api.call('GET', `${P}?name=ada`, { token: null })).status, 401);
      const key = await api.call('GET', `${P}?name=ada`, { authorization: 'test-api-key-0123456789abcdef0123456789' });
      assert.equal(key.status, 403);
    });
  });
}
