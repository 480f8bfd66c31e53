// The whole plugin workflow of the spec with the real `charta` binary against a real instance on
// each engine, as a newcomer would run it from docs/plugins.md: add-api-key → init → install the
// generated project (built on the way) → list → install again after raising the version (the
// duplicate is updated) → update with a wheel and with a tarball the test builds → a package of
// another plugin refused → disable → delete → `charta logs --since` showing every lifecycle entry.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { ENGINES, TEST_API_KEY, startInstance, type Instance } from '../../server/test/support/harness.ts';
import { buildZip, manifestJson, tarFromDir, VITALS_HANDLER_JS } from '../../server/test/support/archives.ts';
import { charta, event, follow, killFollowers, single, tempDir } from './support/cli.ts';

type Plugin = { name: string; version: string; is_enabled: boolean; package: string; package_checksum: string };

for (const engine of ENGINES) {
  describe(`the plugin workflow end to end (${engine})`, () => {
    let api: Instance;
    const dir = tempDir('charta-workflow-');
    const env = { CHARTA_CONFIG_DIR: path.join(dir, 'config') };
    const cli = (...args: string[]) => charta(args, env);
    const ok = async (...args: string[]) => {
      const line = single(await cli(...args), 0);
      assert.equal(line.success, true, JSON.stringify(line));
      return line;
    };
    const listed = async () => (await ok('plugin', 'list')).message as { count: number; results: Plugin[] };

    before(async () => {
      api = await startInstance(engine);
    });
    after(async () => {
      killFollowers();
      await api?.stop();
    });

    it('scaffold → build and install → list → update → disable → delete → logs', async () => {
      const saved = await ok('auth', 'add-api-key', '--host', api.url, '--api-key', TEST_API_KEY, '--is-default');
      assert.equal(saved.is_default, true);

      const created = await ok('plugin', 'init', '--no-input', '-o', dir, '--project-name', 'Workflow Demo', '--full-name', 'Test Developer');
      const project = path.join(dir, 'workflow-demo');
      assert.equal(created.project_dir, project);

      const installed = await ok('plugin', 'install', project);
      assert.equal(installed.status_code, 201);
      assert.equal(installed.package, path.join(project, 'dist', 'workflow-demo-0.1.0.tar.gz'));
      const plugin = installed.plugin as Plugin;
      assert.deepEqual([plugin.name, plugin.version, plugin.is_enabled], ['workflow-demo', '0.1.0', true]);

      // What the instance keeps is byte for byte what was built.
      const download = await fetch(plugin.package, { headers: { authorization: TEST_API_KEY } });
      assert.equal(download.status, 200);
      assert.deepEqual(Buffer.from(await download.arrayBuffer()), fs.readFileSync(String(installed.package)));

      assert.deepEqual(
        (await listed()).results.map((p) => [p.name, p.version, p.is_enabled]),
        [['workflow-demo', '0.1.0', true]],
      );

      // A new version of the project: installing it again updates the plugin in place.
      const manifestFile = path.join(project, 'CHARTA_MANIFEST.json');
      fs.writeFileSync(manifestFile, fs.readFileSync(manifestFile, 'utf8').replace('"plugin_version": "0.1.0"', '"plugin_version": "0.2.0"'));
      const reinstalled = await ok('plugin', 'install', project);
      assert.equal(reinstalled.status_code, 200);
      assert.equal(reinstalled.package, path.join(project, 'dist', 'workflow-demo-0.2.0.tar.gz'));
      assert.equal((reinstalled.message as Plugin).version, '0.2.0');

      // Packages built by hand: a wheel (metadata from METADATA) and a tarball with a manifest.
      const wheel = path.join(dir, 'workflow_demo-0.3.0-py3-none-any.whl');
      fs.writeFileSync(
        wheel,
        await buildZip([
          { name: 'workflow_demo/__init__.py', data: '' },
          { name: 'workflow_demo-0.3.0.dist-info/METADATA', data: 'Metadata-Version: 2.1\nName: workflow_demo\nVersion: 0.3.0\nSummary: Built as a wheel\n' },
        ]),
      );
      const byWheel = await ok('plugin', 'update', 'workflow-demo', '--package', wheel);
      assert.equal(byWheel.status_code, 200);
      assert.deepEqual([(byWheel.message as Plugin).version, (byWheel.message as Plugin).is_enabled], ['0.3.0', true]);

      const tarball = path.join(dir, 'workflow-demo-0.4.0.tar.gz');
      fs.writeFileSync(
        tarball,
        await tarFromDir({ 'CHARTA_MANIFEST.json': manifestJson({ name: 'Workflow Demo', plugin_version: '0.4.0' }), 'dist/index.js': VITALS_HANDLER_JS }, [
          '.',
        ]),
      );
      const byTarball = await ok('plugin', 'update', 'workflow-demo', '--package', tarball);
      assert.equal((byTarball.message as Plugin).version, '0.4.0');

      // A package of another plugin is refused by the instance and reported as a failure.
      const other = path.join(dir, 'other-1.0.0.tar.gz');
      fs.writeFileSync(
        other,
        await tarFromDir({ 'CHARTA_MANIFEST.json': manifestJson({ name: 'Other', plugin_version: '1.0.0' }), 'dist/index.js': VITALS_HANDLER_JS }, ['.']),
      );
      const refused = single(await cli('plugin', 'update', 'workflow-demo', '--package', other), 1);
      assert.equal(refused.success, false);
      assert.equal(refused.status_code, 400);
      assert.equal((refused.message as { code: string }).code, 'plugin_name_mismatch');

      const disabled = await ok('plugin', 'update', 'workflow-demo', '--disable');
      assert.deepEqual([(disabled.message as Plugin).version, (disabled.message as Plugin).is_enabled], ['0.4.0', false]);
      assert.deepEqual(await ok('plugin', 'delete', 'workflow-demo'), { success: true, status_code: 204 });
      assert.deepEqual(await listed(), { count: 0, results: [], public_routes: [] });

      // The log stream's recent history holds the whole lifecycle, oldest first.
      const logs = follow(['--plugin', 'workflow-demo', '--since', '10m'], env);
      await logs.waitFor((line) => event(line) === 'plugin workflow-demo deleted');
      logs.child.kill('SIGTERM');
      assert.equal(await logs.exited, 0, logs.stderr());
      assert.deepEqual(logs.lines[0], { success: true, message: `Connected to the log stream of ${api.url}` });
      const entries = logs.lines.slice(1).map(event);
      assert.deepEqual(
        entries.filter((e) => !e.startsWith('plugin package') && !e.startsWith('plugin runtime:')),
        [
          'plugin workflow-demo 0.1.0 installed (enabled)',
          'plugin workflow-demo 0.2.0 updated (enabled)',
          'plugin workflow-demo 0.3.0 updated (enabled)',
          'plugin workflow-demo 0.4.0 updated (enabled)',
          'plugin workflow-demo 0.4.0 disabled',
          'plugin workflow-demo deleted',
        ],
      );
      // The refused package is a warning (a success line: only error entries are failures).
      const warning = logs.lines.find((line) => event(line).startsWith('plugin package for workflow-demo rejected (plugin_name_mismatch)'));
      assert.ok(warning, JSON.stringify(logs.lines));
      assert.equal(warning.success, true);
      assert.equal((warning.message as { level: string }).level, 'warning');
      for (const line of logs.lines.slice(1)) assert.equal((line.message as { plugin?: string }).plugin, 'workflow-demo');
    });

    it('a wrong or revoked API key: 401 and a success:false line for every instance command', async () => {
      const wrong = { ...env, CHARTA_API_KEY: 'not-the-key' };
      for (const args of [['plugin', 'list'], ['plugin', 'update', 'x', '--enable'], ['plugin', 'delete', 'x'], ['logs']]) {
        const line = single(await charta([...args, '--host', api.url], wrong), 1);
        assert.equal(line.success, false, args.join(' '));
        assert.equal(line.status_code, 401, args.join(' '));
      }
      const project = path.join(dir, 'keyless');
      await ok('plugin', 'init', '--no-input', '-o', dir, '--project-slug', 'keyless');
      const install = single(await charta(['plugin', 'install', project, '--host', api.url], wrong), 1);
      assert.equal(install.status_code, 401);
      assert.deepEqual(await listed(), { count: 0, results: [], public_routes: [] });
    });
  });
}
