// The plugin API (docs/api.md, "Plugins") on both engines: the original tool's wire format (multipart
// `package` + `is_enabled` True/False, form-encoded PATCH, raw API key), the store's rules, and
// hostile packages refused with nothing stored.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { ENGINES, TEST_API_KEY, startInstance, toReply, type Instance, type Reply } from './support/harness.ts';
import { buildZip, manifestJson, tarFromDir, tgz, VITALS_HANDLER_JS } from './support/archives.ts';
import { stored } from './support/plugins.ts';

const P = '/core/api/v1/plugins';

const pluginTarball = (version = '1.0.0', name = 'Vitals Alert') =>
  tarFromDir({ 'CHARTA_MANIFEST.json': manifestJson({ plugin_version: version, name }), 'dist/index.js': VITALS_HANDLER_JS, 'README.md': '# Vitals\n' }, ['.']);

const oldStyleWheel = () =>
  buildZip([
    { name: 'old_plugin/__init__.py', data: '' },
    { name: 'old_plugin-0.2.0.dist-info/METADATA', data: 'Metadata-Version: 2.1\nName: Old_Plugin\nVersion: 0.2.0\nSummary: Built for the original tool\n' },
  ]);

for (const engine of ENGINES) {
  describe(`plugin API (${engine})`, () => {
    let api: Instance;
    before(async () => {
      api = await startInstance(engine);
    });
    after(async () => api?.stop());

    /** A multipart request exactly as the original tool sends it, with the raw API key. */
    const upload = async (
      method: 'POST' | 'PATCH',
      path: string,
      file: Buffer | undefined,
      fields: Record<string, string> = {},
      filename = 'plugin.tar.gz',
    ): Promise<Reply> => {
      const form = new FormData();
      for (const [k, v] of Object.entries(fields)) form.set(k, v);
      if (file) form.set('package', new Blob([new Uint8Array(file)]), filename);
      return toReply(await fetch(api.url + path, { method, body: form, headers: { authorization: TEST_API_KEY } }));
    };
    const call = (method: string, path: string, options: Parameters<Instance['call']>[2] = {}) =>
      api.call(method, path, { authorization: TEST_API_KEY, ...options });
    const count = async () => (await call('GET', `${P}/`)).json.count as number;

    it('installs a tarball (201), lists, reads and serves its package byte for byte', async () => {
      const bytes = await pluginTarball();
      const r = await upload('POST', `${P}/`, bytes, { is_enabled: 'True' });
      assert.equal(r.status, 201, r.text);
      assert.deepEqual(Object.keys(r.json).sort(), [
        'created_at',
        'data',
        'description',
        'faults',
        'grants',
        'is_enabled',
        'name',
        'package',
        'package_checksum',
        'routes',
        'runnable',
        'runnable_reason',
        'runtime',
        'schedules',
        'updated_at',
        'version',
      ]);
      assert.deepEqual(r.json.grants, [], 'no grant unless an administrator gives one');
      assert.deepEqual(r.json.data, { read: [], scope: 'event_patient', reads_per_call: null, rows_per_call: null }, 'a manifest without data reads nothing');
      assert.equal(r.json.name, 'vitals-alert');
      assert.equal(r.json.version, '1.0.0');
      assert.equal(r.json.is_enabled, true);
      assert.equal(r.json.package_checksum, crypto.createHash('sha256').update(bytes).digest('hex'));
      assert.equal(r.json.package, `${api.url}${P}/vitals-alert/package/`);
      const list = await call('GET', `${P}/`);
      assert.equal(list.status, 200);
      assert.equal(list.json.count, 1);
      assert.deepEqual(stored(list.json.results[0]), stored(r.json));
      assert.deepEqual(stored((await call('GET', `${P}/vitals-alert/`)).json), stored(r.json));
      const download = await fetch(r.json.package, { headers: { authorization: TEST_API_KEY } });
      assert.equal(download.status, 200);
      assert.equal(download.headers.get('content-type'), 'application/gzip');
      assert.deepEqual(Buffer.from(await download.arrayBuffer()), bytes);
    });

    it('a second install of the same plugin is 400 plugin_exists; extract-metadata names it', async () => {
      const bytes = await pluginTarball('1.1.0');
      const r = await upload('POST', `${P}/`, bytes, { is_enabled: 'True' });
      assert.equal(r.status, 400);
      assert.equal(r.json.code, 'plugin_exists');
      const meta = await upload('POST', `${P}/extract-metadata/`, bytes);
      assert.equal(meta.status, 200);
      assert.equal(meta.json.name, 'vitals-alert');
      assert.equal(meta.json.version, '1.1.0');
    });

    it('PATCH replaces the package (200), form-encoded is_enabled=False disables, an empty PATCH changes nothing', async () => {
      const bytes = await pluginTarball('1.1.0');
      const r = await upload('PATCH', `${P}/vitals-alert/`, bytes, { is_enabled: 'True' });
      assert.equal(r.status, 200, r.text);
      assert.equal(r.json.version, '1.1.0');
      const off = await call('PATCH', `${P}/vitals-alert/`, { raw: { contentType: 'application/x-www-form-urlencoded', data: 'is_enabled=False' } });
      assert.equal(off.status, 200, off.text);
      assert.equal(off.json.is_enabled, false);
      const same = await call('PATCH', `${P}/vitals-alert/`);
      assert.equal(same.status, 200);
      assert.equal(same.json.updated_at, off.json.updated_at);
      const row = await api.storage.db
        .selectFrom('plugins')
        .select(['version', 'previous_version'])
        .where('name', '=', 'vitals-alert')
        .executeTakeFirstOrThrow();
      assert.deepEqual(row, { version: '1.1.0', previous_version: '1.0.0' });
    });

    it('a package of another plugin is refused on PATCH and the installed version stays live', async () => {
      const other = await pluginTarball('9.0.0', 'Something Else');
      const r = await upload('PATCH', `${P}/vitals-alert/`, other);
      assert.equal(r.status, 400);
      assert.equal(r.json.code, 'plugin_name_mismatch');
      assert.equal((await call('GET', `${P}/vitals-alert/`)).json.version, '1.1.0');
    });

    it('accepts a wheel built for the original tool (metadata from *.dist-info/METADATA)', async () => {
      const r = await upload('POST', `${P}/`, await oldStyleWheel(), { is_enabled: 'False' }, 'old_plugin-0.2.0-py3-none-any.whl');
      assert.equal(r.status, 201, r.text);
      assert.equal(r.json.name, 'old-plugin');
      assert.equal(r.json.is_enabled, false);
      const download = await fetch(r.json.package, { headers: { authorization: TEST_API_KEY } });
      assert.equal(download.headers.get('content-type'), 'application/zip');
    });

    it('DELETE refuses an enabled plugin unless force=true; 204 then 404', async () => {
      await upload('PATCH', `${P}/vitals-alert/`, undefined, { is_enabled: 'true' });
      const refused = await call('DELETE', `${P}/vitals-alert/`);
      assert.equal(refused.status, 400);
      assert.equal(refused.json.code, 'plugin_enabled');
      const forced = await call('DELETE', `${P}/vitals-alert/?force=true`);
      assert.equal(forced.status, 204);
      assert.equal(forced.text, '');
      assert.equal((await call('GET', `${P}/vitals-alert/`)).status, 404);
      assert.equal((await call('DELETE', `${P}/old-plugin/`)).status, 204);
      assert.equal(await count(), 0);
    });

    it('refuses hostile packages with their reasons and stores nothing', async () => {
      const cases: Array<[string, Buffer, RegExp]> = [
        [
          'path traversal',
          tgz([
            { path: '../evil.js', body: 'x' },
            { path: 'CHARTA_MANIFEST.json', body: manifestJson() },
          ]),
          /\.\./,
        ],
        [
          'absolute path',
          tgz([
            { path: '/etc/evil', body: 'x' },
            { path: 'CHARTA_MANIFEST.json', body: manifestJson() },
          ]),
          /absolute/,
        ],
        [
          'symlink',
          tgz([
            { path: 'link', type: 'SymbolicLink', linkpath: '/etc/passwd' },
            { path: 'CHARTA_MANIFEST.json', body: manifestJson() },
          ]),
          /link/,
        ],
        ['not gzip but named .tar.gz', Buffer.from('just some text, not an archive'), /not a wheel/],
        // The file name and the content must name the same kind (this case was accepted, judged by content only).
        [
          'a tarball named .whl',
          await pluginTarball(),
          /^the file name "plugin\.whl" names a wheel \(zip\), but the content is a gzip-compressed tar archive$/,
        ],
        ['manifest with a wrong type', tgz([{ path: 'CHARTA_MANIFEST.json', body: manifestJson({ components: 'x' }) }]), /components/],
      ];
      for (const [label, bytes, reason] of cases) {
        const filename = label.includes('.whl') ? 'plugin.whl' : 'plugin.tar.gz';
        const r = await upload('POST', `${P}/`, bytes, { is_enabled: 'True' }, filename);
        assert.equal(r.status, 400, `${label}: ${r.text}`);
        assert.equal(r.json.code, 'plugin_package_invalid', label);
        assert.ok(
          r.json.errors.some((e: { message: string }) => reason.test(e.message)),
          `${label}: ${r.text}`,
        );
      }
      assert.equal(await count(), 0);
    });

    it('a zip bomb is refused on the bytes actually inflated', async () => {
      const bomb = await buildZip([
        { name: 'CHARTA_MANIFEST.json', data: manifestJson() },
        { name: 'zeros.bin', data: Buffer.alloc(120 * 1024 * 1024) },
      ]);
      assert.ok(bomb.length < 1024 * 1024);
      const r = await upload('POST', `${P}/`, bomb, {}, 'bomb.whl');
      assert.equal(r.status, 400, r.text);
      assert.match(r.json.detail, /inflate|ratio|limit/i);
      assert.equal(await count(), 0);
    });

    it('no package, a second file, unknown fields and a bad is_enabled are 400', async () => {
      assert.equal((await upload('POST', `${P}/`, undefined, { is_enabled: 'True' })).json.code, 'plugin_package_missing');
      assert.equal((await upload('POST', `${P}/`, await pluginTarball(), { is_enabled: 'maybe' })).status, 400);
      assert.equal((await upload('POST', `${P}/`, await pluginTarball(), { colour: 'blue' })).status, 400);
      assert.equal((await call('PATCH', `${P}/nope/`, { raw: { contentType: 'application/x-www-form-urlencoded', data: 'is_enabled=False' } })).status, 404);
      assert.equal((await call('GET', `${P}/Not_A_Slug/`)).status, 404);
      assert.equal(await count(), 0);
    });

    it('needs credentials with the plugin scope', async () => {
      assert.equal((await api.call('GET', `${P}/`, { token: null })).status, 401);
      assert.equal((await api.call('GET', `${P}/`, { authorization: 'wrong-key' })).status, 401);
      assert.equal((await api.call('GET', `${P}/`)).status, 200); // the default token carries system/Plugins.*
    });

    it('the file name and the content must name the same kind: a 400 saying so, nothing stored', async () => {
      const before = await count();
      const wheel = await oldStyleWheel();
      const cases: Array<[Buffer, string, RegExp]> = [
        [await pluginTarball(), 'something.whl', /^the file name "something\.whl" names a wheel \(zip\), but the content is a gzip-compressed tar archive$/],
        [
          wheel,
          'old_plugin-0.2.0.tar.gz',
          /^the file name "old_plugin-0\.2\.0\.tar\.gz" names a gzip-compressed tar archive, but the content is a wheel \(zip\)$/,
        ],
        [wheel, 'old_plugin-0.2.0.zip', /^the file name "old_plugin-0\.2\.0\.zip" names neither a wheel \(\.whl\) nor a gzip-compressed tarball \(\.tar\.gz\)/],
      ];
      for (const [bytes, filename, reason] of cases) {
        for (const path of [`${P}/`, `${P}/extract-metadata/`]) {
          const r = await upload('POST', path, bytes, {}, filename);
          assert.equal(r.status, 400, `${path} ${filename}: ${r.text}`);
          assert.equal(r.json.code, 'plugin_package_invalid');
          assert.deepEqual(r.json.errors.map((e: { message: string }) => e.message).filter((m: string) => reason.test(m)).length, 1, `${filename}: ${r.text}`);
        }
      }
      assert.equal(await count(), before);
      // The same bytes under a name of their kind are accepted; a PATCH is held to the same rule.
      const ok = await upload('POST', `${P}/`, wheel, {}, 'old_plugin-0.2.0-py3-none-any.whl');
      assert.equal(ok.status, 201, ok.text);
      const patched = await upload('PATCH', `${P}/old-plugin/`, wheel, {}, 'old_plugin-0.2.0.tar.gz');
      assert.equal(patched.status, 400, patched.text);
      assert.match(patched.json.detail, /names a gzip-compressed tar archive, but the content is a wheel/);
      assert.equal((await call('DELETE', `${P}/old-plugin/?force=true`)).status, 204);
      assert.equal(await count(), before);
    });

    it('plugin names in paths take `_` for `-`, as the original tool writes them', async () => {
      const bytes = await pluginTarball('0.1.0', 'Plugin Boilerplate');
      const r = await upload('POST', `${P}/`, bytes, { is_enabled: 'True' });
      assert.equal(r.status, 201, r.text);
      assert.equal(r.json.name, 'plugin-boilerplate');
      const got = await call('GET', `${P}/plugin_boilerplate/`);
      assert.equal(got.status, 200, got.text);
      assert.deepEqual(stored(got.json), stored(r.json));
      const download = await fetch(`${api.url}${P}/plugin_boilerplate/package/`, { headers: { authorization: TEST_API_KEY } });
      assert.equal(download.status, 200);
      assert.deepEqual(Buffer.from(await download.arrayBuffer()), bytes);
      const disabled = await call('PATCH', `${P}/plugin_boilerplate/`, { raw: { contentType: 'application/x-www-form-urlencoded', data: 'is_enabled=False' } });
      assert.equal(disabled.status, 200, disabled.text);
      assert.equal(disabled.json.is_enabled, false);
      const replaced = await upload('PATCH', `${P}/plugin_boilerplate/`, await pluginTarball('0.2.0', 'plugin_boilerplate'));
      assert.equal(replaced.status, 200, replaced.text);
      assert.equal(replaced.json.version, '0.2.0');
      assert.equal((await call('DELETE', `${P}/plugin_boilerplate/`)).status, 204);
      assert.equal((await call('GET', `${P}/plugin-boilerplate/`)).status, 404);
    });

    it('accepts packages of later versions of the original tool: CANVAS_MANIFEST.json and no PKG-INFO (wheel and tar.gz)', async () => {
      const canvas = (version: string) =>
        JSON.stringify({
          sdk_version: '0.203.0',
          plugin_version: version,
          name: 'canvas_alerts',
          description: 'Alerts, packaged by the original tool.',
          components: { handlers: [{ class: 'canvas_alerts.handlers.event_handlers:Alert', description: 'Alerts.' }] },
          tags: {},
          references: [],
          license: '',
          diagram: false,
          readme: './README.md',
        });
      const wheel = await buildZip([
        { name: 'canvas_alerts/CANVAS_MANIFEST.json', data: canvas('0.3.0') },
        { name: 'canvas_alerts/handlers/event_handlers.py', data: 'class Alert: ...\n' },
        { name: 'canvas_alerts/README.md', data: '# Alerts\n' },
      ]);
      const sdist = await tarFromDir(
        {
          'canvas_alerts-0.4.0/canvas_alerts/CANVAS_MANIFEST.json': canvas('0.4.0'),
          'canvas_alerts-0.4.0/canvas_alerts/handlers/event_handlers.py': 'class Alert: ...\n',
        },
        ['canvas_alerts-0.4.0'],
      );
      const meta = await upload('POST', `${P}/extract-metadata/`, wheel, {}, 'canvas_alerts-0.3.0-py3-none-any.whl');
      assert.equal(meta.status, 200, meta.text);
      assert.equal(meta.json.name, 'canvas-alerts');
      assert.equal(meta.json.version, '0.3.0');
      assert.equal(meta.json.description, 'Alerts, packaged by the original tool.');
      const installed = await upload('POST', `${P}/`, wheel, { is_enabled: 'False' }, 'canvas_alerts-0.3.0-py3-none-any.whl');
      assert.equal(installed.status, 201, installed.text);
      const listed = (await call('GET', `${P}/`)).json.results.find((p: { name: string }) => p.name === 'canvas-alerts');
      assert.deepEqual(listed, installed.json);
      assert.equal(listed.version, '0.3.0');
      assert.equal(listed.description, 'Alerts, packaged by the original tool.');
      const updated = await upload('PATCH', `${P}/canvas_alerts/`, sdist, {}, 'canvas_alerts-0.4.0.tar.gz');
      assert.equal(updated.status, 200, updated.text);
      assert.equal(updated.json.version, '0.4.0');
      assert.equal((await call('GET', `${P}/canvas-alerts/`)).json.version, '0.4.0');
      // A CANVAS_MANIFEST.json without a plugin_version names what is missing.
      const bad = await upload('POST', `${P}/extract-metadata/`, tgz([{ path: 'x/CANVAS_MANIFEST.json', body: JSON.stringify({ name: 'x' }) }]));
      assert.equal(bad.status, 400);
      assert.match(bad.json.detail, /x\/CANVAS_MANIFEST\.json: no \/plugin_version/);
      assert.equal((await call('DELETE', `${P}/canvas-alerts/?force=true`)).status, 204);
    });

    it('multipart/form-data without a boundary is a 400 problem, with or without a body', async () => {
      for (const [method, path] of [
        ['POST', `${P}/`],
        ['POST', `${P}/extract-metadata/`],
        ['PATCH', `${P}/vitals-alert/`],
      ] as const) {
        for (const data of ['', '--x\r\nContent-Disposition: form-data; name="is_enabled"\r\n\r\nTrue\r\n--x--\r\n']) {
          const r = await call(method, path, { raw: { contentType: 'multipart/form-data', data } });
          assert.equal(r.status, 400, `${method} ${path}: ${r.text}`);
          assert.equal(r.json.code, 'malformed_body');
          assert.match(r.json.detail, /[Bb]oundary/);
        }
      }
    });

    it('audits every change of the store', async () => {
      await upload('POST', `${P}/`, await pluginTarball('2.0.0'), { is_enabled: 'False' });
      await call('PATCH', `${P}/vitals-alert/`, { raw: { contentType: 'application/x-www-form-urlencoded', data: 'is_enabled=True' } });
      await call('DELETE', `${P}/vitals-alert/?force=true`);
      const rows = await api.storage.db
        .selectFrom('audit_events')
        .select(['action', 'credential'])
        .where('entity_type', '=', 'plugin')
        .where('entity_id', '=', 'vitals-alert')
        .orderBy('id')
        .execute();
      assert.deepEqual(rows.map((r) => r.action).slice(-3), ['plugin.installed', 'plugin.enabled', 'plugin.deleted']);
      assert.ok(rows.every((r) => r.credential?.startsWith('api_key:')));
    });
  });
}
