// Hostile and broken requests: each gets a 4xx problem body, never a 500, and changes nothing.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ENGINES, startInstance, type Instance, type Reply } from './support/harness.ts';

const C = '/core/api/v1/commands';

function assertClientError(r: Reply, status: number, code?: string) {
  assert.equal(r.status, status, r.text);
  assert.match(r.headers.get('content-type') ?? '', /^application\/problem\+json/, r.text);
  assert.equal(typeof r.json.detail, 'string');
  if (code) assert.equal(r.json.code, code, r.text);
}

for (const engine of ENGINES) {
  describe(`bad input (${engine})`, () => {
    let api: Instance;
    let noteKey = '';
    let staged = '';
    before(async () => {
      api = await startInstance(engine);
      noteKey = (await api.note()).noteKey;
      staged = (await api.call('POST', `${C}/`, { body: { schemaKey: 'plan', noteKey, values: { narrative: 'keep' } } })).json.uuid;
    });
    after(async () => api?.stop());

    const unchanged = async () => {
      const r = await api.call('GET', `${C}/${staged}`);
      assert.equal(r.json.state, 'staged');
      assert.deepEqual(r.json.data, { narrative: 'keep' });
      const count = (await api.call('GET', `${C}?note_key=${noteKey}`)).json.count;
      assert.equal(count, 1);
    };

    it('malformed JSON → 400 malformed_body', async () => {
      for (const data of ['{', '{"schemaKey": "plan",}', 'null x', '\u0000', '{"a":1}{"b":2}']) {
        assertClientError(await api.call('POST', `${C}/`, { raw: { contentType: 'application/json', data } }), 400, 'malformed_body');
        assertClientError(await api.call('PATCH', `${C}/${staged}/`, { raw: { contentType: 'application/json', data } }), 400, 'malformed_body');
      }
      await unchanged();
    });

    it('prototype pollution keys are refused', async () => {
      const r = await api.call('POST', `${C}/`, { raw: { contentType: 'application/json', data: `{"schemaKey":"plan","noteKey":"${noteKey}","__proto__":{"x":1}}` } });
      assert.ok(r.status >= 400 && r.status < 500);
      await unchanged();
    });

    it('wrong content type → 415', async () => {
      for (const contentType of ['text/plain', 'application/xml', 'multipart/form-data; boundary=x', 'application/octet-stream']) {
        assertClientError(await api.call('POST', `${C}/`, { raw: { contentType, data: 'schemaKey=plan' } }), 415, 'unsupported_media_type');
        assertClientError(await api.call('PATCH', `${C}/${staged}/`, { raw: { contentType, data: '{}' } }), 415, 'unsupported_media_type');
      }
      await unchanged();
    });

    it('a body over the limit → 413', async () => {
      const big = JSON.stringify({ schemaKey: 'plan', noteKey, values: { narrative: 'x'.repeat(2 * 1024 * 1024) } });
      assertClientError(await api.call('POST', `${C}/`, { raw: { contentType: 'application/json', data: big } }), 413, 'body_too_large');
      await unchanged();
    });

    it('unknown fields and wrong types at every level → 400 naming the field', async () => {
      const cases: Array<[unknown, string]> = [
        [{ schemaKey: 'plan', noteKey, extra: 1 }, 'extra'],
        [{ noteKey }, 'schemaKey'],
        [{ schemaKey: 5, noteKey }, 'schemaKey'],
        [{ schemaKey: 'plan', noteKey: 5 }, 'noteKey'],
        [{ schemaKey: 'plan', noteKey, values: [] }, 'values'],
        [{ schemaKey: 'plan', noteKey, values: 'text' }, 'values'],
        [{ schemaKey: 'plan', noteKey, values: { narrative: { nested: true } } }, 'values.narrative'],
        [{ schemaKey: 'plan', noteKey, values: { narrative: ['a'] } }, 'values.narrative'],
        [[], 'body'],
        ['plan', 'body'],
      ];
      for (const [body, field] of cases) {
        const r = await api.call('POST', `${C}/`, { body });
        assertClientError(r, 400, 'validation_failed');
        assert.ok(r.json.errors.some((e: { field: string }) => e.field === field || e.field.startsWith(field)), `${JSON.stringify(body)} → ${r.text}`);
      }
      for (const [body, field] of [[{}, 'values'], [{ values: {}, state: 'committed' }, 'state'], [{ values: { narrative: 1 } }, 'values.narrative'], [{ values: null }, 'values']] as const) {
        const r = await api.call('PATCH', `${C}/${staged}/`, { body });
        assertClientError(r, 400, 'validation_failed');
        assert.ok(r.json.errors.some((e: { field: string }) => e.field.startsWith(field)), r.text);
      }
      await unchanged();
    });

    it('commit and enter-in-error refuse a non-empty body', async () => {
      assertClientError(await api.call('POST', `${C}/${staged}/commit/`, { body: { state: 'committed' } }), 400, 'validation_failed');
      assertClientError(await api.call('POST', `${C}/${staged}/commit/`, { body: [1] }), 400, 'validation_failed');
      await unchanged();
    });

    it('form-encoded create with values that are not JSON → 400', async () => {
      const r = await api.call('POST', `${C}/`, { raw: { contentType: 'application/x-www-form-urlencoded', data: `schemaKey=plan&noteKey=${noteKey}&values=%7Bnope` } });
      assertClientError(r, 400, 'validation_failed');
      await unchanged();
    });

    it('malformed keys in paths and filters are 4xx', async () => {
      assertClientError(await api.call('GET', '/core/api/v1/patients/not-a-key'), 404, 'patient_not_found');
      assertClientError(await api.call('GET', '/core/api/v1/notes/not-a-uuid'), 404, 'note_not_found');
      assertClientError(await api.call('GET', `${C}/%00`), 404);
      assertClientError(await api.call('GET', `${C}/${'a'.repeat(5000)}`), 404);
      assertClientError(await api.call('GET', `${C}?patient_key=%27%20OR%201%3D1--`), 400, 'validation_failed');
      assertClientError(await api.call('GET', `${C}?state=${'x'.repeat(5000)}`), 400);
      assertClientError(await api.call('GET', '/core/api/v1/notes?patient_key=zz'), 400, 'validation_failed');
    });

    it('unknown routes and methods are 404 problems', async () => {
      assertClientError(await api.call('GET', '/nope'), 404, 'route_not_found');
      assertClientError(await api.call('PUT', `${C}/${staged}/`, { body: {} }), 404, 'route_not_found');
    });
  });
}
