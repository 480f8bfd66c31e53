// Plugin secrets (docs/api.md, "Plugin secrets") on both engines: set, list and remove through the
// JSON endpoint and through the original tool's repeated base64 `secret` fields on install and
// PATCH; every refusal (an undeclared name, bad base64, a NUL, an oversize value, too many) is a
// 400 with nothing written; and no value ever appears in a response, an audit row or the log
// stream.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ENGINES, TEST_API_KEY, TEST_CLIENT_ID, TEST_CLIENT_SECRET, startInstance, toReply, type Instance, type Reply } from './support/harness.ts';
import { manifestJson, tarFromDir, VITALS_HANDLER_JS } from './support/archives.ts';
import type { LogEntry } from '../src/logs/bus.ts';
import { pluginSecretValues } from '../src/storage/plugin-secrets-repository.ts';

const P = '/core/api/v1/plugins';
const NAME = 'secret-keeper';

/** A plugin package declaring `secrets`, with a handler module a sandbox could load. */
const pluginTarball = (secrets: string[], version = '1.0.0') =>
  tarFromDir(
    {
      'CHARTA_MANIFEST.json': manifestJson({ name: NAME, plugin_version: version, secrets }),
      'dist/index.js': "export class VitalsHandler {\n  static RESPONDS_TO = ['PLAN_COMMAND__POST_COMMIT'];\n  compute() { return []; }\n}\n",
      'README.md': '# Secret keeper\n',
    },
    ['.'],
  );

const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');

// Values that must never be seen again outside the secrets table.
const TOKEN_VALUE = 'tok-7f3a9c1e5b2d4f60-never-shown';
const WEBHOOK_VALUE = 'https://hooks.example.org/abc123-never-shown';
const INSTALL_VALUE = 'installed-value-5e8d1c-never-shown';
const PATCH_VALUE = 'patched-value-93b0a4-never-shown';
const VALUES = [TOKEN_VALUE, WEBHOOK_VALUE, INSTALL_VALUE, PATCH_VALUE];

for (const engine of ENGINES) {
  describe(`plugin secrets (${engine})`, () => {
    let api: Instance;
    const responses: string[] = [];
    const logLines: string[] = [];
    let stopListening: () => void = () => undefined;

    before(async () => {
      api = await startInstance(engine);
      stopListening = api.app.logs.subscribe((_entry: LogEntry, line: string) => logLines.push(line));
    });
    after(async () => {
      stopListening();
      await api?.stop();
    });

    const keep = (r: Reply) => {
      responses.push(r.text, JSON.stringify([...r.headers.entries()]));
      return r;
    };
    const call = async (method: string, path: string, options: Parameters<Instance['call']>[2] = {}) =>
      keep(await api.call(method, path, { authorization: TEST_API_KEY, ...options }));
    /** Multipart as the original tool sends it: `package`, `is_enabled`, and repeated `secret` fields. */
    const upload = async (method: 'POST' | 'PATCH', path: string, file: Buffer | undefined, secrets: string[], fields: Record<string, string> = {}) => {
      const form = new FormData();
      for (const [k, v] of Object.entries(fields)) form.set(k, v);
      for (const s of secrets) form.append('secret', s);
      if (file) form.set('package', new Blob([new Uint8Array(file)]), 'plugin.tar.gz');
      return keep(await toReply(await fetch(api.url + path, { method, body: form, headers: { authorization: TEST_API_KEY } })));
    };
    const listing = async (name = NAME) => {
      const r = await call('GET', `${P}/${name}/secrets/`);
      assert.equal(r.status, 200, r.text);
      return r.json.results as Array<{ name: string; declared: boolean; is_set: boolean; updated_at: string | null }>;
    };
    const values = () => pluginSecretValues(api.storage.db, api.app.keyring, NAME);
    const pluginRow = () => api.storage.db.selectFrom('plugins').select(['updated_at', 'version']).where('name', '=', NAME).executeTakeFirst();
    const auditCount = async () =>
      Number(
        (
          await api.storage.db
            .selectFrom('audit_events')
            .select((eb) => eb.fn.countAll().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      );
    /** What a refused request must leave alone. */
    const snapshot = async () => ({ values: await values(), plugin: await pluginRow(), audits: await auditCount() });

    it('install with `secret` fields sets them in its own transaction; the listing names them, never a value', async () => {
      const r = await upload('POST', `${P}/`, await pluginTarball(['API_TOKEN', 'WEBHOOK_URL', 'UNUSED']), [b64(`API_TOKEN=${INSTALL_VALUE}`)], {
        is_enabled: 'True',
      });
      assert.equal(r.status, 201, r.text);
      assert.deepEqual(await values(), { API_TOKEN: INSTALL_VALUE });
      const results = await listing();
      assert.deepEqual(
        results.map(({ updated_at: _u, ...rest }) => rest),
        [
          { name: 'API_TOKEN', declared: true, is_set: true },
          { name: 'WEBHOOK_URL', declared: true, is_set: false },
          { name: 'UNUSED', declared: true, is_set: false },
        ],
      );
      assert.match(results[0]!.updated_at!, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
      assert.equal(results[1]!.updated_at, null);
    });

    it('PATCH …/secrets/ sets and removes ({KEY: null}) in one write, bumps the plugin, and answers the listing', async () => {
      const before = (await pluginRow())!;
      const r = await call('PATCH', `${P}/${NAME}/secrets/`, { body: { API_TOKEN: TOKEN_VALUE, WEBHOOK_URL: WEBHOOK_VALUE } });
      assert.equal(r.status, 200, r.text);
      assert.deepEqual(
        r.json.results.map((s: { name: string; is_set: boolean }) => [s.name, s.is_set]),
        [
          ['API_TOKEN', true],
          ['WEBHOOK_URL', true],
          ['UNUSED', false],
        ],
      );
      assert.deepEqual(await values(), { API_TOKEN: TOKEN_VALUE, WEBHOOK_URL: WEBHOOK_VALUE });
      assert.ok((await pluginRow())!.updated_at > before.updated_at, 'the plugin row is bumped: the runtime notices by it');

      const removed = await call('PATCH', `${P}/${NAME}/secrets/`, { body: { WEBHOOK_URL: null } });
      assert.equal(removed.status, 200, removed.text);
      assert.deepEqual(await values(), { API_TOKEN: TOKEN_VALUE });
      assert.equal(removed.json.results[1].is_set, false);
      assert.equal(removed.json.results[1].updated_at, null);
      assert.deepEqual(await listing(), removed.json.results);

      // Removing what is not set, or an empty change, writes nothing.
      const audits = await auditCount();
      const plugin = await pluginRow();
      assert.equal((await call('PATCH', `${P}/${NAME}/secrets/`, { body: { WEBHOOK_URL: null } })).status, 200);
      assert.equal((await call('PATCH', `${P}/${NAME}/secrets/`, { body: {} })).status, 200);
      assert.equal(await auditCount(), audits);
      assert.deepEqual(await pluginRow(), plugin);
    });

    it('PATCH of the plugin takes `secret` fields, multipart or form-encoded, with or without a package', async () => {
      const multipart = await upload('PATCH', `${P}/${NAME}/`, undefined, [b64(`WEBHOOK_URL=${PATCH_VALUE}`)]);
      assert.equal(multipart.status, 200, multipart.text);
      assert.deepEqual(await values(), { API_TOKEN: TOKEN_VALUE, WEBHOOK_URL: PATCH_VALUE });

      const form = `secret=${encodeURIComponent(b64('UNUSED=x=y'))}&secret=${encodeURIComponent(b64('WEBHOOK_URL=' + WEBHOOK_VALUE))}&is_enabled=False`;
      const encoded = await call('PATCH', `${P}/${NAME}/`, { raw: { contentType: 'application/x-www-form-urlencoded', data: form } });
      assert.equal(encoded.status, 200, encoded.text);
      assert.equal(encoded.json.is_enabled, false);
      assert.deepEqual(await values(), { API_TOKEN: TOKEN_VALUE, UNUSED: 'x=y', WEBHOOK_URL: WEBHOOK_VALUE }, 'split at the first =');

      // A new version that no longer declares UNUSED: its value stays (declared: false) and may be removed, not set.
      const v2 = await upload('PATCH', `${P}/${NAME}/`, await pluginTarball(['API_TOKEN', 'WEBHOOK_URL'], '2.0.0'), []);
      assert.equal(v2.status, 200, v2.text);
      assert.deepEqual((await listing()).at(-1), { ...(await listing()).at(-1), name: 'UNUSED', declared: false, is_set: true });
      const refused = await call('PATCH', `${P}/${NAME}/secrets/`, { body: { UNUSED: 'again' } });
      assert.equal(refused.status, 400, refused.text);
      assert.equal((await call('PATCH', `${P}/${NAME}/secrets/`, { body: { UNUSED: null } })).status, 200);
      assert.deepEqual(
        (await listing()).map((s) => s.name),
        ['API_TOKEN', 'WEBHOOK_URL'],
      );
    });

    it('refuses, with every reason and nothing written: undeclared names, NUL, oversize values, too many, bad `secret` fields', async () => {
      const before = await snapshot();
      const refusals: Array<[string, () => Promise<Reply>, RegExp[]]> = [
        [
          'undeclared and oversize together',
          () => call('PATCH', `${P}/${NAME}/secrets/`, { body: { NOT_DECLARED: 'x', API_TOKEN: 'y'.repeat(4097) } }),
          [/secrets\.NOT_DECLARED: is not declared/, /secrets\.API_TOKEN: must be at most 4096 bytes/],
        ],
        ['4 KiB counted in bytes', () => call('PATCH', `${P}/${NAME}/secrets/`, { body: { API_TOKEN: 'é'.repeat(2049) } }), [/at most 4096 bytes/]],
        ['NUL in JSON', () => call('PATCH', `${P}/${NAME}/secrets/`, { body: { API_TOKEN: 'a\u0000b' } }), [/NUL/]],
        ['not a string', () => call('PATCH', `${P}/${NAME}/secrets/`, { body: { API_TOKEN: 5 } }), [/API_TOKEN/]],
        ['not an object', () => call('PATCH', `${P}/${NAME}/secrets/`, { body: ['API_TOKEN'] }), [/body/]],
        [
          'more than 100',
          () => call('PATCH', `${P}/${NAME}/secrets/`, { body: Object.fromEntries(Array.from({ length: 101 }, (_, i) => [`S${i}`, null])) }),
          [/at most 100 secrets/],
        ],
        ['bad base64', () => upload('PATCH', `${P}/${NAME}/`, undefined, [b64('API_TOKEN=ok'), '!!not base64!!']), [/secret\[1\]: must be base64/]],
        ['no =', () => upload('PATCH', `${P}/${NAME}/`, undefined, [b64('API_TOKEN')]), [/secret\[0\]: .*KEY=value/]],
        ['not UTF-8', () => upload('PATCH', `${P}/${NAME}/`, undefined, [Buffer.from([0x41, 0x3d, 0xff, 0xfe]).toString('base64')]), [/UTF-8/]],
        ['NUL in a field', () => upload('PATCH', `${P}/${NAME}/`, undefined, [b64('API_TOKEN=a\u0000b')]), [/secrets\.API_TOKEN: must not contain a NUL/]],
        ['twice', () => upload('PATCH', `${P}/${NAME}/`, undefined, [b64('API_TOKEN=a'), b64('API_TOKEN=b')]), [/a second time/]],
        [
          'undeclared in a field',
          () => upload('PATCH', `${P}/${NAME}/`, undefined, [b64('OTHER=a')], { is_enabled: 'True' }),
          [/secrets\.OTHER: is not declared/],
        ],
        [
          'oversize field',
          () => upload('PATCH', `${P}/${NAME}/`, undefined, [b64(`API_TOKEN=${'z'.repeat(4097)}`)]),
          [/secrets\.API_TOKEN: must be at most 4096 bytes/],
        ],
      ];
      for (const [label, send, patterns] of refusals) {
        const r = await send();
        assert.equal(r.status, 400, `${label}: ${r.text}`);
        assert.equal(r.json.code, 'validation_failed', label);
        for (const pattern of patterns) assert.match(r.json.detail, pattern, label);
        assert.deepEqual(await snapshot(), before, `${label}: nothing written`);
      }
      // A new package that drops a secret, sent with that secret: the package is refused too.
      const r = await upload('PATCH', `${P}/${NAME}/`, await pluginTarball(['API_TOKEN'], '3.0.0'), [b64('WEBHOOK_URL=x')]);
      assert.equal(r.status, 400, r.text);
      assert.deepEqual(await snapshot(), before, 'the installed version stays live, nothing written');
    });

    it('a bad secret refuses the install: no plugin, no secret', async () => {
      const other = await tarFromDir(
        { 'CHARTA_MANIFEST.json': manifestJson({ name: 'Other Keeper', secrets: ['A'] }), 'dist/index.js': VITALS_HANDLER_JS, 'README.md': '#\n' },
        ['.'],
      );
      const refused = await upload('POST', `${P}/`, other, [b64('A=ok'), b64('B=nope')]);
      assert.equal(refused.status, 400, refused.text);
      assert.match(refused.json.detail, /secrets\.B: is not declared/);
      assert.equal((await call('GET', `${P}/other-keeper/`)).status, 404);
      assert.deepEqual(await pluginSecretValues(api.storage.db, api.app.keyring, 'other-keeper'), {});
    });

    it('404 for an unknown plugin; 401 without credentials; 403 for a token without the plugin scope', async () => {
      const clinicalOnly = await api.call('POST', '/auth/token/', {
        token: null,
        raw: {
          contentType: 'application/x-www-form-urlencoded',
          data: `grant_type=client_credentials&client_id=${TEST_CLIENT_ID}&client_secret=${TEST_CLIENT_SECRET}&scope=${encodeURIComponent('user/*.*')}`,
        },
      });
      assert.equal(clinicalOnly.status, 200, clinicalOnly.text);
      for (const [method, body] of [
        ['GET', undefined],
        ['PATCH', { API_TOKEN: 'x' }],
      ] as const) {
        const missing = await call(method, `${P}/no-such-plugin/secrets/`, { body });
        assert.equal(missing.status, 404, missing.text);
        assert.equal(missing.json.code, 'plugin_not_found');
        assert.equal(keep(await api.call(method, `${P}/${NAME}/secrets/`, { body, token: null })).status, 401);
        assert.equal(keep(await api.call(method, `${P}/${NAME}/secrets/`, { body, authorization: 'wrong-key' })).status, 401);
        const token = keep(await api.call(method, `${P}/${NAME}/secrets/`, { body, token: clinicalOnly.json.access_token }));
        assert.equal(token.status, 403, token.text);
      }
      assert.equal((await values()).API_TOKEN, TOKEN_VALUE);
    });

    it('the audit names the secrets set and removed, never a value; the log stream likewise', async () => {
      const rows = await api.storage.db.selectFrom('audit_events').selectAll().where('action', '=', 'plugin.secrets_changed').orderBy('id').execute();
      assert.ok(rows.length >= 4, `${rows.length} secret audit rows`);
      assert.deepEqual(JSON.parse(rows[0]!.after!), { set: ['API_TOKEN'], removed: [] });
      assert.deepEqual(JSON.parse(rows[1]!.after!), { set: ['API_TOKEN', 'WEBHOOK_URL'], removed: [] });
      assert.deepEqual(JSON.parse(rows[2]!.after!), { set: [], removed: ['WEBHOOK_URL'] });
      const secretLines = logLines.filter((l) => l.includes(' secrets '));
      assert.ok(
        secretLines.some((l) => l.includes(`plugin ${NAME} secrets set: API_TOKEN, WEBHOOK_URL`)),
        secretLines.join('\n'),
      );
      assert.ok(secretLines.some((l) => l.includes(`plugin ${NAME} secrets removed: WEBHOOK_URL`)));
      assert.ok(secretLines.every((l) => (JSON.parse(l) as LogEntry).plugin === NAME));

      const audit = JSON.stringify(await api.storage.db.selectFrom('audit_events').selectAll().execute());
      const everything = { responses: responses.join('\n'), audit, logs: logLines.join('\n') };
      for (const value of VALUES) {
        for (const [where, text] of Object.entries(everything)) assert.ok(!text.includes(value), `${where} holds a secret value`);
      }
      assert.ok(responses.length > 40, 'the responses were captured');
    });

    it('deleting the plugin removes its secrets', async () => {
      assert.notDeepEqual(await values(), {});
      assert.equal((await call('DELETE', `${P}/${NAME}/?force=true`)).status, 204);
      assert.deepEqual(await values(), {});
    });
  });
}
