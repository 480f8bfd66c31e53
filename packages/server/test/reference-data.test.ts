// Reference data of the instance, on both engines: the admin API (API key only) creates and lists
// each catalogue — closed bodies, 400 naming the field, 409 on duplicates, pagination — and every
// AutocompleteField backed by reference data offers real options (indexed search, best first),
// filters by the field it depends on, round-trips a picked option through PATCH and commit, and
// answers 400 naming the field for a value that is not an option. The demo seed is idempotent.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ENGINES, startInstance, TEST_API_KEY, type Instance } from './support/harness.ts';
import { seedDemo } from '../src/demo/seed.ts';
import { loadDispenseUnits, readDispenseUnits } from '../src/reference/starter.ts';

const A = '/core/api/v1/admin';
const C = '/core/api/v1/commands';

type Option = { text: string; value: string };
type Doc = {
  text: string;
  value: string;
  description: string | null;
  annotations: string[] | null;
  extra: { coding: Array<{ code: string; system: string; display: string }> } & Record<string, any>;
};
const docOf = (o: Option) => JSON.parse(o.value) as Doc;
const texts = (options: Option[]) => options.map((o) => o.text);

for (const engine of ENGINES) {
  describe(`reference data (${engine})`, () => {
    let api: Instance;
    const admin = (method: string, path: string, body?: unknown) => api.call(method, `${A}${path}`, { body, authorization: TEST_API_KEY });
    const created = async (path: string, body: unknown) => {
      const r = await admin('POST', path, body);
      assert.equal(r.status, 201, `${path}: ${r.text}`);
      return r.json;
    };
    const search = async (uuid: string, field: string, term: string) => {
      const r = await api.call('GET', `${C}/${uuid}/fields/${field}/autocomplete/?search_term=${encodeURIComponent(term)}`);
      assert.equal(r.status, 200, r.text);
      return r.json as Option[];
    };
    const patch = (uuid: string, values: Record<string, unknown>) => api.call('PATCH', `${C}/${uuid}/`, { body: { values } });
    /** PATCH the option, commit, read back: the stored value is the option offered. */
    const roundTrip = async (schemaKey: string, values: Record<string, unknown>, check: Record<string, unknown>) => {
      const { uuid } = await api.command(schemaKey);
      const patched = await patch(uuid, values);
      assert.equal(patched.status, 200, patched.text);
      const committed = await api.call('POST', `${C}/${uuid}/commit/`);
      assert.ok(committed.status === 200 || committed.status === 400, committed.text); // required fields of other kinds may be missing
      const read = await api.call('GET', `${C}/${uuid}`);
      for (const [field, expected] of Object.entries(check)) assert.deepEqual(read.json.data[field], expected, field);
      return uuid;
    };
    const refusal = async (uuid: string, values: Record<string, unknown>, field: string, message: RegExp) => {
      const r = await patch(uuid, values);
      assert.equal(r.status, 400, r.text);
      const error = (r.json.errors as Array<{ field: string; message: string }>).find((e) => e.field === field);
      assert.ok(error, `${field} in ${r.text}`);
      assert.match(error.message, message);
    };

    let alex: any, riley: any, jordan: any;
    let demoLab: any, otherLab: any;
    let a1c: any;

    before(async () => {
      api = await startInstance(engine);
      alex = await created('/staff/', { first_name: 'Alex', last_name: 'Demo', credentials: 'MD', npi: '1234567893', role: 'provider' });
      jordan = await created('/staff/', { first_name: 'Jordan', last_name: 'Sample', credentials: 'NP', role: 'provider' });
      riley = await created('/staff/', { first_name: 'Riley', last_name: 'Test', credentials: 'RN', role: 'nurse' });
      await created('/staff/', { first_name: 'Alexis', last_name: 'Gone', credentials: 'DO', role: 'provider', active: false });
      demoLab = await created('/lab-partners/', { name: 'Demo Reference Lab' });
      otherLab = await created('/lab-partners/', { name: 'Springfield Sample Clinical Laboratory' });
      a1c = await created(`/lab-partners/${demoLab.id}/tests/`, { order_code: 'DRL-A1C', name: 'Hemoglobin A1c', loinc_code: '4548-4' });
      await created(`/lab-partners/${demoLab.id}/tests/`, { order_code: 'DRL-CHOL', name: 'Cholesterol, total', loinc_code: '2093-3' });
      await created(`/lab-partners/${demoLab.id}/tests/`, { order_code: 'DRL-HDL', name: 'HDL cholesterol', loinc_code: '2085-9' });
      await created(`/lab-partners/${demoLab.id}/tests/`, { order_code: 'DRL-CUSTOM', name: 'House panel' });
      await created(`/lab-partners/${otherLab.id}/tests/`, { order_code: 'SCL-1020', name: 'Total cholesterol', loinc_code: '2093-3' });
      await created('/pharmacies/', {
        ncpdp_id: '9900001',
        name: 'Demo Community Pharmacy',
        address: '100 Main St',
        city: 'Springfield',
        state: 'IL',
        zip: '62701',
        phone: '217-555-0110',
      });
      await created('/pharmacies/', { ncpdp_id: '9900002', name: 'Sample Drug Mart', address: '215 Elm St', city: 'Springfield', state: 'IL', zip: '62701' });
      await created('/reason-for-visit-codings/', { code: 'RFV-003', display: 'Cough' });
      await created('/reason-for-visit-codings/', { code: 'RFV-010', display: 'Chronic cough follow-up' });
      await created('/reason-for-visit-codings/', { system: 'ICD-10', code: 'R05.9', display: 'Cough, unspecified' });
      await created('/questionnaires/', {
        code: 'PHQ-2',
        name: 'Patient Health Questionnaire (PHQ-2)',
        questions: [
          {
            code: 'PHQ2-1',
            label: 'Little interest or pleasure in doing things',
            kind: 'SING',
            options: [
              { code: '0', text: 'Not at all' },
              { code: '1', text: 'Several days' },
            ],
          },
          {
            code: 'PHQ2-2',
            label: 'Feeling down, depressed, or hopeless',
            kind: 'SING',
            options: [
              { code: '0', text: 'Not at all' },
              { code: '1', text: 'Several days' },
            ],
          },
        ],
      });
      await created('/questionnaires/', {
        code: 'INTAKE',
        name: 'Intake',
        questions: [
          { code: 'CIG', label: 'Cigarettes per day', kind: 'INT' },
          { code: 'ALLERGIES', label: 'Allergies', kind: 'TXT' },
        ],
      });
      await created('/educational-materials/', {
        title: 'Understanding High Blood Pressure',
        abstract: 'What the numbers mean.',
        languages: ['en-us', 'es-us', 'zh-cn'],
      });
      await created('/educational-materials/', { title: 'Asthma basics', languages: ['en-us', 'fr-ca'] });
      // The starter file (loaded on start) may already hold these: either answer will do.
      for (const [code, description] of [
        ['C48542', 'Tablet'],
        ['C48480', 'Capsule'],
      ]) {
        const r = await admin('POST', '/dispense-units/', { ncpdp_quantity_qualifier_code: code, description });
        assert.ok(r.status === 201 || r.status === 409, r.text);
      }
    });
    after(async () => api?.stop());

    it('the admin API takes an API key: 401 without credentials, 403 with a bearer token', async () => {
      for (const path of ['/staff/', '/lab-partners/', '/pharmacies/', '/questionnaires/', '/dispense-units/']) {
        const none = await api.call('GET', `${A}${path}`, { token: null });
        assert.equal(none.status, 401, path);
        const bearer = await api.call('GET', `${A}${path}`);
        assert.equal(bearer.status, 403, path);
        assert.equal(bearer.json.code, 'forbidden');
        assert.equal((await admin('GET', path)).status, 200, path);
      }
      const post = await api.call('POST', `${A}/pharmacies/`, { body: { ncpdp_id: '9900099', name: 'X', address: 'Y', city: 'Z', state: 'IL', zip: '62701' } });
      assert.equal(post.status, 403);
      assert.equal((await api.call('POST', `${A}/staff/`, { token: null, body: { first_name: 'A', last_name: 'B', role: 'provider' } })).status, 401);
    });

    it('GET /core/api/v1/staff/{key}: a staff member by name for a clinical token; 401, 403 with an API key, 404 unknown or malformed', async () => {
      const read = await api.call('GET', `/core/api/v1/staff/${alex.key}`);
      assert.equal(read.status, 200, read.text);
      assert.deepEqual(read.json, { key: alex.key, name: 'Alex Demo', credentials: 'MD', role: 'provider', active: true });
      // The staff member the test token acts for (made for credentials, no first or last name): its name.
      const me = (await api.call('POST', '/core/api/v1/patients/', { body: { firstName: 'Who', lastName: 'Wrote' } })).json;
      const note = (await api.call('POST', '/core/api/v1/notes/', { body: { patientKey: me.key, noteType: 'encounter' } })).json;
      const command = (await api.call('POST', '/core/api/v1/commands/', { body: { schemaKey: 'plan', noteKey: note.uuid, values: {} } })).json;
      const author = await api.call('GET', `/core/api/v1/staff/${command.originated_by}`);
      assert.equal(author.status, 200, author.text);
      assert.ok(author.json.name.length > 0, 'named');
      assert.equal((await api.call('GET', `/core/api/v1/staff/${alex.key}`, { token: null })).status, 401);
      const key = await api.call('GET', `/core/api/v1/staff/${alex.key}`, { authorization: TEST_API_KEY });
      assert.equal(key.status, 403);
      assert.equal(key.json.code, 'forbidden');
      for (const unknown of ['0'.repeat(32), 'not-a-key', alex.key.toUpperCase()]) {
        const r = await api.call('GET', `/core/api/v1/staff/${unknown}`);
        assert.equal(r.status, 404, unknown);
        assert.equal(r.json.code, 'staff_not_found');
      }
    });

    it('bad input is a 400 naming the field; unknown fields are refused', async () => {
      const cases: Array<[string, unknown, string]> = [
        ['/staff/', { first_name: 'A', last_name: 'B' }, 'role'],
        ['/staff/', { first_name: 'A', last_name: 'B', role: 'surgeon' }, 'role'],
        ['/staff/', { first_name: 'A', last_name: 'B', role: 'provider', npi: '12345' }, 'npi'],
        ['/staff/', { first_name: '   ', last_name: 'B', role: 'provider' }, 'first_name'],
        ['/staff/', { first_name: 'x'.repeat(101), last_name: 'B', role: 'provider' }, 'first_name'],
        ['/staff/', { first_name: 'A', last_name: 'B', role: 'provider', is_admin: true }, 'is_admin'],
        ['/pharmacies/', { ncpdp_id: '99', name: 'X', address: 'Y', city: 'Z', state: 'IL', zip: '62701' }, 'ncpdp_id'],
        ['/pharmacies/', { ncpdp_id: '9900077', name: 'X', address: 'Y', city: 'Z', state: 'Illinois', zip: '62701' }, 'state'],
        ['/reason-for-visit-codings/', { system: 'http://example.org', code: 'X', display: 'Y' }, 'system'],
        ['/questionnaires/', { code: 'Q', name: 'Q', questions: [] }, 'questions'],
        ['/questionnaires/', { code: 'Q', name: 'Q', questions: [{ code: 'a', label: 'A', kind: 'SING' }] }, 'questions[0].options'],
        [
          '/questionnaires/',
          {
            code: 'Q',
            name: 'Q',
            questions: [
              {
                code: 'a',
                label: 'A',
                kind: 'SING',
                options: [
                  { code: 'y', text: 'Y', score: 1 },
                  { code: 'n', text: 'N' },
                ],
              },
            ],
          },
          'questions[0].options',
        ],
        [
          '/questionnaires/',
          {
            code: 'Q',
            name: 'Q',
            questions: [
              {
                code: 'a',
                label: 'A',
                kind: 'MULT',
                options: [
                  { code: 'y', text: 'Y', score: 1 },
                  { code: 'n', text: 'N', score: 0 },
                ],
              },
            ],
          },
          'questions[0].options',
        ],
        [
          '/questionnaires/',
          {
            code: 'Q',
            name: 'Q',
            questions: [
              {
                code: 'a',
                label: 'A',
                kind: 'SING',
                options: [
                  { code: 'y', text: 'Y', score: -1 },
                  { code: 'n', text: 'N', score: 0 },
                ],
              },
            ],
          },
          'questions.0.options.0.score',
        ],
        [
          '/questionnaires/',
          {
            code: 'Q',
            name: 'Q',
            questions: [
              { code: 'a', label: 'A', kind: 'TXT' },
              { code: 'a', label: 'B', kind: 'TXT' },
            ],
          },
          'questions[1].code',
        ],
        ['/educational-materials/', { title: 'T', languages: ['xx-yy'] }, 'languages.0'],
        ['/educational-materials/', { title: 'T', languages: ['en-us', 'en-us'] }, 'languages[1]'],
        ['/dispense-units/', { ncpdp_quantity_qualifier_code: 'tablet', description: 'Tablet' }, 'ncpdp_quantity_qualifier_code'],
        [`/lab-partners/${demoLab.id}/tests/`, { order_code: 'X', name: 'Y', loinc_code: 'not-loinc' }, 'loinc_code'],
      ];
      for (const [path, body, field] of cases) {
        const r = await admin('POST', path, body);
        assert.equal(r.status, 400, `${path} ${JSON.stringify(body)}: ${r.text}`);
        assert.equal(r.json.code, 'validation_failed');
        assert.ok(
          (r.json.errors as Array<{ field: string }>).some((e) => e.field.startsWith(field)),
          `${field} in ${r.text}`,
        );
      }
    });

    it('duplicates are a 409; the same order code at another partner is fine', async () => {
      const cases: Array<[string, unknown]> = [
        ['/staff/', { first_name: 'Other', last_name: 'Person', role: 'nurse', npi: '1234567893' }],
        ['/lab-partners/', { name: 'Demo Reference Lab' }],
        [`/lab-partners/${demoLab.id}/tests/`, { order_code: 'DRL-A1C', name: 'Another A1c' }],
        ['/pharmacies/', { ncpdp_id: '9900001', name: 'Copy', address: '1 A St', city: 'B', state: 'IL', zip: '62701' }],
        ['/reason-for-visit-codings/', { code: 'RFV-003', display: 'Cough again' }],
        ['/questionnaires/', { code: 'PHQ-2', name: 'Copy', questions: [{ code: 'a', label: 'A', kind: 'TXT' }] }],
        ['/educational-materials/', { title: 'Asthma basics', languages: ['en-us'] }],
        ['/dispense-units/', { ncpdp_quantity_qualifier_code: 'c48542', description: 'Tablet again' }],
      ];
      for (const [path, body] of cases) {
        const r = await admin('POST', path, body);
        assert.equal(r.status, 409, `${path}: ${r.text}`);
        assert.equal(r.json.code, 'reference_exists');
      }
      const other = await admin('POST', `/lab-partners/${otherLab.id}/tests/`, { order_code: 'DRL-A1C', name: 'A1c (their code clash)' });
      assert.equal(other.status, 201, other.text);
      const missing = await admin('POST', '/lab-partners/00000000-0000-4000-8000-000000000000/tests/', { order_code: 'X', name: 'Y' });
      assert.equal(missing.status, 404);
      assert.equal(missing.json.code, 'lab_partner_not_found');
      assert.equal((await admin('GET', '/lab-partners/00000000-0000-4000-8000-000000000000/tests/')).status, 404);
    });

    it('lists are paginated like the plugin list', async () => {
      const first = await admin('GET', '/reason-for-visit-codings/?limit=2');
      assert.equal(first.status, 200, first.text);
      assert.equal(first.json.count, 3);
      assert.equal(first.json.results.length, 2);
      assert.equal(first.json.previous, null);
      assert.match(first.json.next, /\/core\/api\/v1\/admin\/reason-for-visit-codings\/\?limit=2&offset=2$/);
      const second = await api.call('GET', new URL(first.json.next).pathname + new URL(first.json.next).search, { authorization: TEST_API_KEY });
      assert.equal(second.json.results.length, 1);
      assert.equal(second.json.next, null);
      assert.notEqual(second.json.previous, null);
      assert.deepEqual(
        [...first.json.results, ...second.json.results].map((r: { code: string }) => r.code),
        ['RFV-003', 'RFV-010', 'R05.9'],
      );
      assert.equal((await admin('GET', '/staff/?limit=0')).status, 400);
      const tests = await admin('GET', `/lab-partners/${demoLab.id}/tests/`);
      assert.deepEqual(
        tests.json.results.map((t: { order_code: string }) => t.order_code),
        ['DRL-A1C', 'DRL-CHOL', 'DRL-HDL', 'DRL-CUSTOM'],
      );
      const questionnaires = await admin('GET', '/questionnaires/');
      const phq = questionnaires.json.results.find((q: { code: string }) => q.code === 'PHQ-2');
      assert.equal(phq.questions.length, 2);
      assert.equal(phq.questions[0].options.length, 2);
      assert.match(phq.questions[0].options[0].id, /^[0-9a-f-]{36}$/);
    });

    it('staff: providers only for prescriber, ordering and supervising provider; credentials in the text', async () => {
      const { uuid } = await api.command('prescribe');
      const found = await search(uuid, 'prescriber', 'alex');
      assert.deepEqual(texts(found), ['Alex Demo, MD'], 'the inactive Alexis Gone is not offered');
      assert.equal(docOf(found[0]!).value, alex.key);
      assert.deepEqual(texts(await search(uuid, 'prescriber', 'riley')), [], 'a nurse is not a prescriber');
      const supervisor = await search(uuid, 'supervising_provider', 'sample np');
      assert.deepEqual(texts(supervisor), ['Jordan Sample, NP']);
      assert.equal(docOf(supervisor[0]!).value, jordan.key);
      assert.deepEqual(texts(await search(uuid, 'prescriber', '1234567893')), ['Alex Demo, MD'], 'by NPI');
      // An empty term lists the first page of active providers (it answered [] before the dropdown fix).
      assert.deepEqual(texts(await search(uuid, 'prescriber', '')), ['Alex Demo, MD', 'Jordan Sample, NP']);
      const lab = await api.command('labOrder');
      assert.deepEqual(texts(await search(lab.uuid, 'ordering_provider', 'demo')), ['Alex Demo, MD']);
    });

    it('lab partners, and tests filtered by the chosen partner, with LOINC and order code codings', async () => {
      const { uuid } = await api.command('labOrder');
      assert.deepEqual(await search(uuid, 'tests', 'chol'), [], 'no partner chosen: no tests');
      const partners = await search(uuid, 'lab_partner', 'demo');
      assert.deepEqual(texts(partners), ['Demo Reference Lab']);
      assert.equal((await patch(uuid, { lab_partner: partners[0]!.value })).status, 200);
      const chol = await search(uuid, 'tests', 'chol');
      assert.deepEqual(texts(chol), ['Cholesterol, total', 'HDL cholesterol'], 'display start first; never the other lab’s "Total cholesterol"');
      assert.deepEqual(docOf(chol[0]!).extra.coding, [
        { code: '2093-3', display: 'Cholesterol, total', system: 'http://loinc.org' },
        { code: 'DRL-CHOL', display: 'Cholesterol, total', system: 'charta:lab-order-code' },
      ]);
      assert.deepEqual(texts(await search(uuid, 'tests', 'DRL-A1C')), ['Hemoglobin A1c'], 'by order code');
      assert.deepEqual(texts(await search(uuid, 'tests', '4548-4')), ['Hemoglobin A1c'], 'by LOINC code');
      const custom = await search(uuid, 'tests', 'house');
      assert.deepEqual(
        docOf(custom[0]!).extra.coding,
        [{ code: 'DRL-CUSTOM', display: 'House panel', system: 'charta:lab-order-code' }],
        'no LOINC: the order code only',
      );
      const other = await api.command('labOrder');
      await patch(other.uuid, { lab_partner: { text: 'x', value: otherLab.id } });
      assert.deepEqual(texts(await search(other.uuid, 'tests', 'chol')), ['Total cholesterol']);
    });

    it('a test of another lab partner, or with no partner chosen, is a 400 naming the item', async () => {
      const { uuid } = await api.command('labOrder');
      const test = { text: 'Hemoglobin A1c', value: a1c.id };
      await refusal(uuid, { tests: [test] }, 'values.tests[0]', /a test of another lab partner/);
      await refusal(uuid, { lab_partner: { text: 'Springfield', value: otherLab.id }, tests: [test] }, 'values.tests[0]', /a test of another lab partner/);
      await refusal(
        uuid,
        { lab_partner: { text: 'Demo', value: demoLab.id }, tests: [{ text: 'x', value: 'NOPE' }] },
        'values.tests[0]',
        /not a test of Demo Reference Lab/,
      );
    });

    it('tests picked before are checked again when the lab partner changes', async () => {
      const { uuid } = await api.command('labOrder');
      assert.equal((await patch(uuid, { lab_partner: { text: 'Demo', value: demoLab.id }, tests: [{ text: 'Hemoglobin A1c', value: a1c.id }] })).status, 200);
      await refusal(uuid, { lab_partner: { text: 'Springfield', value: otherLab.id } }, 'values.tests[0]', /a test of another lab partner.*pick it again/);
      const both = await patch(uuid, { lab_partner: { text: 'Springfield', value: otherLab.id }, tests: null });
      assert.equal(both.status, 200, both.text);
      assert.equal(both.json.data.tests, undefined);
    });

    it('pharmacies: value is the NCPDP id, text is name and address', async () => {
      const { uuid } = await api.command('prescribe');
      const found = await search(uuid, 'pharmacy', 'drug');
      assert.deepEqual(texts(found), ['Sample Drug Mart, 215 Elm St, Springfield, IL 62701']);
      assert.equal(docOf(found[0]!).value, '9900002');
      assert.deepEqual(texts(await search(uuid, 'pharmacy', '9900001')), ['Demo Community Pharmacy, 100 Main St, Springfield, IL 62701']);
      assert.deepEqual(texts(await search(uuid, 'pharmacy', 'elm springf')), ['Sample Drug Mart, 215 Elm St, Springfield, IL 62701'], 'by address words');
    });

    it('reason-for-visit codings rank display starts first', async () => {
      const { uuid } = await api.command('reasonForVisit');
      const found = await search(uuid, 'coding', 'cough');
      assert.equal(found[0]!.text, 'Cough');
      assert.deepEqual(new Set(texts(found)), new Set(['Cough', 'Cough, unspecified', 'Chronic cough follow-up']));
      assert.deepEqual(texts(found).at(-1), 'Chronic cough follow-up');
      assert.deepEqual(docOf(found[0]!).extra.coding, [{ code: 'RFV-003', display: 'Cough', system: 'INTERNAL' }]);
    });

    it('questionnaires: an empty term lists them; the option carries the definition', async () => {
      const { uuid } = await api.command('questionnaire');
      assert.deepEqual(texts(await search(uuid, 'questionnaire', '')), ['Intake', 'Patient Health Questionnaire (PHQ-2)']);
      const found = await search(uuid, 'questionnaire', 'phq');
      assert.deepEqual(texts(found), ['Patient Health Questionnaire (PHQ-2)']);
      const extra = docOf(found[0]!).extra;
      assert.equal(extra.code, 'PHQ-2');
      assert.equal(extra.questions.length, 2);
      assert.deepEqual(
        extra.questions[0].options.map((o: { text: string }) => o.text),
        ['Not at all', 'Several days'],
      );
      assert.equal(extra.pk, docOf(found[0]!).value);
    });

    it('educational materials, and languages that follow the chosen title', async () => {
      const { uuid } = await api.command('educationalMaterial');
      assert.deepEqual(await search(uuid, 'language', 'en'), [], 'no title chosen: no languages');
      const found = await search(uuid, 'title', 'blood pressure');
      assert.deepEqual(texts(found), ['Understanding High Blood Pressure']);
      assert.equal((await patch(uuid, { title: found[0]!.value })).status, 200);
      assert.deepEqual(texts(await search(uuid, 'language', 'span')), ['Spanish (United States)']);
      assert.deepEqual(texts(await search(uuid, 'language', 'french')), [], 'not a language of this material');
      assert.deepEqual(new Set(texts(await search(uuid, 'language', 'united states'))), new Set(['English (United States)', 'Spanish (United States)']));
      await refusal(uuid, { language: { text: 'French', value: 'fr-ca' } }, 'values.language', /not a language of "Understanding High Blood Pressure"/);
      const asthma = await search(uuid, 'title', 'asthma');
      assert.equal((await patch(uuid, { title: asthma[0]!.value })).status, 200);
      assert.deepEqual(texts(await search(uuid, 'language', 'french')), ['French (Canada)']);
    });

    it('dispense units: value is the NCPDP code, extra carries the ClinicalQuantity', async () => {
      const { uuid } = await api.command('prescribe');
      const found = await search(uuid, 'type_to_dispense', 'tablet');
      assert.equal(found[0]!.text, 'Tablet');
      assert.deepEqual(docOf(found[0]!).extra.clinical_quantity, { ncpdp_quantity_qualifier_code: 'C48542', description: 'Tablet' });
      assert.deepEqual(texts(await search(uuid, 'type_to_dispense', 'c48480')), ['Capsule'], 'by code');
    });

    it('an empty search_term lists the first page of each reference list, in order, limit respected; terminology fields stay empty', async () => {
      const page = async (uuid: string, field: string, limit?: number, term = '') => {
        const r = await api.call(
          'GET',
          `${C}/${uuid}/fields/${field}/autocomplete/?search_term=${encodeURIComponent(term)}${limit === undefined ? '' : `&limit=${limit}`}`,
        );
        assert.equal(r.status, 200, r.text);
        return texts(r.json as Option[]);
      };
      const pharmacies = ['Demo Community Pharmacy, 100 Main St, Springfield, IL 62701', 'Sample Drug Mart, 215 Elm St, Springfield, IL 62701'];
      const prescribe = await api.command('prescribe');
      for (const field of ['prescriber', 'supervising_provider']) {
        assert.deepEqual(await page(prescribe.uuid, field), ['Alex Demo, MD', 'Jordan Sample, NP'], `${field}: active providers only, by name`);
        assert.deepEqual(await page(prescribe.uuid, field, 1), ['Alex Demo, MD'], `${field}: limit`);
      }
      assert.deepEqual(await page(prescribe.uuid, 'pharmacy'), pharmacies);
      assert.deepEqual(await page(prescribe.uuid, 'pharmacy', 1), pharmacies.slice(0, 1));
      assert.deepEqual(await page(prescribe.uuid, 'pharmacy', undefined, '  '), pharmacies, 'blanks are an empty term');
      const units = await page(prescribe.uuid, 'type_to_dispense', 100);
      assert.ok(units.includes('Tablet') && units.includes('Capsule'), units.join());
      const sorted = [...units].sort((a, b) => a.localeCompare(b, 'en', { sensitivity: 'base' }));
      assert.deepEqual(units, sorted, 'dispense units by description');
      assert.deepEqual(await page(prescribe.uuid, 'type_to_dispense', 1), units.slice(0, 1));
      // Terminology fields keep answering [] for an empty term.
      assert.deepEqual(await page(prescribe.uuid, 'prescribe'), []);
      assert.deepEqual(await page(prescribe.uuid, 'indications'), []);

      const lab = await api.command('labOrder');
      assert.deepEqual(await page(lab.uuid, 'lab_partner'), ['Demo Reference Lab', 'Springfield Sample Clinical Laboratory']);
      assert.deepEqual(await page(lab.uuid, 'lab_partner', 1), ['Demo Reference Lab']);
      assert.deepEqual(await page(lab.uuid, 'ordering_provider'), ['Alex Demo, MD', 'Jordan Sample, NP']);
      assert.deepEqual(await page(lab.uuid, 'tests'), [], 'no partner chosen: no tests');
      assert.equal((await patch(lab.uuid, { lab_partner: { text: 'Demo', value: demoLab.id } })).status, 200);
      assert.deepEqual(await page(lab.uuid, 'tests'), ['Cholesterol, total', 'HDL cholesterol', 'Hemoglobin A1c', 'House panel'], 'the partner’s tests only');
      assert.deepEqual(await page(lab.uuid, 'tests', 2), ['Cholesterol, total', 'HDL cholesterol']);
      assert.deepEqual(await page(lab.uuid, 'diagnosis'), []);

      const rfv = await api.command('reasonForVisit');
      assert.deepEqual(await page(rfv.uuid, 'coding'), ['Chronic cough follow-up', 'Cough', 'Cough, unspecified']);
      assert.deepEqual(await page(rfv.uuid, 'coding', 2), ['Chronic cough follow-up', 'Cough']);

      const q = await api.command('questionnaire');
      assert.deepEqual(await page(q.uuid, 'questionnaire', 1), ['Intake']);

      const material = await api.command('educationalMaterial');
      assert.deepEqual(await page(material.uuid, 'title'), ['Asthma basics', 'Understanding High Blood Pressure']);
      assert.deepEqual(await page(material.uuid, 'title', 1), ['Asthma basics']);
      assert.deepEqual(await page(material.uuid, 'language'), [], 'no title chosen: no languages');
      const bp = await search(material.uuid, 'title', 'blood pressure');
      assert.equal((await patch(material.uuid, { title: bp[0]!.value })).status, 200);
      assert.deepEqual(await page(material.uuid, 'language'), ['English (United States)', 'Spanish (United States)', 'Chinese (China)']);
      assert.deepEqual(await page(material.uuid, 'language', 2), ['English (United States)', 'Spanish (United States)']);

      const diagnose = await api.command('diagnose');
      assert.deepEqual(await page(diagnose.uuid, 'diagnose'), []);
    });

    it('every field round-trips: PATCH the offered option, commit, read back the catalogue’s option', async () => {
      const pick = async (schemaKey: string, field: string, term: string, data: Record<string, unknown> = {}) => {
        const { uuid } = await api.command(schemaKey, data);
        const [option] = await search(uuid, field, term);
        assert.ok(option, `${schemaKey}.${field} "${term}"`);
        return option;
      };
      const provider = await pick('prescribe', 'prescriber', 'alex');
      const supervisor = await pick('prescribe', 'supervising_provider', 'jordan');
      const pharmacy = await pick('prescribe', 'pharmacy', 'demo');
      const unit = await pick('prescribe', 'type_to_dispense', 'capsule');
      const rxUuid = await roundTrip(
        'prescribe',
        {
          prescriber: provider.value,
          supervising_provider: supervisor.value,
          pharmacy: pharmacy.value,
          type_to_dispense: unit.value,
          sig: 'one daily',
          quantity_to_dispense: '30',
          refills: 0,
          substitutions: 'allowed',
          prescribe: { text: 'Free', value: 'Free', extra: { coding: [{ code: 'Free', system: 'UNSTRUCTURED' }] } },
        },
        { prescriber: docOf(provider), supervising_provider: docOf(supervisor), pharmacy: docOf(pharmacy), type_to_dispense: docOf(unit) },
      );
      assert.equal((await api.call('GET', `${C}/${rxUuid}`)).json.state, 'committed');

      const partner = await pick('labOrder', 'lab_partner', 'demo');
      const { uuid: labUuid } = await api.command('labOrder', { lab_partner: partner.value });
      const [a1cOption] = await search(labUuid, 'tests', 'a1c');
      const [hdl] = await search(labUuid, 'tests', 'hdl');
      const orderer = await pick('labOrder', 'ordering_provider', 'alex');
      const patched = await patch(labUuid, { tests: [a1cOption!.value, JSON.parse(hdl!.value)], ordering_provider: orderer.value });
      assert.equal(patched.status, 200, patched.text);
      assert.equal((await api.call('POST', `${C}/${labUuid}/commit/`)).status, 200);
      const lab = (await api.call('GET', `${C}/${labUuid}`)).json.data;
      assert.deepEqual(lab.lab_partner, docOf(partner));
      assert.deepEqual(lab.tests, [docOf(a1cOption!), docOf(hdl!)]);
      assert.deepEqual(lab.ordering_provider, docOf(orderer));

      const rfv = await pick('reasonForVisit', 'coding', 'cough');
      await roundTrip('reasonForVisit', { coding: rfv.value }, { coding: docOf(rfv) });
      const questionnaire = await pick('questionnaire', 'questionnaire', '');
      await roundTrip('questionnaire', { questionnaire: questionnaire.value }, { questionnaire: docOf(questionnaire) });
      const title = await pick('educationalMaterial', 'title', 'asthma');
      const language = await pick('educationalMaterial', 'language', 'english', { title: title.value });
      await roundTrip('educationalMaterial', { title: title.value, language: language.value }, { title: docOf(title), language: docOf(language) });
    });

    it('the stored option is the catalogue’s, whatever text the client sent', async () => {
      const { uuid } = await api.command('prescribe');
      const r = await patch(uuid, { prescriber: { text: 'Dr Evil', value: alex.key }, pharmacy: { text: 'Nowhere', value: 9900001 } });
      assert.equal(r.status, 200, r.text);
      assert.equal(r.json.data.prescriber.text, 'Alex Demo, MD');
      assert.equal(r.json.data.pharmacy.text, 'Demo Community Pharmacy, 100 Main St, Springfield, IL 62701');
    });

    it('a value that is not an option is a 400 naming the field; nothing is written', async () => {
      const { uuid } = await api.command('prescribe');
      const before = await api.call('GET', `${C}/${uuid}`);
      const bogus = { text: 'x', value: 'bogus' };
      await refusal(uuid, { prescriber: bogus }, 'values.prescriber', /not an option of prescriber: "bogus" is not a staff member/);
      await refusal(uuid, { prescriber: { text: 'Riley', value: riley.key } }, 'values.prescriber', /is not a provider/);
      await refusal(uuid, { supervising_provider: bogus }, 'values.supervising_provider', /not an option of supervising_provider/);
      await refusal(uuid, { pharmacy: { text: 'x', value: '9999999' } }, 'values.pharmacy', /not an option of pharmacy/);
      await refusal(uuid, { type_to_dispense: { text: 'x', value: 'C99999' } }, 'values.type_to_dispense', /not an option of type_to_dispense/);
      const lab = await api.command('labOrder');
      await refusal(lab.uuid, { lab_partner: bogus }, 'values.lab_partner', /not an option of lab_partner/);
      await refusal(lab.uuid, { ordering_provider: bogus }, 'values.ordering_provider', /not an option of ordering_provider/);
      await refusal((await api.command('reasonForVisit')).uuid, { coding: bogus }, 'values.coding', /not an option of coding/);
      await refusal((await api.command('questionnaire')).uuid, { questionnaire: bogus }, 'values.questionnaire', /not an option of questionnaire/);
      const material = await api.command('educationalMaterial');
      await refusal(material.uuid, { title: bogus }, 'values.title', /not an option of title/);
      await refusal(material.uuid, { language: { text: 'English', value: 'en-us' } }, 'values.language', /pick title first/);
      const created = await api.call('POST', `${C}/`, { body: { schemaKey: 'prescribe', noteKey: (await api.note()).noteKey, values: { pharmacy: bogus } } });
      assert.equal(created.status, 400);
      assert.equal(created.json.errors[0].field, 'values.pharmacy');
      assert.deepEqual((await api.call('GET', `${C}/${uuid}`)).json, before.json);
    });

    it('seed-demo loads the starter reference data once; a second seed adds nothing', async () => {
      const first = await seedDemo(api.storage);
      // Entries created above (same natural keys) are skipped: Alex, Jordan and Riley, both partners, PHQ-2, INTAKE…
      assert.deepEqual([first.reference!.staff, first.reference!.lab_partners, first.reference!.questionnaires], [3, 0, 2], JSON.stringify(first.reference));
      assert.ok(
        first.reference!.lab_tests > 20 && first.reference!.pharmacies > 0 && first.reference!.educational_materials > 0,
        JSON.stringify(first.reference),
      );
      const second = await seedDemo(api.storage);
      assert.deepEqual(Object.values(second.reference!), Array(7).fill(0));
      const { uuid } = await api.command('questionnaire');
      assert.deepEqual(
        new Set(texts(await search(uuid, 'questionnaire', 'phq'))),
        new Set(['Patient Health Questionnaire (PHQ-2)', 'Patient Health Questionnaire (PHQ-9)']),
      );
      const rx = await api.command('prescribe');
      assert.deepEqual(texts(await search(rx.uuid, 'prescriber', 'casey')), ['Casey Example, PA']);
      const staff = await admin('GET', '/staff/?limit=1000');
      assert.equal(staff.json.results.filter((s: { first_name: string }) => s.first_name === 'Casey').length, 1);
    });

    it('starter dispense units load only into an empty catalogue; the shipped file may hold no rows', async () => {
      assert.ok(Array.isArray(readDispenseUnits()));
      assert.equal(await loadDispenseUnits(api.storage, [{ ncpdp_quantity_qualifier_code: 'C48155', description: 'Gram' }]), 0, 'the catalogue is not empty');
      assert.equal(await loadDispenseUnits(api.storage, []), 0);
    });

    it('two processes loading the starter dispense units at the same moment: one loads them, the other finds them and starts all the same', async () => {
      const units = readDispenseUnits().slice(0, 50);
      assert.ok(units.length > 0, 'the shipped file has rows');
      const before = await api.storage.db.selectFrom('dispense_units').selectAll().execute();
      await api.storage.db.deleteFrom('dispense_units').execute();
      try {
        // Side by side (several connections on PostgreSQL): each checks, then inserts; a later one meets the
        // earlier's rows. The narrow window (a check that sees the rows committed a moment before) is not
        // forced here; two processes starting at once on one fresh database met it (scheduled-tasks.int).
        const loaded = await Promise.all([loadDispenseUnits(api.storage, units), loadDispenseUnits(api.storage, units), loadDispenseUnits(api.storage, units)]);
        assert.equal(
          loaded.reduce((a, b) => a + b, 0),
          new Set(units.map((u) => u.ncpdp_quantity_qualifier_code.toUpperCase())).size,
          'loaded once',
        );
        const count = await api.storage.db
          .selectFrom('dispense_units')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .executeTakeFirstOrThrow();
        assert.equal(Number(count.n), new Set(units.map((u) => u.ncpdp_quantity_qualifier_code.toUpperCase())).size);
      } finally {
        await api.storage.db.deleteFrom('dispense_units').execute();
        if (before.length > 0) await api.storage.db.insertInto('dispense_units').values(before).execute();
      }
    });
  });
}
