// Every version of the original plugin tool against the plugin API, on both engines (docs/cli.md,
// "The original tool"): its packages built as each version builds them (an sdist with PKG-INFO; its
// plugin folder with CANVAS_MANIFEST.json; every file of a subfolder twice), and the later tool's
// calls to /plugin-io/plugins/ with its request shapes and the statuses it expects: a
// client-credentials token with the scope system/Plugins.*, a multipart install, 409 on a plugin
// that exists and then extract-metadata and a PATCH, enable and disable (form-encoded PATCH),
// uninstall (DELETE, `force=True|False`), and the list it pages through by `next`.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ENGINES, TEST_CLIENT_ID, TEST_CLIENT_SECRET, startInstance, testConfig, toReply, type Instance, type Reply } from './support/harness.ts';
import { manifestJson, tarFromDir, tgz, VITALS_HANDLER_JS } from './support/archives.ts';
import { originalToolPackage, toolForm } from './support/original-tool.ts';
import { sql } from 'kysely';
import { startServer } from '../src/server.ts';

const IO = '/plugin-io/plugins';
const CORE = '/core/api/v1/plugins';

for (const engine of ENGINES) {
  describe(`the original tool (${engine})`, () => {
    let api: Instance;
    /** The later tool's token: client credentials asking for system/Plugins.* (as from May 2024). */
    let token: string;
    /** A token of the same client without the plugin scope. */
    let clinicalToken: string;
    before(async () => {
      api = await startInstance(engine);
      const tokenOf = async (scope: string) => {
        const r = await toReply(
          await fetch(`${api.url}/auth/token/`, {
            method: 'POST',
            headers: { 'content-type': 'application/x-www-form-urlencoded' },
            body: `grant_type=client_credentials&client_id=${TEST_CLIENT_ID}&client_secret=${TEST_CLIENT_SECRET}&scope=${scope}`,
          }),
        );
        assert.equal(r.status, 200, r.text);
        assert.equal(r.json.scope, scope);
        return r.json.access_token as string;
      };
      token = await tokenOf('system/Plugins.*');
      clinicalToken = await tokenOf('user/*.*');
    });
    after(async () => api?.stop());

    /** A request as the later tool sends it: `Authorization: Bearer <token>`, a multipart or form-encoded body. */
    const tool = async (method: string, path: string, body?: FormData | URLSearchParams, bearer = token): Promise<Reply> =>
      toReply(await fetch(api.url + path, { method, body, headers: { authorization: `Bearer ${bearer}` } }));

    /**
     * `canvas install <dir>` of the later tool: POST; on 409 it reads the name with extract-metadata
     * and PATCHes the package (enabled); 201 or 200 is a success, anything else a failure.
     */
    const install = async (pkg: Buffer) => {
      const first = await tool('POST', `${IO}/`, toolForm(pkg, { is_enabled: 'True' }));
      if (first.status !== 409) return { first };
      const metadata = await tool('POST', `${IO}/extract-metadata/`, toolForm(pkg));
      assert.equal(metadata.status, 200, metadata.text);
      const update = await tool('PATCH', `${IO}/${metadata.json.name}/`, toolForm(pkg, { is_enabled: 'True' }));
      return { first, metadata, update };
    };

    it('installs, reinstalls as an update (409, then PATCH), enables, disables and uninstalls a package of Dec 2024 (files twice)', async () => {
      const v1 = originalToolPackage('directory-twice', 'my-cool-plugin', '0.0.1');
      const installed = await install(v1);
      assert.equal(installed.first.status, 201, installed.first.text);
      assert.equal(installed.first.json.name, 'my-cool-plugin');
      assert.equal(installed.first.json.version, '0.0.1');
      assert.equal(installed.first.json.is_enabled, true);
      assert.equal(installed.first.json.runnable, false);
      assert.match(installed.first.json.runnable_reason, /Python package for the original tool \(its metadata is CANVAS_MANIFEST\.json\)/);

      // `canvas list`: results[].name, version, is_enabled.
      const list = await tool('GET', `${IO}/?limit=100&offset=0`);
      assert.equal(list.status, 200, list.text);
      assert.deepEqual(
        list.json.results.map((p: { name: string; version: string; is_enabled: boolean; runnable: boolean }) => [p.name, p.version, p.is_enabled, p.runnable]),
        [['my-cool-plugin', '0.0.1', true, false]],
      );

      // The reinstall: 409 plugin_exists with the helpful message, then extract-metadata and PATCH.
      const v2 = originalToolPackage('directory-twice', 'my-cool-plugin', '0.0.2');
      const again = await install(v2);
      assert.equal(again.first.status, 409, again.first.text);
      assert.equal(again.first.json.code, 'plugin_exists');
      assert.equal(again.first.json.status, 409);
      assert.equal(again.first.json.type, 'urn:charta:problem:plugin_exists');
      assert.equal(again.first.json.detail, 'A plugin named my-cool-plugin already exists; update it instead');
      assert.equal(again.metadata?.json.name, 'my-cool-plugin');
      assert.equal(again.metadata?.json.source, 'canvas-manifest');
      assert.equal(again.update?.status, 200, again.update?.text);
      assert.equal(again.update?.json.version, '0.0.2');
      assert.equal(again.update?.json.runnable, false);

      // `canvas disable` / `canvas enable`: PATCH is_enabled=False/True, form-encoded; success is any 2xx.
      const disabled = await tool('PATCH', `${IO}/my-cool-plugin/`, new URLSearchParams({ is_enabled: 'False' }));
      assert.equal(disabled.status, 200, disabled.text);
      assert.equal(disabled.json.is_enabled, false);
      const enabled = await tool('PATCH', `${IO}/my-cool-plugin/`, new URLSearchParams({ is_enabled: 'True' }));
      assert.equal(enabled.status, 200, enabled.text);
      assert.equal(enabled.json.is_enabled, true);
      const got = await tool('GET', `${IO}/my-cool-plugin/`);
      assert.equal(got.status, 200);
      assert.equal(got.json.is_enabled, true);

      // `canvas uninstall` (force=False by default) of an enabled plugin is refused; disabled, or with force=True, it goes.
      const refused = await tool('DELETE', `${IO}/my-cool-plugin/?force=False`);
      assert.equal(refused.status, 400, refused.text);
      assert.equal(refused.json.code, 'plugin_enabled');
      const gone = await tool('DELETE', `${IO}/my-cool-plugin/?force=True`);
      assert.equal(gone.status, 204, gone.text);
      assert.equal((await tool('GET', `${IO}/my-cool-plugin/`)).status, 404);
      assert.equal((await tool('GET', `${IO}/`)).json.count, 0);
    });

    it('a plugin that exists is 409 under /plugin-io/plugins/ and 400 under /core/api/v1/plugins/, with the same problem', async () => {
      const pkg = originalToolPackage('directory', 'exists-twice');
      assert.equal((await tool('POST', `${CORE}/`, toolForm(pkg))).status, 201);
      const io = await tool('POST', `${IO}/`, toolForm(pkg));
      const core = await tool('POST', `${CORE}/`, toolForm(pkg));
      assert.equal(io.status, 409, io.text);
      assert.equal(core.status, 400, core.text);
      assert.deepEqual({ ...io.json, status: 0 }, { ...core.json, status: 0 });
      assert.equal(io.json.status, 409);
      assert.equal(core.json.status, 400);
      assert.equal(io.headers.get('content-type'), core.headers.get('content-type'));
      // Installed under one prefix, it is the same plugin under the other.
      assert.equal((await tool('GET', `${IO}/exists-twice/`)).json.name, 'exists-twice');
      assert.equal((await tool('DELETE', `${IO}/exists-twice/?force=true`)).status, 204);
      assert.equal((await tool('GET', `${CORE}/exists-twice/`)).status, 404);
    });

    it('packages of every version: sdist (PKG-INFO) and folder (CANVAS_MANIFEST.json) are accepted and not runnable; a Charta package is', async () => {
      const sdist = await tool('POST', `${IO}/`, toolForm(originalToolPackage('sdist', 'early-plugin', '0.1.0')));
      assert.equal(sdist.status, 201, sdist.text);
      assert.equal(sdist.json.runnable, false);
      assert.match(sdist.json.runnable_reason, /its metadata is PKG-INFO/);
      const folder = await tool('POST', `${IO}/`, toolForm(originalToolPackage('directory', 'mid-plugin')));
      assert.equal(folder.status, 201, folder.text);
      assert.equal(folder.json.runnable, false);
      assert.match(folder.json.runnable_reason, /its metadata is CANVAS_MANIFEST\.json/);
      const charta = await tarFromDir({ 'CHARTA_MANIFEST.json': manifestJson(), 'dist/index.js': VITALS_HANDLER_JS }, ['.']);
      const runnable = await tool('POST', `${IO}/`, toolForm(charta));
      assert.equal(runnable.status, 201, runnable.text);
      assert.equal(runnable.json.runnable, true);
      assert.equal(runnable.json.runnable_reason, null);
      // The same in the list and on a read, under both prefixes.
      for (const base of [IO, CORE]) {
        const list = await tool('GET', `${base}/`);
        const byName = Object.fromEntries(list.json.results.map((p: { name: string; runnable: boolean }) => [p.name, p.runnable]));
        assert.deepEqual(byName, { 'early-plugin': false, 'mid-plugin': false, 'vitals-alert': true });
        assert.equal((await tool('GET', `${base}/early-plugin/`)).json.runnable, false);
      }
      for (const name of ['early-plugin', 'mid-plugin', 'vitals-alert']) assert.equal((await tool('DELETE', `${IO}/${name}/?force=True`)).status, 204);
    });

    it('duplicates that differ are refused (400, naming the path), nothing stored', async () => {
      const pkg = tgz([
        { path: './CANVAS_MANIFEST.json', body: '{"name": "twice-differs", "plugin_version": "1", "description": ""}' },
        { path: './protocols/my_protocol.py', body: 'class Protocol: pass\n' },
        { path: './protocols/my_protocol.py', body: 'class Protocol: evil = 1\n' },
      ]);
      const r = await tool('POST', `${IO}/`, toolForm(pkg));
      assert.equal(r.status, 400, r.text);
      assert.equal(r.json.code, 'plugin_package_invalid');
      assert.match(
        r.json.detail,
        /"\.\/protocols\/my_protocol\.py" is a duplicate of an earlier entry for "protocols\/my_protocol\.py" with different content/,
      );
      assert.equal((await tool('GET', `${IO}/twice-differs/`)).status, 404);
    });

    it('the list pages by `next` under the prefix it was asked on', async () => {
      for (const name of ['page-a', 'page-b']) assert.equal((await tool('POST', `${IO}/`, toolForm(originalToolPackage('directory', name)))).status, 201);
      const first = await tool('GET', `${IO}/?limit=1&offset=0`);
      assert.equal(first.status, 200);
      assert.equal(first.json.count, 2);
      assert.ok(first.json.next.startsWith(`${api.url}${IO}/?`), first.json.next);
      const second = await toReply(await fetch(first.json.next, { headers: { authorization: `Bearer ${token}` } }));
      assert.equal(second.json.results[0].name, 'page-b');
      for (const name of ['page-a', 'page-b']) assert.equal((await tool('DELETE', `${IO}/${name}/?force=True`)).status, 204);
    });

    it('a token without system/Plugins.* is refused 403 on every plugin route under both prefixes; with it, accepted', async () => {
      const pkg = originalToolPackage('directory', 'scoped-plugin');
      for (const base of [IO, CORE]) {
        const attempts: Array<[string, string, FormData | URLSearchParams | undefined]> = [
          ['GET', `${base}/`, undefined],
          ['POST', `${base}/`, toolForm(pkg)],
          ['POST', `${base}/extract-metadata/`, toolForm(pkg)],
          ['GET', `${base}/scoped-plugin/`, undefined],
          ['PATCH', `${base}/scoped-plugin/`, new URLSearchParams({ is_enabled: 'False' })],
          ['DELETE', `${base}/scoped-plugin/?force=True`, undefined],
        ];
        for (const [method, path, body] of attempts) {
          const r = await tool(method, path, body, clinicalToken);
          assert.equal(r.status, 403, `${method} ${path}: ${r.text}`);
          assert.equal(r.json.code, 'forbidden');
          assert.match(r.json.detail, /system\/Plugins\.\*/);
        }
      }
      // Nothing was installed by the refused calls; the scoped token installs and lists.
      const installed = await tool('POST', `${IO}/`, toolForm(pkg));
      assert.equal(installed.status, 201, installed.text);
      assert.equal((await tool('GET', `${IO}/`)).json.count, 1);
      assert.equal((await tool('GET', `${IO}/scoped-plugin/`, undefined, clinicalToken)).status, 403);
      assert.equal((await tool('DELETE', `${IO}/scoped-plugin/?force=True`)).status, 204);
      // No token at all: 401.
      assert.equal((await toReply(await fetch(`${api.url}${IO}/`))).status, 401);
    });

    it('plugins installed before the metadata source was kept (migration 014) are inspected when the server starts', async () => {
      for (const [packaging, name] of [
        ['sdist', 'before-sdist'],
        ['directory-twice', 'before-folder'],
      ] as const) {
        assert.equal((await tool('POST', `${IO}/`, toolForm(originalToolPackage(packaging, name)))).status, 201);
      }
      const charta = await tarFromDir({ 'CHARTA_MANIFEST.json': manifestJson(), 'dist/index.js': VITALS_HANDLER_JS }, ['.']);
      assert.equal((await tool('POST', `${IO}/`, toolForm(charta))).status, 201);
      // As the migration leaves them: no source yet.
      const db = api.storage.db;
      await sql`update plugins set metadata_source = null`.execute(db);
      const sources = async () =>
        (await sql<{ name: string; metadata_source: string | null }>`select name, metadata_source from plugins order by name`.execute(db)).rows;
      assert.ok((await sources()).every((r) => r.metadata_source === null));
      // Another server started on the same database fills them in before it answers.
      const second = await startServer(testConfig(api.db), () => undefined);
      try {
        assert.deepEqual(await sources(), [
          { name: 'before-folder', metadata_source: 'canvas-manifest' },
          { name: 'before-sdist', metadata_source: 'pkg-info' },
          { name: 'vitals-alert', metadata_source: 'manifest' },
        ]);
        const r = await toReply(await fetch(`${second.url}${IO}/before-sdist/`, { headers: { authorization: `Bearer ${token}` } }));
        assert.equal(r.json.runnable, false);
        assert.match(r.json.runnable_reason, /PKG-INFO/);
      } finally {
        await second.close();
      }
      for (const name of ['before-sdist', 'before-folder', 'vitals-alert']) assert.equal((await tool('DELETE', `${IO}/${name}/?force=True`)).status, 204);
    });

    it('bad input under /plugin-io/plugins/ is a 4xx problem, as under /core/api/v1/plugins/', async () => {
      const noPackage = await tool('POST', `${IO}/`, toolForm(undefined, { is_enabled: 'True' }));
      assert.equal(noPackage.status, 400);
      assert.equal(noPackage.json.code, 'plugin_package_missing');
      const badFlag = await tool('PATCH', `${IO}/nobody/`, new URLSearchParams({ is_enabled: 'maybe' }));
      assert.equal(badFlag.status, 400);
      const badForce = await tool('DELETE', `${IO}/nobody/?force=yes`);
      assert.equal(badForce.status, 400);
      assert.equal((await tool('GET', `${IO}/nobody/`)).status, 404);
      assert.equal((await tool('DELETE', `${IO}/nobody/?force=False`)).status, 404);
      const notArchive = await tool('POST', `${IO}/`, toolForm(Buffer.from('not an archive')));
      assert.equal(notArchive.status, 400);
      assert.equal(notArchive.json.code, 'plugin_package_invalid');
    });
  });
}
