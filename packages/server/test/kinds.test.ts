// All 15 kinds through the API: /fields/ publishes each kind's fields, values are validated
// on create and PATCH (400 naming the field), and a complete command of each kind commits.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ENGINES, startInstance, TEST_API_KEY, type Instance } from './support/harness.ts';
import { commandKinds } from '../src/commands/kinds/index.ts';

const C = '/core/api/v1/commands';
const option = (text: string, code: string, system = 'UNSTRUCTURED') => ({ text, value: code, extra: { coding: [{ code, display: text, system }] } });

/** A value every kind accepts for its required fields. */
const complete: Record<string, Record<string, unknown>> = {
  assess: { condition: option('Lyme disease', 'condition id, set in before()'), status: 'stable' },
  // Fields backed by a terminology take free text (UNSTRUCTURED) without any concept loaded;
  // picking real codes is terminology-search.test.ts's subject.
  diagnose: { diagnose: JSON.stringify(option('Low back pain', 'Low back pain')), approximate_date_of_onset: '2026-10' },
  goal: { goal_statement: 'Walk 30 minutes a day', start_date: '2026-11-22', priority: 'low-priority' },
  hpi: { narrative: 'Three days of cough' },
  instruct: { instruct: option('Drink fluids', 'Drink fluids') },
  // Fields backed by the reference data take its entries (made in before() through the admin
  // API; the staff key is filled in there); reference-data.test.ts picks them by autocomplete.
  labOrder: {
    lab_partner: option('Generic lab', 'Generic lab'),
    tests: [option('CBC', 'GEN-CBC', 'http://loinc.org')],
    ordering_provider: option('Dr Demo', 'staff key, set in before()'),
    fasting_required: true,
  },
  medicationStatement: { medication: option('Zyrtec 10 mg tablet', 'Zyrtec 10 mg tablet'), sig: 'one daily' },
  perform: { perform: option('Flu shot', 'Flu shot') },
  plan: { narrative: 'Follow up in 2 weeks' },
  prescribe: {
    prescribe: option('Amoxicillin 500 mg capsule', 'Amoxicillin 500 mg capsule'),
    indications: [option('Otitis media', 'Otitis media')],
    sig: 'one capsule three times daily',
    days_supply: 10,
    quantity_to_dispense: '30',
    type_to_dispense: option('capsule', 'C48480'),
    refills: 0,
    substitutions: 'allowed',
    prescriber: option('Dr Demo', 'staff key, set in before()'),
  },
  questionnaire: { questionnaire: option('PHQ-9', 'phq9') },
  reasonForVisit: { comment: 'Cough' },
  // Chart fields take the patient's entries, made in before() by committing commands.
  stopMedication: { medication: option('Zyrtec 10 mg tablet', 'medication id, set in before()'), rationale: 'Resolved' },
  updateGoal: { goal_statement: option('Walk 30 minutes a day', 'goal id, set in before()'), achievement_status: 'improving' },
  educationalMaterial: { title: option('Asthma basics', 'Asthma basics'), language: option('English (US)', 'en-us') },
};

for (const engine of ENGINES) {
  describe(`all command kinds (${engine})`, () => {
    let api: Instance;
    let noteKey = '';
    before(async () => {
      api = await startInstance(engine);
      noteKey = (await api.note()).noteKey;
      const admin = async (path: string, body: unknown) => {
        const r = await api.call('POST', `/core/api/v1/admin${path}`, { body, authorization: TEST_API_KEY });
        assert.ok(r.status === 201 || r.status === 409, r.text); // 409: a starter dispense unit
        return r.json;
      };
      const staff = await admin('/staff/', { first_name: 'Dr', last_name: 'Demo', role: 'provider' });
      complete.labOrder!.ordering_provider = option('Dr Demo', staff.key);
      complete.prescribe!.prescriber = option('Dr Demo', staff.key);
      const lab = await admin('/lab-partners/', { name: 'Generic lab' });
      await admin(`/lab-partners/${lab.id}/tests/`, { order_code: 'GEN-CBC', name: 'CBC', loinc_code: '58410-2' });
      await admin('/dispense-units/', { ncpdp_quantity_qualifier_code: 'C48480', description: 'Capsule' });
      await admin('/questionnaires/', { code: 'phq9', name: 'PHQ-9', questions: [{ code: 'q1', label: 'Q1', kind: 'TXT' }] });
      await admin('/educational-materials/', { title: 'Asthma basics', languages: ['en-us'] });
      // The patient's chart: a condition, and for each stopMedication / updateGoal example (two
      // each: the PATCH and the create of the test both commit one) its own entry.
      const committed = async (schemaKey: string, values: Record<string, unknown>) => {
        const r = await api.call('POST', `${C}/`, { body: { schemaKey, noteKey, values } });
        assert.equal(r.status, 201, r.text);
        assert.equal((await api.call('POST', `${C}/${r.json.uuid}/commit/`)).status, 200);
      };
      await committed('diagnose', { diagnose: option('Lyme disease', 'Lyme disease') });
      await committed('medicationStatement', { medication: option('Zyrtec 10 mg tablet', 'Zyrtec 10 mg tablet') });
      await committed('goal', { goal_statement: 'Walk 30 minutes a day' });
      const patientKey = (await api.call('GET', `/core/api/v1/notes/${noteKey}`)).json.patient_key as string;
      const chart = async (what: string) => (await api.call('GET', `/core/api/v1/patients/${patientKey}/${what}/`)).json.results[0].id as string;
      complete.assess!.condition = option('Lyme disease', await chart('conditions'));
      complete.stopMedication!.medication = option('Zyrtec 10 mg tablet', await chart('medications'));
      complete.updateGoal!.goal_statement = option('Walk 30 minutes a day', await chart('goals'));
    });
    after(async () => api?.stop());

    it('has a complete example for each of the 15 kinds', () => {
      assert.deepEqual(Object.keys(complete).sort(), [...commandKinds.keys()].sort());
      assert.equal(commandKinds.size, 15);
    });

    for (const kind of commandKinds.values()) {
      it(`${kind.key}: fields/ matches the kind, values round-trip, commit succeeds`, async () => {
        const empty = await api.call('POST', `${C}/`, { body: { schemaKey: kind.key, noteKey } });
        assert.equal(empty.status, 201, empty.text);
        const fields = await api.call('GET', `${C}/${empty.json.uuid}/fields/`);
        assert.equal(fields.json.schema, kind.key);
        assert.deepEqual(
          fields.json.fields,
          kind.fields.map((f) => ({
            name: f.name,
            type: f.type,
            required: f.required,
            choices: (f.choices ?? []).map((c) => ({ value: c.value, text: c.text })),
            // A field holding a list says how many it holds (docs/api.md, "fields").
            ...(f.multiple ? { max_items: f.maxItems } : {}),
            // A coded field taking free text says so (docs/api.md, "Fields").
            ...(f.codingSystems?.includes('UNSTRUCTURED') ? { free_text: true } : {}),
          })),
        );
        const required = kind.fields.filter((f) => f.required).map((f) => `values.${f.name}`);
        const refused = await api.call('POST', `${C}/${empty.json.uuid}/commit/`);
        if (required.length > 0) {
          assert.equal(refused.status, 400);
          assert.deepEqual(refused.json.errors.map((e: { field: string }) => e.field).sort(), required.sort());
        } else {
          assert.equal(refused.status, 200, 'a kind with no required field commits empty');
        }
        const staged = await api.call('POST', `${C}/`, { body: { schemaKey: kind.key, noteKey } });
        const patched = await api.call('PATCH', `${C}/${staged.json.uuid}/`, { body: { values: complete[kind.key] } });
        assert.equal(patched.status, 200, patched.text);
        const created = await api.call('POST', `${C}/`, { body: { schemaKey: kind.key, noteKey, values: complete[kind.key] } });
        assert.equal(created.status, 201, created.text);
        assert.deepEqual(created.json.data, patched.json.data);
        const committed = await api.call('POST', `${C}/${created.json.uuid}/commit/`);
        assert.equal(committed.status, 200, committed.text);
        assert.deepEqual(committed.json.data, created.json.data);
      });
    }

    it('autocomplete values: the JSON-string form and the object form store the same option', async () => {
      const opt = option('Low back pain', 'Low back pain');
      const a = await api.call('POST', `${C}/`, { body: { schemaKey: 'diagnose', noteKey, values: { diagnose: opt } } });
      const b = await api.call('POST', `${C}/`, { body: { schemaKey: 'diagnose', noteKey, values: { diagnose: JSON.stringify(opt) } } });
      assert.deepEqual(a.json.data, b.json.data);
      assert.deepEqual(a.json.data.diagnose, {
        text: 'Low back pain',
        value: 'Low back pain',
        disabled: false,
        description: null,
        annotations: null,
        extra: opt.extra,
      });
    });

    const bad: Array<[string, Record<string, unknown>, string]> = [
      ['plan', { narrative: 5 }, 'values.narrative'],
      ['plan', { narative: 'typo' }, 'values.narative'],
      ['assess', { status: 'better' }, 'values.status'],
      ['assess', { narrative: 'x'.repeat(2049) }, 'values.narrative'],
      ['goal', { start_date: '2026-02-30' }, 'values.start_date'],
      ['goal', { due_date: '22/11/2026' }, 'values.due_date'],
      ['diagnose', { approximate_date_of_onset: '2026-13' }, 'values.approximate_date_of_onset'],
      ['prescribe', { refills: 100 }, 'values.refills'],
      ['prescribe', { refills: '3' }, 'values.refills'],
      ['prescribe', { days_supply: 1.5 }, 'values.days_supply'],
      ['prescribe', { quantity_to_dispense: '0' }, 'values.quantity_to_dispense'],
      ['prescribe', { quantity_to_dispense: 'ten' }, 'values.quantity_to_dispense'],
      ['prescribe', { indications: [option('a', 'A00'), option('b', 'B00'), option('c', 'C00')] }, 'values.indications'],
      ['prescribe', { note_to_pharmacist: 'x'.repeat(211) }, 'values.note_to_pharmacist'],
      ['labOrder', { fasting_required: 'yes' }, 'values.fasting_required'],
      ['diagnose', { diagnose: 'M54.50' }, 'values.diagnose'],
      ['diagnose', { diagnose: { text: 'x' } }, 'values.diagnose'],
      ['diagnose', { diagnose: option('x', 'M54.50', 'http://snomed.info/sct') }, 'values.diagnose'],
      ['medicationStatement', { medication: [option('a', '1')] }, 'values.medication'],
    ];
    for (const [schemaKey, values, field] of bad) {
      it(`rejects ${schemaKey} ${JSON.stringify(values).slice(0, 60)} naming ${field}`, async () => {
        const created = await api.call('POST', `${C}/`, { body: { schemaKey, noteKey, values } });
        assert.equal(created.status, 400, created.text);
        assert.equal(created.json.code, 'validation_failed');
        assert.ok(
          created.json.errors.some((e: { field: string }) => e.field.startsWith(field)),
          created.text,
        );
        assert.match(created.json.detail, new RegExp(field.replace('.', '\\.')));
        const staged = await api.call('POST', `${C}/`, { body: { schemaKey, noteKey } });
        const patched = await api.call('PATCH', `${C}/${staged.json.uuid}/`, { body: { values } });
        assert.equal(patched.status, 400);
        assert.ok(patched.json.errors.some((e: { field: string }) => e.field.startsWith(field)));
        assert.deepEqual((await api.call('GET', `${C}/${staged.json.uuid}`)).json.data, {});
      });
    }

    it('lists the allowed fields when one is unknown', async () => {
      const r = await api.call('POST', `${C}/`, { body: { schemaKey: 'goal', noteKey, values: { goal: 'x' } } });
      assert.match(r.json.detail, /goal_statement/);
    });
  });
}
