// `charta plugin list` shows each plugin's routes with their authentication, and flags the public
// ones across every plugin (docs/cli.md, "charta plugin list"; docs/plugins.md, "HTTP routes").
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { TEST_API_KEY, startInstance, type Instance } from '../../server/test/support/harness.ts';
import { installPlugin } from '../../server/test/support/plugins.ts';
import { charta, single, tempDir } from './support/cli.ts';

describe('charta plugin list and routes (sqlite)', () => {
  let api: Instance;
  const env = { CHARTA_CONFIG_DIR: path.join(tempDir('charta-routes-'), 'config') };

  before(async () => {
    api = await startInstance('sqlite');
    single(await charta(['auth', 'add-api-key', '--host', api.url, '--api-key', TEST_API_KEY, '--is-default'], env), 0);
    const compute = "    return [{ type: 'HTTP_RESPONSE', payload: { status: 200, body: {} } }];";
    await installPlugin(api.url, 'open-form', [
      {
        className: 'Form',
        events: ['SIMPLE_API_REQUEST'],
        statics: {
          ROUTES: [
            { method: 'GET', path: '/form', public: true },
            { method: 'POST', path: '/form', auth: 'staff' },
          ],
        },
        compute,
      },
    ]);
    await installPlugin(api.url, 'closed', [
      {
        className: 'Hook',
        events: ['SIMPLE_API_REQUEST'],
        statics: { ROUTES: [{ method: 'POST', path: '/hook', auth: 'secret', signature_header: 'x-sig' }] },
        compute,
      },
    ]);
  });
  after(async () => api?.stop());

  it('lists every route with its authentication, and the public ones apart', async () => {
    const line = single(await charta(['plugin', 'list'], env), 0);
    const message = line.message as { results: Array<{ name: string; routes: Array<{ method: string; url: string; auth: string }> }>; public_routes: string[] };
    assert.deepEqual(
      message.results.map((p) => [p.name, p.routes.map((r) => `${r.method} ${r.url} ${r.auth}`)]),
      [
        ['closed', ['POST /plugin-io/api/closed/hook secret']],
        ['open-form', ['GET /plugin-io/api/open-form/form public', 'POST /plugin-io/api/open-form/form staff']],
      ],
    );
    assert.deepEqual(message.public_routes, ['GET /plugin-io/api/open-form/form']);
  });
});
