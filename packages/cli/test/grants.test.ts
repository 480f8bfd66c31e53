// `--grant NAME` of `charta plugin install` and `--grant` / `--revoke` of `charta plugin update`
// through the real `charta` binary against a real instance (both engines): the grants reach the
// instance as repeated `grant` and `revoke` fields, on a first install, on an install that
// updates, and on an update with or without a package; `plugin list` shows them; a name the
// instance does not know is its 400, exit 1, and changes nothing (docs/plugins.md, "Grants").
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { ENGINES, TEST_API_KEY, startInstance, type Instance } from '../../server/test/support/harness.ts';
import { manifestJson, tarFromDir } from '../../server/test/support/archives.ts';
import { charta, single, tempDir } from './support/cli.ts';

const NAME = 'granted-one';
const pluginTarball = (version: string) =>
  tarFromDir(
    {
      'CHARTA_MANIFEST.json': manifestJson({ name: NAME, plugin_version: version }),
      'dist/index.js': "export class VitalsHandler {\n  static RESPONDS_TO = ['PLAN_COMMAND__POST_COMMIT'];\n  compute() { return []; }\n}\n",
    },
    ['.'],
  );

for (const engine of ENGINES) {
  describe(`charta plugin --grant / --revoke (${engine})`, () => {
    let api: Instance;
    const dir = tempDir('charta-grants-');
    const env = { CHARTA_CONFIG_DIR: path.join(dir, 'config') };
    const cli = (...args: string[]) => charta(args, env);
    const file = async (version: string) => {
      const full = path.join(dir, `${NAME}-${version}.tar.gz`);
      fs.writeFileSync(full, await pluginTarball(version));
      return full;
    };
    const stored = async () => (await api.call('GET', `/core/api/v1/plugins/${NAME}/`, { authorization: TEST_API_KEY })).json.grants as string[];

    before(async () => {
      api = await startInstance(engine);
      single(await cli('auth', 'add-api-key', '--host', api.url, '--api-key', TEST_API_KEY, '--is-default'), 0);
    });
    after(async () => api?.stop());

    it('install --grant (repeatable) gives the grants with the package; the line shows them', async () => {
      const line = single(await cli('plugin', 'install', await file('1.0.0'), '--grant', 'effects:instance', '--grant', 'effects:any-command'), 0);
      assert.equal(line.status_code, 201);
      assert.deepEqual((line.plugin as Record<string, unknown>).grants, ['effects:any-command', 'effects:instance']);
      assert.deepEqual(await stored(), ['effects:any-command', 'effects:instance']);
    });

    it('install of a plugin already there keeps its grants, and adds those given', async () => {
      const kept = single(await cli('plugin', 'install', await file('1.1.0')), 0);
      assert.equal(kept.status_code, 200);
      assert.deepEqual((kept.message as Record<string, unknown>).grants, ['effects:any-command', 'effects:instance']);
    });

    it('update NAME --revoke and --grant take back and give, alone or with a package; plugin list shows the grants', async () => {
      const revoked = single(await cli('plugin', 'update', NAME, '--revoke', 'effects:instance'), 0);
      assert.deepEqual((revoked.message as Record<string, unknown>).grants, ['effects:any-command']);
      const swapped = single(await cli('plugin', 'update', NAME, '--grant', 'effects:instance', '--revoke', 'effects:any-command'), 0);
      assert.deepEqual((swapped.message as Record<string, unknown>).grants, ['effects:instance']);
      const withPackage = single(await cli('plugin', 'update', NAME, '--package', await file('1.2.0'), '--grant', 'effects:any-command'), 0);
      assert.equal((withPackage.message as Record<string, unknown>).version, '1.2.0');
      assert.deepEqual((withPackage.message as Record<string, unknown>).grants, ['effects:any-command', 'effects:instance']);
      const list = single(await cli('plugin', 'list'), 0);
      const listed = ((list.message as { results: Array<Record<string, unknown>> }).results ?? []).find((p) => p.name === NAME);
      assert.deepEqual(listed?.grants, ['effects:any-command', 'effects:instance']);
    });

    it('a grant the instance does not know is its 400 naming the known grants, exit 1, and nothing changes', async () => {
      const line = single(await cli('plugin', 'update', NAME, '--revoke', 'effects:instance', '--grant', 'effects:everything'), 1);
      assert.equal(line.status_code, 400);
      const problem = line.message as { code: string; errors: Array<{ field: string; message: string }> };
      assert.equal(problem.code, 'validation_failed');
      assert.deepEqual(problem.errors, [
        { field: 'grant[0]', message: '"effects:everything" is not a grant; the grants are data:instance, effects:any-command, effects:instance' },
      ]);
      assert.deepEqual(await stored(), ['effects:any-command', 'effects:instance']);
    });
  });
}
