// The example plugins of examples/ (examples/README.md), end to end: each one's own tests pass
// under `charta plugin test` (the only way they run: scripts/run-tests.js looks under packages/
// only, and those tests need the sandbox), then, on a real instance of each engine, each is built
// and installed with the real `charta` binary, the change that sets it off is made through the
// API, and its effect is read back through the API: a banner alert, a metadata pair, an instruct
// in the note, a refused read in the plugin's reads, a refused commit. One instance per engine serves the five.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { createHmac } from 'node:crypto';
import { ENGINES, TEST_API_KEY, startInstance, type Instance } from '../../server/test/support/harness.ts';
import { until } from '../../server/test/support/until.ts';
import { charta, single, tempDir } from './support/cli.ts';

const EXAMPLES = path.resolve(import.meta.dirname, '../../../examples');
const C = '/core/api/v1/commands';
const option = (text: string, code: string, system = 'UNSTRUCTURED') => ({ text, value: code, extra: { coding: [{ code, display: text, system }] } });

describe("the examples' own tests, under charta plugin test", () => {
  for (const [name, tests] of [
    ['condition-protocol', 6],
    ['plan-metadata', 7],
    ['lab-follow-up', 4],
    ['out-of-scope-read', 4],
    ['supervising-provider', 4],
    ['lab-results-webhook', 4],
  ] as const) {
    it(`${name}: ${tests} tests pass in the sandbox`, async () => {
      const r = await charta(['plugin', 'test', path.join(EXAMPLES, name)], {});
      const summary = r.lines.at(-1);
      assert.equal(r.code, 0, `stdout: ${r.stdout}\nstderr: ${r.stderr}`);
      assert.deepEqual([summary?.success, summary?.tests, summary?.passed], [true, tests, tests], JSON.stringify(summary));
    });
  }
});

for (const engine of ENGINES) {
  describe(`the examples installed on an instance (${engine})`, () => {
    let api: Instance;
    const env = { CHARTA_CONFIG_DIR: path.join(tempDir('charta-examples-'), 'config') };
    const logsOf = (plugin: string) => api.app.logs.recent({ plugin }).map((r) => r.entry);
    const context = (plugin: string) => () => JSON.stringify(logsOf(plugin));

    /** `charta plugin install examples/<name>` (built on the way), then waits until the runtime runs it. */
    const install = async (name: string, ...extra: string[]) => {
      const running = () => logsOf(name).filter((e) => /running: \d+ handler/.test(e.event)).length;
      const before = running();
      const line = single(await charta(['plugin', 'install', path.join(EXAMPLES, name), ...extra], env), 0);
      assert.equal(line.status_code, 201, JSON.stringify(line));
      assert.equal((line.plugin as { is_enabled: boolean }).is_enabled, true);
      await until(`${name} running`, () => running() > before, 15_000, context(name));
    };
    const stage = async (noteKey: string, schemaKey: string, values: Record<string, unknown> = {}) => {
      const r = await api.call('POST', `${C}/`, { body: { schemaKey, noteKey, values } });
      assert.equal(r.status, 201, r.text);
      return r.json.uuid as string;
    };
    const patch = async (uuid: string, values: Record<string, unknown>) => {
      const r = await api.call('PATCH', `${C}/${uuid}/`, { body: { values } });
      assert.equal(r.status, 200, r.text);
    };
    const commit = async (uuid: string) => {
      const r = await api.call('POST', `${C}/${uuid}/commit/`);
      assert.equal(r.status, 200, r.text);
    };
    const admin = async (urlPath: string, body: unknown) => {
      const r = await api.call('POST', `/core/api/v1/admin${urlPath}`, { body, authorization: TEST_API_KEY });
      assert.equal(r.status, 201, r.text);
      return r.json;
    };

    before(async () => {
      api = await startInstance(engine);
      single(await charta(['auth', 'add-api-key', '--host', api.url, '--api-key', TEST_API_KEY, '--is-default'], env), 0);
    });
    after(async () => api?.stop());

    it('condition-protocol: an HPI mentioning thirst, for a patient diagnosed E11.9, adds a banner alert', async () => {
      await install('condition-protocol');
      const { patientKey, noteKey } = await api.note();
      // The diagnosis, picked by autocomplete from the instance's terminology, makes the active condition.
      const diagnose = await stage(noteKey, 'diagnose');
      const found = await api.call('GET', `${C}/${diagnose}/fields/diagnose/autocomplete/?search_term=E11.9`);
      const picked = (found.json as Array<{ value: string }>)[0];
      assert.ok(picked, found.text);
      await patch(diagnose, { diagnose: picked.value });
      await commit(diagnose);

      // POST_UPDATE: the narrative is changed after the HPI is created.
      const hpi = await stage(noteKey, 'hpi', { narrative: 'Three days of cough' });
      await patch(hpi, { narrative: 'Increased thirst for a week' });
      const alerts = await until(
        'the banner alert',
        async () => {
          const r = await api.call('GET', `/core/api/v1/patients/${patientKey}/banner-alerts/`);
          return r.json.count > 0 ? (r.json.results as Array<Record<string, unknown>>) : false;
        },
        15_000,
        context('condition-protocol'),
      );
      assert.deepEqual(
        alerts.map((a) => [a.plugin, a.key, a.narrative, a.intent]),
        [['condition-protocol', 'protocol-diabetes', 'HPI mentions thirst: review the diabetes protocol', 'warning']],
      );
    });

    it('plan-metadata: "follow up in 2 weeks" in a plan upserts follow-up-interval = 2w', async () => {
      await install('plan-metadata');
      const { patientKey, noteKey } = await api.note();
      const plan = await stage(noteKey, 'plan');
      await patch(plan, { narrative: 'Start metformin. Follow up in 2 weeks.' });
      const pairs = await until(
        'the metadata pair',
        async () => {
          const r = await api.call('GET', `/core/api/v1/patients/${patientKey}/metadata/`);
          return r.json.count > 0 ? (r.json.results as Array<Record<string, unknown>>) : false;
        },
        15_000,
        context('plan-metadata'),
      );
      assert.deepEqual(
        pairs.map((p) => [p.namespace, p.key, p.value, p.updated_by]),
        [['plan-metadata', 'follow-up-interval', '2w', 'plugin:plan-metadata']],
      );
    });

    it('lab-follow-up: a lab order committed in a note without a plan gets a follow-up instruct; with a plan, none', async () => {
      await install('lab-follow-up');
      // The lab order's pickable fields take the reference data's entries (docs/api.md).
      const staff = await admin('/staff/', { first_name: 'Dr', last_name: 'Lab', role: 'provider' });
      const lab = await admin('/lab-partners/', { name: 'Example lab' });
      await admin(`/lab-partners/${lab.id}/tests/`, { order_code: 'EX-CBC', name: 'CBC', loinc_code: '58410-2' });
      const labOrder = {
        lab_partner: option('Example lab', 'Example lab'),
        tests: [option('CBC', 'EX-CBC', 'http://loinc.org')],
        ordering_provider: option('Dr Lab', staff.key),
        fasting_required: false,
      };
      const instructs = async (noteKey: string) => {
        const r = await api.call('GET', `${C}/?note_key=${noteKey}&schema_key=instruct&limit=100`);
        assert.equal(r.status, 200, r.text);
        return r.json.results as Array<Record<string, any>>;
      };

      const { noteKey } = await api.note();
      await commit(await stage(noteKey, 'labOrder', labOrder));
      const [instruct] = await until(
        'the follow-up instruct',
        async () => ((await instructs(noteKey)).length > 0 ? instructs(noteKey) : false),
        15_000,
        context('lab-follow-up'),
      );
      assert.deepEqual(
        [instruct!.state, instruct!.originated_by, instruct!.data.comment],
        ['staged', 'plugin:lab-follow-up', 'Follow up on the lab results (CBC): this note has no plan.'],
      );

      // A note with a committed plan: the handler runs (its log line) and adds nothing.
      const planned = await api.note();
      await commit(await stage(planned.noteKey, 'plan', { narrative: 'Recheck in 2 weeks' }));
      await commit(await stage(planned.noteKey, 'labOrder', labOrder));
      await until(
        'the handler saw the plan',
        () => logsOf('lab-follow-up').some((e) => /the note has 1 plan\(s\)/.test(e.event)),
        15_000,
        context('lab-follow-up'),
      );
      assert.deepEqual(await instructs(planned.noteKey), []);
    });

    it('out-of-scope-read: the read of the patient its secret names is refused, and listed as refused', async () => {
      const other = await api.note();
      await install('out-of-scope-read', '--secret', `OTHER_PATIENT_KEY=${other.patientKey}`);
      const own = await api.note();
      await commit(await stage(own.noteKey, 'plan', { narrative: 'Recheck in 2 weeks' }));
      const reads = await until(
        'the refused read',
        async () => {
          const r = await api.call('GET', `/core/api/v1/plugins/out-of-scope-read/reads/?patient_key=${other.patientKey}`, { authorization: TEST_API_KEY });
          assert.equal(r.status, 200, r.text);
          return r.json.count > 0 ? (r.json.results as Array<Record<string, any>>) : false;
        },
        15_000,
        context('out-of-scope-read'),
      );
      assert.equal(reads.length, 1);
      assert.deepEqual(
        [reads[0]!.read, reads[0]!.patient_key, reads[0]!.rows, reads[0]!.event_type],
        ['patients.get', other.patientKey, 0, 'PLAN_COMMAND__POST_COMMIT'],
      );
      assert.ok(typeof reads[0]!.refused === 'string' && reads[0]!.refused !== '', JSON.stringify(reads[0]));
      // The handler logged the refusal; `charta plugin reads` lists the same row.
      await until(
        'the logged refusal',
        () => logsOf('out-of-scope-read').some((e) => /refused \(out_of_scope\)/.test(e.event)),
        15_000,
        context('out-of-scope-read'),
      );
      const listed = single(await charta(['plugin', 'reads', 'out-of-scope-read', '--patient', other.patientKey], env), 0);
      assert.deepEqual(
        (listed.message as { results: Array<{ refused: unknown }> }).results.map((r) => r.refused),
        [reads[0]!.refused],
      );
    });

    it('supervising-provider: a nurse practitioner’s prescription is refused without a supervising provider, committed with one', async () => {
      await install('supervising-provider');
      const np = await admin('/staff/', { first_name: 'Nora', last_name: 'Practitioner', credentials: 'NP', role: 'provider' });
      const md = await admin('/staff/', { first_name: 'Maya', last_name: 'Doctor', credentials: 'MD', npi: '1234567893', role: 'provider' });
      await admin('/dispense-units/', { ncpdp_quantity_qualifier_code: 'C48480', description: 'Capsule' });
      const { noteKey } = await api.note();
      const rx = await stage(noteKey, 'prescribe', {
        prescribe: option('Amoxicillin 500 mg capsule', 'Amoxicillin 500 mg capsule'),
        indications: [option('Otitis media', 'Otitis media')],
        sig: 'one capsule three times daily',
        days_supply: 10,
        quantity_to_dispense: '30',
        type_to_dispense: option('capsule', 'C48480'),
        refills: 0,
        substitutions: 'allowed',
        prescriber: option('Nora Practitioner, NP', np.key),
      });
      const refused = await api.call('POST', `${C}/${rx}/commit/`);
      assert.equal(refused.status, 400, refused.text);
      assert.equal(refused.json.code, 'plugin_validation_failed');
      assert.deepEqual(
        refused.json.errors.map((e: { field: string; plugin: string }) => [e.field, e.plugin]),
        [['supervising_provider', 'supervising-provider']],
      );
      assert.equal((await api.call('GET', `${C}/${rx}/`)).json.state, 'staged', 'nothing was written');
      await patch(rx, { supervising_provider: option('Maya Doctor, MD', md.key) });
      await commit(rx);
      const reads = await api.call('GET', '/core/api/v1/plugins/supervising-provider/reads/', { authorization: TEST_API_KEY });
      assert.deepEqual(
        reads.json.results.map((r: { read: string; keys: string[] }) => [r.read, r.keys]),
        [['reference.get', [np.key]]],
        'one read of the staff data, for the refused commit (the second has a supervising provider)',
      );
    });

    it('lab-results-webhook: a signed POST to its route files the result in the note (202); a wrong signature is 401 and files nothing', async () => {
      const key = 'lab-webhook-key-0123456789abcdef';
      await install('lab-results-webhook', '--grant', 'effects:instance', '--secret', `LAB_WEBHOOK_KEY=${key}`);
      const { noteKey } = await api.note();
      const body = JSON.stringify({ note: noteKey, test: 'HbA1c', result: '6.1 %' });
      const url = `${api.url}/plugin-io/api/lab-results-webhook/webhooks/lab-result`;
      const send = (signature: string) => fetch(url, { method: 'POST', body, headers: { 'content-type': 'application/json', 'x-lab-signature': signature } });
      const instructs = async () => (await api.call('GET', `${C}/?note_key=${noteKey}&schema_key=instruct`)).json.results as Array<Record<string, any>>;
      assert.equal((await send('sha256=0000')).status, 401);
      assert.deepEqual(await instructs(), []);
      const signed = await send(`sha256=${createHmac('sha256', key).update(body).digest('hex')}`);
      assert.equal(signed.status, 202, await signed.clone().text());
      assert.deepEqual(await signed.json(), { accepted: true });
      const [instruct] = await instructs();
      assert.deepEqual([instruct?.originated_by, instruct?.data.comment], ['plugin:lab-results-webhook', 'Lab result received: HbA1c: 6.1 %']);
    });
  });
}
