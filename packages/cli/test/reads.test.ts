// `charta plugin reads NAME [--patient KEY]` through the real binary against a real instance
// (SQLite; docs/cli.md): a plugin whose handler reads its event's patient has those reads listed
// newest first in one line, only one patient's with --patient; a bad key is a usage line with
// nothing sent; an unknown plugin has no reads.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { TEST_API_KEY, startInstance, type Instance } from '../../server/test/support/harness.ts';
import { runtimeWatch } from '../../server/test/support/plugins.ts';
import { until } from '../../server/test/support/until.ts';
import { charta, single, tempDir } from './support/cli.ts';

describe('charta plugin reads', () => {
  let api: Instance;
  const dir = tempDir('charta-reads-');
  const env = { CHARTA_CONFIG_DIR: path.join(dir, 'config') };
  const cli = (...args: string[]) => charta(args, env);
  const { install } = runtimeWatch(() => api);
  let first: { patientKey: string; noteKey: string };
  let second: { patientKey: string; noteKey: string };

  before(async () => {
    api = await startInstance('sqlite');
    single(await cli('auth', 'add-api-key', '--host', api.url, '--api-key', TEST_API_KEY, '--is-default'), 0);
    await install(
      'looker',
      [
        {
          className: 'Looker',
          events: ['PLAN_COMMAND__POST_ORIGINATE'],
          async: true,
          compute: '    await this.data.patients.get(this.event.context.patient.key);\n    return [];',
        },
      ],
      { data: { read: ['patients'] } },
    );
    first = await api.note();
    second = await api.note();
    for (const n of [first, second]) {
      const r = await api.call('POST', '/core/api/v1/commands/', { body: { schemaKey: 'plan', noteKey: n.noteKey, values: { narrative: 'x' } } });
      assert.equal(r.status, 201, r.text);
    }
    await until(
      'two reads audited',
      async () => (await api.call('GET', '/core/api/v1/plugins/looker/reads/', { authorization: TEST_API_KEY })).json.count === 2,
    );
  });
  after(async () => api?.stop());

  it('lists the reads newest first; --patient only that patient’s', async () => {
    const all = single(await cli('plugin', 'reads', 'looker'), 0);
    assert.equal(all.success, true);
    const listed = all.message as { count: number; results: Array<{ read: string; patient_key: string; rows: number; refused: null }> };
    assert.equal(listed.count, 2);
    assert.deepEqual(
      listed.results.map((r) => [r.read, r.patient_key, r.rows, r.refused]),
      [
        ['patients.get', second.patientKey, 1, null],
        ['patients.get', first.patientKey, 1, null],
      ],
    );
    const one = single(await cli('plugin', 'reads', 'looker', '--patient', first.patientKey), 0);
    assert.deepEqual(
      (one.message as typeof listed).results.map((r) => r.patient_key),
      [first.patientKey],
    );
    const none = single(await cli('plugin', 'reads', 'nobody'), 0);
    assert.equal((none.message as typeof listed).count, 0);
  });

  it('a bad --patient is a usage error, exit 2, nothing sent', async () => {
    const line = single(await cli('plugin', 'reads', 'looker', '--patient', 'Robert'), 2);
    assert.match(String(line.message), /--patient 'Robert'/);
  });
});
