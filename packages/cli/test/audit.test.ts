// `charta audit` through the real binary against a real instance (SQLite; docs/cli.md,
// docs/operations.md "Audit trail"): a patient's rows newest first, a plugin's reads among them
// (the plugin as actor, the patient named), pages by --before, a usage error for a bad --limit
// with nothing sent, and the instance's 400 naming a bad filter as a failure line.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { TEST_API_KEY, startInstance, type Instance } from '../../server/test/support/harness.ts';
import { runtimeWatch } from '../../server/test/support/plugins.ts';
import { until } from '../../server/test/support/until.ts';
import { charta, single, tempDir } from './support/cli.ts';

type Page = { count: number; before: number | null; results: Array<{ id: number; action: string; actor: string | null; patient_key: string | null }> };

describe('charta audit', () => {
  let api: Instance;
  const dir = tempDir('charta-audit-');
  const env = { CHARTA_CONFIG_DIR: path.join(dir, 'config') };
  const cli = (...args: string[]) => charta(args, env);
  const { install } = runtimeWatch(() => api);
  let patientKey: string;

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
    const n = await api.note();
    patientKey = n.patientKey;
    const r = await api.call('POST', '/core/api/v1/commands/', { body: { schemaKey: 'plan', noteKey: n.noteKey, values: { narrative: 'x' } } });
    assert.equal(r.status, 201, r.text);
    await until(
      'the read audited',
      async () => (await api.call('GET', '/core/api/v1/plugins/looker/reads/', { authorization: TEST_API_KEY })).json.count === 1,
    );
  });
  after(async () => api?.stop());

  it("lists a patient's rows newest first, the plugin's read among them", async () => {
    const page = single(await cli('audit', '--patient', patientKey), 0).message as Page;
    assert.deepEqual(
      page.results.map((e) => e.action),
      ['plugin.read', 'command.created', 'note.created', 'patient.created'],
    );
    assert.equal(page.results[0]!.actor, 'plugin:looker');
    assert.ok(page.results.every((e) => e.patient_key === patientKey));
    assert.equal(page.before, null, 'one page');
  });

  it('pages by --before', async () => {
    const first = single(await cli('audit', '--patient', patientKey, '--limit', '1'), 0).message as Page;
    assert.equal(first.count, 1);
    assert.equal(typeof first.before, 'number');
    const second = single(await cli('audit', '--patient', patientKey, '--limit', '1', '--before', String(first.before)), 0).message as Page;
    assert.equal(second.results[0]!.action, 'command.created');
    assert.ok(second.results[0]!.id < first.results[0]!.id);
  });

  it('a bad --limit is a usage error (exit 2); a bad filter is the instance’s 400, naming it (exit 1)', async () => {
    assert.match(String(single(await cli('audit', '--limit', 'many'), 2).message), /--limit 'many'/);
    const refused = single(await cli('audit', '--patient', 'Robert'), 1);
    assert.equal(refused.success, false);
    assert.match(JSON.stringify(refused), /patient_key/);
  });
});
