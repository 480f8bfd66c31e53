// `--secret KEY=VALUE` of `charta plugin install` and `charta plugin update` through the real
// `charta` binary against a real instance (both engines): the values reach the instance (as the
// original tool's base64 `secret` fields), on a first install, on an install that updates, and
// on an update with or without a package; no output ever shows a value; a `--secret` without
// `KEY=` is a usage error that shows nothing of it and sends nothing.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { ENGINES, TEST_API_KEY, startInstance, type Instance } from '../../server/test/support/harness.ts';
import { manifestJson, tarFromDir } from '../../server/test/support/archives.ts';
import { pluginSecretValues } from '../../server/src/storage/plugin-secrets-repository.ts';
import { charta, single, tempDir, type Result } from './support/cli.ts';

const NAME = 'secret-keeper';
const pluginTarball = (version: string, secrets = ['API_TOKEN', 'WEBHOOK_URL']) =>
  tarFromDir(
    {
      'CHARTA_MANIFEST.json': manifestJson({ name: NAME, plugin_version: version, secrets }),
      'dist/index.js': "export class VitalsHandler {\n  static RESPONDS_TO = ['PLAN_COMMAND__POST_COMMIT'];\n  compute() { return []; }\n}\n",
      'README.md': '# Secret keeper\n',
    },
    ['.'],
  );

const FIRST = 'first-9d2c77e1-never-printed';
const SECOND = 'second-41be08aa-never-printed';
const THIRD = 'third-with=equals-and spaces-never-printed';
const HOOK = 'https://hooks.example.org/5f1e0c-never-printed';
const VALUES = [FIRST, SECOND, THIRD, HOOK];

const outputs: string[] = [];
const kept = (r: Result) => {
  outputs.push(r.stdout, r.stderr);
  return r;
};

for (const engine of ENGINES) {
  describe(`charta plugin --secret (${engine})`, () => {
    let api: Instance;
    const dir = tempDir('charta-secrets-');
    const env = { CHARTA_CONFIG_DIR: path.join(dir, 'config') };
    const cli = async (...args: string[]) => kept(await charta(args, env));
    const file = async (version: string, secrets?: string[]) => {
      const full = path.join(dir, `${NAME}-${version}.tar.gz`);
      fs.writeFileSync(full, await pluginTarball(version, secrets));
      return full;
    };
    const values = () => pluginSecretValues(api.storage.db, api.app.keyring, NAME);

    before(async () => {
      api = await startInstance(engine);
      single(await cli('auth', 'add-api-key', '--host', api.url, '--api-key', TEST_API_KEY, '--is-default'), 0);
    });
    after(async () => api?.stop());

    it('install --secret sets the values with the package', async () => {
      const line = single(await cli('plugin', 'install', await file('1.0.0'), '--secret', `API_TOKEN=${FIRST}`), 0);
      assert.equal(line.status_code, 201);
      assert.deepEqual(await values(), { API_TOKEN: FIRST });
    });

    it('install of a plugin already there sends the secrets with its update', async () => {
      const line = single(await cli('plugin', 'install', await file('1.1.0'), '--secret', `API_TOKEN=${SECOND}`, '--secret', `WEBHOOK_URL=${HOOK}`), 0);
      assert.equal(line.status_code, 200);
      assert.equal((line.message as Record<string, unknown>).version, '1.1.0');
      assert.deepEqual(await values(), { API_TOKEN: SECOND, WEBHOOK_URL: HOOK });
    });

    it('update NAME --secret (repeatable) sets them, alone or with --disable; a value may hold `=` and spaces', async () => {
      const line = single(await cli('plugin', 'update', NAME, '--secret', `API_TOKEN=${THIRD}`), 0);
      assert.equal(line.status_code, 200);
      assert.deepEqual(await values(), { API_TOKEN: THIRD, WEBHOOK_URL: HOOK });
      const both = single(await cli('plugin', 'update', NAME, '--disable', '--secret', `WEBHOOK_URL=${FIRST}`, '--secret', 'API_TOKEN='), 0);
      assert.equal((both.message as Record<string, unknown>).is_enabled, false);
      assert.deepEqual(await values(), { API_TOKEN: '', WEBHOOK_URL: FIRST }, 'an empty value is a value');
    });

    it('update with a package and --secret sends both; a secret the package does not declare refuses both', async () => {
      const refused = single(await cli('plugin', 'update', NAME, '--package', await file('2.0.0', ['API_TOKEN']), '--secret', `WEBHOOK_URL=${SECOND}`), 1);
      assert.equal(refused.status_code, 400);
      assert.match(String((refused.message as Record<string, unknown>).detail), /secrets\.WEBHOOK_URL: is not declared/);
      assert.equal((await api.call('GET', `/core/api/v1/plugins/${NAME}/`, { authorization: TEST_API_KEY })).json.version, '1.1.0');
      assert.deepEqual(await values(), { API_TOKEN: '', WEBHOOK_URL: FIRST });
      const ok = single(await cli('plugin', 'update', NAME, '--package', await file('2.0.0', ['API_TOKEN']), '--secret', `API_TOKEN=${SECOND}`), 0);
      assert.equal((ok.message as Record<string, unknown>).version, '2.0.0');
      assert.equal((await values()).API_TOKEN, SECOND);
    });

    it('an undeclared secret is the instance 400, exit 1', async () => {
      const line = single(await cli('plugin', 'update', NAME, '--secret', `NOT_DECLARED=${FIRST}`), 1);
      assert.equal(line.status_code, 400);
      assert.equal((line.message as Record<string, unknown>).code, 'validation_failed');
    });
  });
}

describe('charta plugin --secret (no instance needed)', () => {
  const dir = tempDir('charta-secrets-args-');
  const env = { CHARTA_CONFIG_DIR: path.join(dir, 'config'), CHARTA_HOST: 'http://127.0.0.1:1', CHARTA_API_KEY: 'k' };
  const tgz = path.join(dir, 'p.tar.gz');
  fs.writeFileSync(tgz, 'not really a tarball');

  it('a --secret without KEY= is a usage error (exit 2) that does not show it', async () => {
    for (const args of [
      ['plugin', 'update', 'x', '--secret', FIRST],
      ['plugin', 'update', 'x', '--secret', 'A=ok', '--secret', `=${SECOND}`],
      ['plugin', 'install', tgz, '--secret', THIRD.replaceAll('=', '')],
    ]) {
      const r = kept(await charta(args, env));
      const line = single(r, 2);
      assert.equal(line.success, false);
      assert.match(String(line.message), /--secret must be KEY=VALUE/);
    }
  });

  it('no output of any test above holds a secret value', () => {
    assert.ok(outputs.length > 10);
    for (const value of VALUES)
      for (const text of outputs) assert.ok(!text.includes(value) && !text.includes(value.replaceAll('=', '')), 'a value was printed');
  });
});
