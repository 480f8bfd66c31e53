// The plugin commands through the real `charta` binary against a real instance (both engines):
// install (201, then a duplicate updated as the original tool does), list, update, delete,
// a wheel, a package of another plugin refused, wrong key, unreachable host and bad arguments,
// every stdout line JSON and no stack trace. A small fake instance checks the wire details a
// real one hides: the raw key, `is_enabled` rendering, and following `next` on the given host.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { ENGINES, TEST_API_KEY, startInstance, type Instance } from '../../server/test/support/harness.ts';
import { buildZip, manifestJson, tarFromDir, VITALS_HANDLER_JS } from '../../server/test/support/archives.ts';
import { stored } from '../../server/test/support/plugins.ts';
import { originalToolPackage } from '../../server/test/support/original-tool.ts';
import { charta, closedPort, single, tempDir, type Result } from './support/cli.ts';

const pluginTarball = (version: string, name = 'Vitals Alert') =>
  tarFromDir({ 'CHARTA_MANIFEST.json': manifestJson({ plugin_version: version, name }), 'dist/index.js': VITALS_HANDLER_JS, 'README.md': '# Vitals\n' }, ['.']);

const wheel = () =>
  buildZip([
    { name: 'old_plugin/__init__.py', data: '' },
    { name: 'old_plugin-0.2.0.dist-info/METADATA', data: 'Metadata-Version: 2.1\nName: Old_Plugin\nVersion: 0.2.0\nSummary: Built for the original tool\n' },
  ]);

const noStackTrace = (r: Result) => assert.ok(!r.stderr.includes('    at ') && !r.stdout.includes('    at '), `no stack trace\n${r.stdout}\n${r.stderr}`);

for (const engine of ENGINES) {
  describe(`charta plugin (${engine})`, () => {
    let api: Instance;
    const dir = tempDir('charta-plugin-');
    const env = { CHARTA_CONFIG_DIR: path.join(dir, 'config') };
    const cli = (...args: string[]) => charta(args, env);
    const file = (name: string, bytes: Buffer) => {
      const full = path.join(dir, name);
      fs.writeFileSync(full, bytes);
      return full;
    };

    before(async () => {
      api = await startInstance(engine);
      single(await cli('auth', 'add-api-key', '--host', api.url, '--api-key', TEST_API_KEY, '--is-default'), 0);
    });
    after(async () => api?.stop());

    it('install → list → install again (updated) → disable → wrong plugin refused → delete → empty list', async () => {
      const v1 = file('vitals-alert-1.0.0.tar.gz', await pluginTarball('1.0.0'));
      const installed = single(await cli('plugin', 'install', v1), 0);
      assert.deepEqual(Object.keys(installed), ['success', 'message', 'status_code', 'plugin', 'package']);
      assert.equal(installed.package, v1);
      assert.equal(installed.success, true);
      assert.equal(installed.message, 'Package successfully uploaded');
      assert.equal(installed.status_code, 201);
      const plugin = installed.plugin as Record<string, unknown>;
      assert.equal(plugin.name, 'vitals-alert');
      assert.equal(plugin.version, '1.0.0');
      assert.equal(plugin.is_enabled, true);

      const listed = single(await cli('plugin', 'list'), 0);
      const results = (listed.message as { results: Record<string, unknown>[] }).results;
      assert.deepEqual(
        { ...listed, message: { ...(listed.message as object), results: results.map(stored) } },
        {
          success: true,
          message: { count: 1, results: [stored(plugin)], public_routes: [] },
          status_code: 200,
        },
      );
      // The list says where each plugin stands in the runtime.
      assert.ok(['loading', 'running'].includes((results[0]!.runtime as { state: string }).state), JSON.stringify(results[0]));

      const v2 = file('vitals-alert-1.1.0.tar.gz', await pluginTarball('1.1.0'));
      const updated = single(await cli('plugin', 'install', v2), 0);
      assert.equal(updated.success, true);
      assert.equal(updated.status_code, 200);
      assert.equal((updated.message as Record<string, unknown>).name, 'vitals-alert');
      assert.equal((updated.message as Record<string, unknown>).version, '1.1.0');
      assert.equal((updated.message as Record<string, unknown>).is_enabled, true);

      const disabled = single(await cli('plugin', 'update', 'vitals-alert', '--disable'), 0);
      assert.equal(disabled.status_code, 200);
      assert.equal((disabled.message as Record<string, unknown>).is_enabled, false);
      assert.equal((disabled.message as Record<string, unknown>).version, '1.1.0');

      const unchanged = single(await cli('plugin', 'update', 'vitals-alert'), 0);
      assert.equal((unchanged.message as Record<string, unknown>).is_enabled, false);

      const other = file('other-plugin-1.0.0.tar.gz', await pluginTarball('1.0.0', 'Other Plugin'));
      const refused = await cli('plugin', 'update', 'vitals-alert', '--package', other);
      const line = single(refused, 1);
      assert.equal(line.success, false);
      assert.equal(line.status_code, 400);
      assert.equal((line.message as Record<string, unknown>).code, 'plugin_name_mismatch');
      noStackTrace(refused);
      const still = single(await cli('plugin', 'list'), 0).message as { count: number; results: Array<Record<string, unknown>> };
      assert.equal(still.count, 1);
      assert.equal(still.results[0]!.version, '1.1.0');

      assert.deepEqual(single(await cli('plugin', 'delete', 'vitals-alert'), 0), { success: true, status_code: 204 });
      assert.deepEqual(single(await cli('plugin', 'list'), 0), { success: true, message: { count: 0, results: [], public_routes: [] }, status_code: 200 });
      const gone = single(await cli('plugin', 'delete', 'vitals-alert'), 1);
      assert.equal(gone.status_code, 404);
    });

    it('installs a wheel disabled, enables it, and an enabled plugin is deleted only with --force', async () => {
      const whl = file('old_plugin-0.2.0-py3-none-any.whl', await wheel());
      const installed = single(await cli('plugin', 'install', whl, '--disable', '--host', api.url, '--api-key', TEST_API_KEY), 0);
      assert.equal(installed.status_code, 201);
      assert.equal((installed.plugin as Record<string, unknown>).name, 'old-plugin');
      assert.equal((installed.plugin as Record<string, unknown>).is_enabled, false);
      assert.equal((installed.plugin as Record<string, unknown>).runnable, false);
      const enabling = await cli('plugin', 'update', 'old-plugin', '--enable');
      assert.match(
        enabling.stderr,
        /^charta: warning: plugin old-plugin is installed but can never run on this instance: a Python package for the original tool \(its metadata is PKG-INFO\)/,
      );
      const enabled = single(enabling, 0);
      assert.equal((enabled.message as Record<string, unknown>).is_enabled, true);
      const refused = single(await cli('plugin', 'delete', 'old-plugin'), 1);
      assert.equal(refused.success, false);
      assert.equal(refused.status_code, 400);
      assert.deepEqual(single(await cli('plugin', 'delete', 'old-plugin', '--force'), 0), { success: true, status_code: 204 });
    });

    it('a package of the original tool installs, but install, reinstall and update warn that it can never run; a Charta plugin does not', async () => {
      const warning =
        /^charta: warning: plugin my-cool-plugin is installed but can never run on this instance: a Python package for the original tool \(its metadata is CANVAS_MANIFEST\.json\); it has nothing Charta can run\n$/;
      const pkg = file('my-cool-plugin.tar.gz', originalToolPackage('directory-twice', 'my-cool-plugin'));
      const first = await cli('plugin', 'install', pkg);
      assert.equal(single(first, 0).status_code, 201);
      assert.equal((single(first, 0).plugin as Record<string, unknown>).runnable, false);
      assert.match(first.stderr, warning);
      const again = await cli('plugin', 'install', pkg);
      assert.equal(single(again, 0).status_code, 200);
      assert.match(again.stderr, warning);
      const disabled = await cli('plugin', 'update', 'my-cool-plugin', '--disable');
      assert.equal((single(disabled, 0).message as Record<string, unknown>).runnable, false);
      assert.match(disabled.stderr, warning);
      assert.equal(single(await cli('plugin', 'delete', 'my-cool-plugin'), 0).status_code, 204);
      // A Charta plugin: runnable, no warning.
      const charta = await cli('plugin', 'install', file('vitals-alert-2.0.0.tar.gz', await pluginTarball('2.0.0')));
      assert.equal((single(charta, 0).plugin as Record<string, unknown>).runnable, true);
      assert.equal(charta.stderr, '');
      const updated = await cli('plugin', 'update', 'vitals-alert', '--disable');
      single(updated, 0);
      assert.equal(updated.stderr, '');
      assert.equal(single(await cli('plugin', 'delete', 'vitals-alert'), 0).status_code, 204);
    });

    it('a wrong API key is a 401 failure line, exit 1', async () => {
      for (const args of [
        ['plugin', 'list'],
        ['plugin', 'delete', 'x'],
        ['plugin', 'update', 'x', '--enable'],
      ]) {
        const r = await cli(...args, '--api-key', 'wrong-key');
        const line = single(r, 1);
        assert.equal(line.success, false);
        assert.equal(line.status_code, 401);
        noStackTrace(r);
      }
      const r = await charta(['plugin', 'list'], { ...env, CHARTA_API_KEY: 'wrong-key' });
      assert.equal(single(r, 1).status_code, 401);
    });
  });
}

describe('charta plugin (no instance needed)', () => {
  const dir = tempDir('charta-plugin-args-');
  const env = { CHARTA_CONFIG_DIR: path.join(dir, 'config'), CHARTA_HOST: 'http://127.0.0.1:1', CHARTA_API_KEY: 'k' };
  const cli = (...args: string[]) => charta(args, env);
  const tgz = path.join(dir, 'p.tar.gz');
  fs.writeFileSync(tgz, 'not really a tarball');
  const zip = path.join(dir, 'p.zip');
  fs.writeFileSync(zip, 'not a package name');

  it('an unreachable host is a "Failed to connect" line, exit 1', async () => {
    const host = `http://127.0.0.1:${await closedPort()}`;
    for (const args of [
      ['plugin', 'list'],
      ['plugin', 'install', tgz],
      ['plugin', 'delete', 'x', '--force'],
    ]) {
      const r = await charta([...args, '--host', host], env);
      const line = single(r, 1);
      assert.equal(line.success, false);
      assert.match(String(line.message), new RegExp(`^Failed to connect to ${host}: .+`));
      assert.equal(line.status_code, undefined);
      noStackTrace(r);
    }
  });

  it('bad arguments are usage-error lines, exit 2', async () => {
    const cases: Array<[string[], RegExp]> = [
      [['plugin', 'install'], /missing required argument/],
      [['plugin', 'install', path.join(dir, 'missing.tar.gz')], /^No such file/],
      [['plugin', 'install', zip], /must be a \.whl or \.tar\.gz file/],
      [['plugin', 'update', 'x', '--enable', '--disable'], /--enable and --disable cannot be used together/],
      [['plugin', 'update', 'x', '--package', path.join(dir, 'missing.whl')], /^No such file/],
      [['plugin', 'update', 'x', '--package', dir], /is a directory; build it with `charta plugin build` and pass the \.tar\.gz$/],
      [['plugin', 'delete'], /missing required argument/],
      [['plugin', 'list', '--bogus'], /unknown option/],
      [['plugin', 'frobnicate'], /unknown command|Missing command/],
    ];
    for (const [args, message] of cases) {
      const r = await cli(...args);
      const line = single(r, 2);
      assert.equal(line.success, false, args.join(' '));
      assert.match(String(line.message), message, args.join(' '));
      noStackTrace(r);
    }
    const noHost = single(await charta(['plugin', 'list'], { CHARTA_CONFIG_DIR: env.CHARTA_CONFIG_DIR }), 2);
    assert.match(String(noHost.message), /Please specify a host/);
  });

  it('speaks the original wire: raw key, True/False, form-encoded flag, pages followed on the given host', async () => {
    const seen: Array<{ method: string; url: string; authorization: string | undefined; type: string | undefined; body: string }> = [];
    const server = http.createServer((req, res) => {
      let body = '';
      req.on('data', (chunk) => (body += chunk));
      req.on('end', () => {
        seen.push({ method: req.method!, url: req.url!, authorization: req.headers.authorization, type: req.headers['content-type'], body });
        res.setHeader('content-type', 'application/json');
        if (req.method === 'GET') {
          const offset = Number(new URL(req.url!, 'http://x').searchParams.get('offset') ?? 0);
          const results = Array.from({ length: offset === 0 ? 100 : 1 }, (_, i) => ({ name: `p${offset + i}` }));
          // The link names another host: only its offset may be used.
          const next = offset === 0 ? 'http://elsewhere.invalid/core/api/v1/plugins/?limit=100&offset=100' : null;
          res.end(JSON.stringify({ count: 101, next, previous: null, results }));
        } else {
          res.end(JSON.stringify({ name: 'x', is_enabled: false }));
        }
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const host = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const wire = { ...env, CHARTA_HOST: host, CHARTA_API_KEY: 'raw-key-123' };
      const listed = single(await charta(['plugin', 'list'], wire), 0);
      const message = listed.message as { count: number; results: Array<{ name: string }> };
      assert.equal(message.count, 101);
      assert.equal(message.results[100]!.name, 'p100');
      single(await charta(['plugin', 'update', 'My Plugin', '--disable'], wire), 0);
      single(await charta(['plugin', 'update', 'x', '--enable', '--package', tgz], wire), 0);
      single(await charta(['plugin', 'update', 'x'], wire), 0);
      assert.deepEqual(
        seen.map((s) => [s.method, s.url, s.authorization]),
        [
          ['GET', '/core/api/v1/plugins/?limit=100', 'raw-key-123'],
          ['GET', '/core/api/v1/plugins/?limit=100&offset=100', 'raw-key-123'],
          ['PATCH', '/core/api/v1/plugins/My%20Plugin/', 'raw-key-123'],
          ['PATCH', '/core/api/v1/plugins/x/', 'raw-key-123'],
          ['PATCH', '/core/api/v1/plugins/x/', 'raw-key-123'],
        ],
      );
      assert.match(seen[2]!.type!, /^application\/x-www-form-urlencoded/);
      assert.equal(seen[2]!.body, 'is_enabled=False');
      assert.match(seen[3]!.type!, /^multipart\/form-data/);
      assert.match(seen[3]!.body, /name="is_enabled"\r\n\r\nTrue\r\n/);
      assert.match(seen[3]!.body, /name="package"; filename="p\.tar\.gz"/);
      assert.equal(seen[4]!.body, '');
    } finally {
      server.close();
    }
  });

  it('install updates instead on a plugin_exists answered 409 (as /plugin-io/plugins/ answers) as on a 400', async () => {
    const seen: string[] = [];
    const server = http.createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        seen.push(`${req.method} ${req.url}`);
        res.setHeader('content-type', 'application/json');
        if (req.method === 'POST' && req.url === '/core/api/v1/plugins/') {
          res.statusCode = 409;
          res.end(JSON.stringify({ status: 409, code: 'plugin_exists', detail: 'A plugin named x already exists; update it instead' }));
        } else if (req.url === '/core/api/v1/plugins/extract-metadata/') res.end(JSON.stringify({ name: 'x' }));
        else res.end(JSON.stringify({ name: 'x', is_enabled: true, runnable: true, runnable_reason: null }));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const host = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const r = await charta(['plugin', 'install', tgz], { ...env, CHARTA_HOST: host, CHARTA_API_KEY: 'k' });
      assert.equal(single(r, 0).status_code, 200);
      assert.equal(r.stderr, '');
      assert.deepEqual(seen, ['POST /core/api/v1/plugins/', 'POST /core/api/v1/plugins/extract-metadata/', 'PATCH /core/api/v1/plugins/x/']);
    } finally {
      server.close();
    }
  });
});
