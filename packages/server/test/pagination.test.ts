// One way to page (docs/api.md, "Pagination"): every list of the API takes `limit` and `offset`
// through its querystring schema, refuses a bad one the same way, answers the same page shape and
// documents both parameters as integers in /openapi.json. The lists are enumerated from the
// OpenAPI document, so a list added later is checked too.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { eachEngine, startInstance, TEST_API_KEY, type Instance } from './support/harness.ts';
import { installPlugin } from './support/plugins.ts';

const PAGE_KEYS = ['count', 'count_is_estimate', 'next', 'previous', 'results'];

eachEngine((engine) => {
  describe(`pagination (${engine})`, () => {
    let api: Instance;
    let lists: string[];
    const concrete = new Map<string, string>();

    before(async () => {
      api = await startInstance(engine);
      const patient = (await api.call('POST', '/core/api/v1/patients/', { body: { firstName: 'Page', lastName: 'Shape' } })).json.key as string;
      const partner = (await api.call('POST', '/core/api/v1/admin/lab-partners/', { body: { name: 'Paging Labs' }, authorization: TEST_API_KEY })).json
        .id as string;
      await installPlugin(api.url, 'paged', [{ className: 'Quiet', events: ['PLAN_COMMAND__POST_COMMIT'], compute: 'return [];' }]);
      const spec = (await api.call('GET', '/openapi.json', { token: null })).json;
      // Every GET whose 200 answer is a page: a count and results (a log tail has results only).
      const answerOf = (op: any) => {
        const schema = op?.responses?.['200']?.content?.['application/json']?.schema ?? {};
        return typeof schema.$ref === 'string' ? spec.components.schemas[schema.$ref.split('/').at(-1)] : schema;
      };
      lists = Object.entries(spec.paths as Record<string, Record<string, any>>)
        .filter(
          ([, ops]) => ops.get !== undefined && answerOf(ops.get)?.properties?.count !== undefined && answerOf(ops.get)?.properties?.results !== undefined,
        )
        .map(([path]) => path);
      for (const path of lists) {
        concrete.set(path, path.replace('{key}', patient).replace('{id}', partner).replace('{name}', 'paged'));
      }
    });
    after(async () => {
      await api?.stop();
    });

    const call = (path: string) =>
      api.call('GET', path, path.startsWith('/core/api/v1/admin/') || path.startsWith('/core/api/v1/plugins/') ? { authorization: TEST_API_KEY } : {});

    it('finds every list of the API in its document', () => {
      for (const expected of [
        '/core/api/v1/commands',
        '/core/api/v1/notes',
        '/core/api/v1/patients',
        '/core/api/v1/patients/{key}/conditions/',
        '/core/api/v1/patients/{key}/banner-alerts/',
        '/core/api/v1/plugins/',
        '/core/api/v1/plugins/{name}/dead-letters/',
        '/core/api/v1/admin/staff/',
        '/core/api/v1/admin/lab-partners/{id}/tests/',
      ]) {
        assert.ok(lists.includes(expected), `${expected} in ${lists.join(', ')}`);
      }
    });

    it('documents limit and offset as bounded integers on every list', async () => {
      const spec = (await api.call('GET', '/openapi.json', { token: null })).json;
      for (const path of lists) {
        const params = spec.paths[path].get.parameters as Array<{ name: string; in: string; schema: Record<string, unknown> }>;
        const limit = params.find((p) => p.name === 'limit' && p.in === 'query');
        const offset = params.find((p) => p.name === 'offset' && p.in === 'query');
        assert.deepEqual(
          [limit?.schema.type, limit?.schema.minimum, limit?.schema.maximum, offset?.schema.type, offset?.schema.minimum],
          ['integer', 1, 1000, 'integer', 0],
          path,
        );
      }
    });

    it('answers the same page shape on every list, links keeping the page', async () => {
      for (const path of lists) {
        const r = await call(`${concrete.get(path)}?limit=1`);
        assert.equal(r.status, 200, `${path}: ${r.text}`);
        assert.deepEqual(Object.keys(r.json).sort(), PAGE_KEYS, path);
        assert.equal(typeof r.json.count, 'number', path);
        assert.equal(typeof r.json.count_is_estimate, 'boolean', path);
        assert.equal(r.json.previous, null, path);
        assert.ok(r.json.results.length <= 1, path);
        if (r.json.next !== null) assert.match(r.json.next, /[?&]limit=1&offset=1$/, path);
      }
    });

    it('refuses a bad limit or offset on every list with a 400 naming it, whatever the list', async () => {
      const bad: Array<[string, string]> = [
        ['limit=abc', 'querystring.limit'],
        ['limit=0', 'querystring.limit'],
        ['limit=1001', 'querystring.limit'],
        ['limit=1.5', 'querystring.limit'],
        ['limit=', 'querystring.limit'],
        ['limit=1&limit=2', 'querystring.limit'],
        ['offset=-1', 'querystring.offset'],
        ['offset=x', 'querystring.offset'],
        ['offset=10000001', 'querystring.offset'],
        ['limit=1e999', 'querystring.limit'],
        ['limit=Infinity', 'querystring.limit'],
        ['limit=2e1', 'querystring.limit'],
        ['limit=0x10', 'querystring.limit'],
        ['limit=%2020', 'querystring.limit'],
        ['offset=1e3', 'querystring.offset'],
      ];
      for (const path of lists) {
        for (const [query, field] of bad) {
          const r = await call(`${concrete.get(path)}?${query}`);
          assert.equal(r.status, 400, `${path}?${query}: ${r.text}`);
          assert.equal(r.json.code, 'validation_failed', `${path}?${query}`);
          assert.ok(
            r.json.errors.some((e: { field: string }) => e.field === field),
            `${path}?${query}: ${JSON.stringify(r.json.errors)}`,
          );
        }
      }
    });
  });
});
