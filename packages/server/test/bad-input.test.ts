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
      const r = await api.call('POST', `${C}/`, {
        raw: { contentType: 'application/json', data: `{"schemaKey":"plan","noteKey":"${noteKey}","__proto__":{"x":1}}` },
      });
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
        assert.ok(
          r.json.errors.some((e: { field: string }) => e.field === field || e.field.startsWith(field)),
          `${JSON.stringify(body)} → ${r.text}`,
        );
      }
      for (const [body, field] of [
        [{}, 'values'],
        [{ values: {}, state: 'committed' }, 'state'],
        [{ values: { narrative: 1 } }, 'values.narrative'],
        [{ values: null }, 'values'],
      ] as const) {
        const r = await api.call('PATCH', `${C}/${staged}/`, { body });
        assertClientError(r, 400, 'validation_failed');
        assert.ok(
          r.json.errors.some((e: { field: string }) => e.field.startsWith(field)),
          r.text,
        );
      }
      await unchanged();
    });

    it('commit and enter-in-error refuse a non-empty body', async () => {
      assertClientError(await api.call('POST', `${C}/${staged}/commit/`, { body: { state: 'committed' } }), 400, 'validation_failed');
      assertClientError(await api.call('POST', `${C}/${staged}/commit/`, { body: [1] }), 400, 'validation_failed');
      await unchanged();
    });

    it('form-encoded create with values that are not JSON → 400', async () => {
      const r = await api.call('POST', `${C}/`, {
        raw: { contentType: 'application/x-www-form-urlencoded', data: `schemaKey=plan&noteKey=${noteKey}&values=%7Bnope` },
      });
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

for (const engine of ENGINES) {
  describe(`hostile bodies (${engine})`, () => {
    let api: Instance;
    let noteKey = '';
    before(async () => {
      api = await startInstance(engine);
      noteKey = (await api.note()).noteKey;
    });
    after(async () => api?.stop());

    it('a body nested deeper than 32 levels → 400, also with an Idempotency-Key', async () => {
      const deep = '['.repeat(5000) + ']'.repeat(5000);
      const data = `{"schemaKey":"assess","noteKey":"${noteKey}","values":{"condition":{"text":"a","value":"b","extra":{"x":${deep}}}}}`;
      for (const headers of [{}, { 'idempotency-key': 'deep-1' }] as Array<Record<string, string>>) {
        const r = await api.call('POST', `${C}/`, { raw: { contentType: 'application/json', data }, headers });
        assertClientError(r, 400, 'malformed_body');
        assert.match(r.json.detail, /nested/);
      }
    });

    it('NUL characters are refused in JSON and form bodies and in Basic credentials', async () => {
      const patient = await api.call('POST', '/core/api/v1/patients/', { body: { firstName: 'a\u0000', lastName: 'b' } });
      assertClientError(patient, 400, 'validation_failed');
      assert.equal(patient.json.errors[0].field, 'firstName');
      const command = await api.call('POST', `${C}/`, { body: { schemaKey: 'plan', noteKey, values: { narrative: 'a\u0000b' } } });
      assertClientError(command, 400, 'validation_failed');
      assert.equal(command.json.errors[0].field, 'values.narrative');
      assertClientError(
        await api.call('POST', '/core/api/v1/notes/', { body: { patientKey: 'a', noteType: 'encounter', title: 'x\u0000' } }),
        400,
        'validation_failed',
      );
      assertClientError(
        await api.call('POST', '/auth/token/', {
          raw: { contentType: 'application/x-www-form-urlencoded', data: 'grant_type=client_credentials&client_id=a%00b&client_secret=x' },
          token: null,
        }),
        400,
        'validation_failed',
      );
      const basic = Buffer.from('a\u0000b:secret').toString('base64');
      const r = await api.call('POST', '/auth/token/', {
        raw: { contentType: 'application/x-www-form-urlencoded', data: 'grant_type=client_credentials' },
        authorization: `Basic ${basic}`,
      });
      assertClientError(r, 400, 'invalid_request');
    });

    it('repeated form keys are refused, not merged', async () => {
      const r = await api.call('POST', `${C}/`, {
        raw: { contentType: 'application/x-www-form-urlencoded', data: `schemaKey=plan&schemaKey=hpi&noteKey=${noteKey}` },
      });
      assertClientError(r, 400, 'validation_failed');
    });

    it('thousands of bad fields give a bounded list of problems', async () => {
      const values = Object.fromEntries(Array.from({ length: 20_000 }, (_, i) => [`f${i}`, 1]));
      const r = await api.call('POST', `${C}/`, { body: { schemaKey: 'plan', noteKey, values } });
      assertClientError(r, 400, 'validation_failed');
      assert.equal(r.json.errors.length, 50);
      assert.match(r.json.detail, /and 19950 more$/);
      assert.ok(r.text.length < 100_000, `response of ${r.text.length} bytes`);
      const unknown = Object.fromEntries(Array.from({ length: 20_000 }, (_, i) => [`k${i}`, 1]));
      const n = await api.call('POST', '/core/api/v1/notes/', { body: { patientKey: 'a', noteType: 'encounter', ...unknown } });
      assertClientError(n, 400, 'validation_failed');
      assert.ok(n.json.errors.length <= 50);
    });

    it('a noteKey of any other type or length is Note does not exist; a long schemaKey is named, shortened', async () => {
      for (const bad of [5, 'x'.repeat(65), { a: 1 }, ['u'], true]) {
        const r = await api.call('POST', `${C}/`, { body: { schemaKey: 'plan', noteKey: bad } });
        assertClientError(r, 400, 'note_does_not_exist');
        assert.equal(r.json.detail, 'Note does not exist');
      }
      const r = await api.call('POST', `${C}/`, { body: { schemaKey: 'z'.repeat(500), noteKey } });
      assertClientError(r, 400, 'unknown_schema_key');
      assert.match(r.json.detail, /known kinds: assess/);
      assert.ok(r.json.detail.length < 400);
    });

    it('zone offsets must be real', async () => {
      for (const q of ['created_at__gt=2026-01-01T00:00%2B99:99', 'updated_at=2026-01-01T00:00:00-24:00', 'created_at__lt=2026-01-01T00:00:00%2B05:60']) {
        assertClientError(await api.call('GET', `${C}?${q}`), 400, 'validation_failed');
      }
      assert.equal((await api.call('GET', `${C}?created_at__gt=2026-01-01T00:00%2B05:30`)).status, 200);
    });
  });
}
