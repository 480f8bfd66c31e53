// OAuth client credentials, API keys, 401 on every protected route, secrets hashed at rest,
// bootstrap variables idempotent across restarts, and the credential subcommands.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import path from 'node:path';
import {
  ENGINES,
  TEST_API_KEY,
  TEST_CLIENT_ID,
  TEST_CLIENT_SECRET,
  createDatabase,
  request,
  startInstance,
  testConfig,
  type Instance,
} from './support/harness.ts';
import { startServer } from '../src/server.ts';
import { installPlugin, ROUTES_OF_EVERY_AUTH, untilRunning } from './support/plugins.ts';

const run = promisify(execFile);
const BIN = path.resolve(import.meta.dirname, '../bin/charta-server.js');
const form = (data: string) => ({ raw: { contentType: 'application/x-www-form-urlencoded', data }, token: null });

for (const engine of ENGINES) {
  describe(`auth (${engine})`, () => {
    let api: Instance;
    before(async () => {
      api = await startInstance(engine);
    });
    after(async () => api?.stop());

    it('issues a 10-hour bearer token for form, JSON and HTTP Basic client credentials', async () => {
      const r = await api.call('POST', '/auth/token/', form(`grant_type=client_credentials&client_id=${TEST_CLIENT_ID}&client_secret=${TEST_CLIENT_SECRET}`));
      assert.equal(r.status, 200, r.text);
      assert.equal(r.json.token_type, 'Bearer');
      assert.equal(r.json.expires_in, 36000);
      assert.equal(typeof r.json.scope, 'string');
      assert.ok(r.json.access_token.length >= 40);
      assert.equal(r.headers.get('cache-control'), 'no-store');
      const json = await api.call('POST', '/auth/token/', {
        body: { grant_type: 'client_credentials', client_id: TEST_CLIENT_ID, client_secret: TEST_CLIENT_SECRET },
        token: null,
      });
      assert.equal(json.status, 200);
      const basic = Buffer.from(`${TEST_CLIENT_ID}:${TEST_CLIENT_SECRET}`).toString('base64');
      const viaBasic = await api.call('POST', '/auth/token/', { ...form('grant_type=client_credentials'), authorization: `Basic ${basic}` });
      assert.equal(viaBasic.status, 200);
      const use = await api.call('GET', '/core/api/v1/commands', { token: viaBasic.json.access_token });
      assert.equal(use.status, 200);
    });

    it('refuses a wrong secret, an unknown client and other grant types', async () => {
      for (const data of [
        `grant_type=client_credentials&client_id=${TEST_CLIENT_ID}&client_secret=wrong`,
        'grant_type=client_credentials&client_id=nobody&client_secret=x',
      ]) {
        const r = await api.call('POST', '/auth/token/', form(data));
        assert.equal(r.status, 401);
        assert.equal(r.json.code, 'invalid_client');
        assert.equal(r.json.error, 'invalid_client');
      }
      const grant = await api.call('POST', '/auth/token/', form('grant_type=password&username=a&password=b'));
      assert.equal(grant.status, 400);
      const scope = await api.call(
        'POST',
        '/auth/token/',
        form(`grant_type=client_credentials&client_id=${TEST_CLIENT_ID}&client_secret=${TEST_CLIENT_SECRET}&scope=system/Everything.*`),
      );
      assert.equal(scope.status, 400);
      assert.equal(scope.json.code, 'invalid_scope');
      assert.equal(scope.json.error, 'invalid_scope');
      const narrowed = await api.call(
        'POST',
        '/auth/token/',
        form(`grant_type=client_credentials&client_id=${TEST_CLIENT_ID}&client_secret=${TEST_CLIENT_SECRET}&scope=system/Plugins.*`),
      );
      assert.equal(narrowed.json.scope, 'system/Plugins.*');
      // A token without user/*.* may not touch clinical data.
      const clinical = await api.call('GET', '/core/api/v1/commands', { token: narrowed.json.access_token });
      assert.equal(clinical.status, 403);
      assert.match(clinical.json.detail, /user\/\*\.\*/);
      const missing = await api.call('POST', '/auth/token/', form('grant_type=client_credentials'));
      assert.equal(missing.status, 400);
      assert.equal(missing.json.error, 'invalid_request');
      assert.equal(grant.json.error, 'unsupported_grant_type');
    });

    it('every 400 of the token endpoint carries an OAuth error member, malformed requests too', async () => {
      const cases = [
        form('grant_type=client_credentials&client_id=x&client_secret=y&unknown=1'),
        { raw: { contentType: 'application/json', data: '{"grant_type": ' }, token: null },
        { raw: { contentType: 'application/json', data: '{"grant_type": 5}' }, token: null },
      ];
      for (const options of cases) {
        const r = await api.call('POST', '/auth/token/', options);
        assert.equal(r.status, 400, r.text);
        assert.equal(r.json.error, 'invalid_request', r.text);
        assert.ok(['validation_failed', 'malformed_body'].includes(r.json.code), r.text);
      }
      // Other endpoints keep plain problems.
      const other = await api.call('POST', '/core/api/v1/patients/', { raw: { contentType: 'application/json', data: '{"firstName": ' } });
      assert.equal(other.status, 400);
      assert.equal(other.json.error, undefined);
    });

    it('answers 401 on every protected route without or with bad credentials', async () => {
      const spec = (await api.call('GET', '/openapi.json', { token: null })).json;
      const uuid = '00000000-0000-4000-8000-000000000000';
      let checked = 0;
      for (const [route, methods] of Object.entries(spec.paths as Record<string, Record<string, unknown>>)) {
        if (route === '/auth/token/') continue;
        const url = route.replace(/\{[^}]+\}/g, (m) => (m === '{key}' ? '0'.repeat(32) : m === '{field}' ? 'narrative' : uuid));
        for (const method of Object.keys(methods)) {
          // A route whose only security requirement is the empty one is public, not protected (/healthz, /readyz).
          const security = (methods[method] as { security?: object[] }).security;
          if (security?.length === 1 && Object.keys(security[0]!).length === 0) continue;
          for (const authorization of [undefined, 'Bearer not-a-token', 'garbage', 'Bearer ']) {
            const r = await request(api.url, method.toUpperCase(), url, authorization === undefined ? { token: null } : { authorization }, '');
            assert.equal(r.status, 401, `${method} ${url} with ${authorization}: ${r.text}`);
            assert.equal(r.json.code, 'unauthorized');
            assert.match(r.headers.get('www-authenticate') ?? '', /Bearer/);
            checked++;
          }
        }
      }
      assert.ok(checked >= 40, `checked ${checked}`);
    });

    it("answers 401 on every route a plugin declares with credentials, without or with bad ones; a secret route's handler refuses a bad signature", async () => {
      await installPlugin(api.url, 'swept', [ROUTES_OF_EVERY_AUTH], { secrets: ['KEY'] });
      await untilRunning(api.url, 'swept');
      const spec = (await api.call('GET', '/plugin-io/api/swept/openapi.json', { token: null })).json;
      let checked = 0;
      for (const [route, methods] of Object.entries(spec.paths as Record<string, Record<string, { security: object[] }>>)) {
        const url = `/plugin-io/api/swept${route.replace(/\{[^}]+\}/g, 'x')}`;
        for (const [method, op] of Object.entries(methods)) {
          if (op.security.length === 0) {
            assert.equal((await request(api.url, method.toUpperCase(), url, { token: null }, '')).status, 200, `${method} ${url} is public`);
            continue;
          }
          const signed = route === '/signed';
          for (const authorization of [undefined, 'Bearer not-a-token', 'garbage', signed ? `Bearer ${api.token}` : 'Bearer ']) {
            const headers = signed ? { 'x-signature': 'not-the-hmac' } : undefined;
            const r = await request(
              api.url,
              method.toUpperCase(),
              url,
              { ...(authorization === undefined ? { token: null } : { authorization }), headers, body: {} },
              '',
            );
            assert.equal(r.status, 401, `${method} ${url} with ${authorization}: ${r.text}`);
            checked++;
          }
        }
      }
      assert.equal(checked, 12, 'three routes with credentials, four tries each');
    });

    it('keeps /openapi.json and /docs public', async () => {
      assert.equal((await api.call('GET', '/openapi.json', { token: null })).status, 200);
      const docs = await fetch(`${api.url}/docs`, { redirect: 'follow' });
      assert.equal(docs.status, 200);
    });

    it('lets API keys authenticate but keeps clinical writes for OAuth tokens (403)', async () => {
      for (const authorization of [TEST_API_KEY, `Bearer ${TEST_API_KEY}`]) {
        const r = await api.call('GET', '/core/api/v1/commands', { authorization });
        assert.equal(r.status, 403, r.text);
        assert.equal(r.json.code, 'forbidden');
      }
    });

    it('stores only hashes of keys, secrets and tokens', async () => {
      const db = api.storage.db;
      const keys = await db.selectFrom('api_keys').select('key_hash').execute();
      const clients = await db.selectFrom('oauth_clients').select('secret_hash').execute();
      const tokens = await db.selectFrom('access_tokens').select('token_hash').execute();
      const stored = JSON.stringify([keys, clients, tokens]);
      for (const secret of [TEST_API_KEY, TEST_CLIENT_SECRET, api.token]) assert.ok(!stored.includes(secret));
      assert.ok(clients.every((c) => c.secret_hash.startsWith('scrypt$')));
      assert.ok(tokens.length > 0 && tokens.every((t) => /^[0-9a-f]{64}$/.test(t.token_hash)));
    });
  });

  describe(`bootstrap and credential commands (${engine})`, () => {
    it('bootstrap variables are idempotent across restarts, and a rotated secret wins', async () => {
      const db = await createDatabase(engine);
      try {
        for (let i = 0; i < 2; i++) {
          const running = await startServer(testConfig(db), () => undefined);
          const count = async (t: 'api_keys' | 'oauth_clients') =>
            Number(
              (
                await running.storage.db
                  .selectFrom(t)
                  .select((e) => e.fn.countAll().as('n'))
                  .executeTakeFirstOrThrow()
              ).n,
            );
          assert.equal(await count('api_keys'), 1);
          assert.equal(await count('oauth_clients'), 1);
          await running.close();
        }
        const rotated = await startServer(testConfig(db, { bootstrapClientSecret: 'a-new-secret-0123456789' }), () => undefined);
        const bad = await request(
          rotated.url,
          'POST',
          '/auth/token/',
          form(`grant_type=client_credentials&client_id=${TEST_CLIENT_ID}&client_secret=${TEST_CLIENT_SECRET}`),
          '',
        );
        const good = await request(
          rotated.url,
          'POST',
          '/auth/token/',
          form(`grant_type=client_credentials&client_id=${TEST_CLIENT_ID}&client_secret=a-new-secret-0123456789`),
          '',
        );
        await rotated.close();
        assert.equal(bad.status, 401);
        assert.equal(good.status, 200);
      } finally {
        await db.drop();
      }
    });

    it('first start without bootstrap variables prints generated credentials once', async () => {
      const db = await createDatabase(engine);
      try {
        const base = { ...testConfig(db), bootstrapApiKey: undefined, bootstrapClientId: undefined, bootstrapClientSecret: undefined, demo: true };
        let printed = '';
        const first = await startServer(base, (t) => (printed += t));
        await first.close();
        const id = /OAuth client id:\s+(\S+)/.exec(printed)?.[1];
        const secret = /OAuth client secret:\s+(\S+)/.exec(printed)?.[1];
        assert.ok(id && secret, printed);
        assert.match(printed, /API key \(plugin tool\):\s+\S{40,}/);
        assert.match(printed, /letter \(no commands\)\s+[0-9a-f-]{36}/);
        let again = '';
        const second = await startServer(base, (t) => (again += t));
        const token = await request(second.url, 'POST', '/auth/token/', form(`grant_type=client_credentials&client_id=${id}&client_secret=${secret}`), '');
        await second.close();
        assert.doesNotMatch(again, /client secret/);
        assert.equal(token.status, 200);
      } finally {
        await db.drop();
      }
    });

    it('an empty database with bootstrap variables still gets the demo data, printed once', async () => {
      const db = await createDatabase(engine);
      try {
        let printed = '';
        const first = await startServer({ ...testConfig(db), demo: true }, (t) => (printed += t));
        await first.close();
        assert.doesNotMatch(printed, /client secret/);
        assert.match(printed, /encounter \(unlocked\)\s+[0-9a-f-]{36}/);
        assert.match(printed, new RegExp(`client_id=${TEST_CLIENT_ID}`));
        let again = '';
        const second = await startServer({ ...testConfig(db), demo: true }, (t) => (again += t));
        const patients = await second.storage.db.selectFrom('patients').select('key').execute();
        await second.close();
        assert.equal(patients.length, 1);
        assert.doesNotMatch(again, /Demo patient/);
      } finally {
        await db.drop();
      }
    });

    it('charta-server migrate, create-client and create-api-key work from the command line', async () => {
      const db = await createDatabase(engine);
      const env = { ...process.env, CHARTA_DATABASE_URL: db.url, CHARTA_DATA_DIR: db.dataDir };
      try {
        const migrated = await run(process.execPath, [BIN, 'migrate'], { env });
        assert.match(migrated.stdout, /Applied: 001-initial/);
        assert.match((await run(process.execPath, [BIN, 'migrate'], { env })).stdout, /Up to date/);
        const client = JSON.parse((await run(process.execPath, [BIN, 'create-client', '--name', 'scribe'], { env })).stdout);
        const key = JSON.parse((await run(process.execPath, [BIN, 'create-api-key', '--label', 'ci'], { env })).stdout);
        const running = await startServer(
          { ...testConfig(db), bootstrapApiKey: undefined, bootstrapClientId: undefined, bootstrapClientSecret: undefined },
          () => undefined,
        );
        try {
          const token = await request(
            running.url,
            'POST',
            '/auth/token/',
            form(`grant_type=client_credentials&client_id=${client.client_id}&client_secret=${client.client_secret}`),
            '',
          );
          assert.equal(token.status, 200);
          const withKey = await request(running.url, 'GET', '/core/api/v1/commands', { authorization: key.api_key }, '');
          assert.equal(withKey.status, 403); // authenticated (not 401), but clinical data needs a token
        } finally {
          await running.close();
        }
      } finally {
        await db.drop();
      }
    });
  });
}

describe('database URLs are printed without passwords', () => {
  it('redacts the password in the user info and in the query', async () => {
    const { redactUrl } = await import('../src/config.ts');
    for (const url of [
      'postgres://u:s3cret@db/x',
      'postgres://:s3cret@db/x',
      'postgres://db/x?password=s3cret',
      'postgres://u:p@ss@db/x',
      'postgresql://u:s3cret@db:5432/x?sslmode=require',
    ]) {
      const shown = redactUrl(url);
      assert.doesNotMatch(shown, /s3cret|p@ss|ss@db/, `${url} → ${shown}`);
    }
    assert.equal(redactUrl('sqlite:./data/charta.db'), 'sqlite:./data/charta.db');
  });
});

describe('token endpoint rate limit', () => {
  it('answers 429 problems once an address exceeds CHARTA_TOKEN_RATE_LIMIT per minute', async () => {
    const api = await startInstance('sqlite', { tokenRateLimit: 3 });
    try {
      const statuses: number[] = [];
      let last;
      for (let i = 0; i < 3; i++) {
        last = await api.call('POST', '/auth/token/', form(`grant_type=client_credentials&client_id=${TEST_CLIENT_ID}&client_secret=wrong`));
        statuses.push(last.status);
      }
      assert.deepEqual(statuses, [401, 401, 429]); // the harness spent one on its own token
      assert.equal(last!.json.code, 'too_many_requests');
      assert.match(last!.headers.get('content-type') ?? '', /problem\+json/);
      assert.ok(last!.headers.get('retry-after'));
    } finally {
      await api.stop();
    }
  });
});
