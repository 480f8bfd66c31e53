// The promise, on both engines: on a fresh instance with the starter and demo data, a
// client completes and commits a command of every kind using only what /fields/ and autocomplete
// tell it — every AutocompleteField offers options (the patient's chart ones once the chart has
// entries), each pick is accepted as is, a questionnaire's questions appear and are answered.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ENGINES, startInstance, type Instance } from './support/harness.ts';
import { commandKinds } from '../src/commands/kinds/index.ts';

const C = '/core/api/v1/commands';
type Field = { name: string; type: string; required: boolean; choices: Array<{ value: string; text: string }> };
type Option = { text: string; value: string };

/** Search terms a client might try, in order, until a field offers something. */
const TERMS = ['', 'a', 'e', 's', 'c', 'm', 't', 'd', 'p', 'b', 'h'];
/** Kinds whose commits fill the chart, first: assess, stopMedication and updateGoal pick from it. */
const ORDER = ['diagnose', 'medicationStatement', 'goal', ...[...commandKinds.keys()].filter((k) => !['diagnose', 'medicationStatement', 'goal'].includes(k))];

for (const engine of ENGINES) {
  describe(`completing every kind from /fields/ and autocomplete alone (${engine})`, () => {
    let api: Instance;
    let noteKey = '';
    before(async () => {
      api = await startInstance(engine, { demo: true });
      noteKey = (await api.note()).noteKey;
    });
    after(async () => api?.stop());

    const fieldsOf = async (uuid: string) => (await api.call('GET', `${C}/${uuid}/fields/`)).json.fields as Field[];
    const firstOptions = async (uuid: string, field: string): Promise<Option[]> => {
      for (const term of TERMS) {
        const r = await api.call('GET', `${C}/${uuid}/fields/${field}/autocomplete/?search_term=${term}`);
        assert.equal(r.status, 200, r.text);
        if ((r.json as Option[]).length > 0) return r.json as Option[];
      }
      return [];
    };
    const valueFor = async (uuid: string, field: Field): Promise<unknown> => {
      switch (field.type) {
        case 'AutocompleteField': {
          const options = await firstOptions(uuid, field.name);
          assert.ok(options.length > 0, `${field.name} offers options`);
          return ['indications', 'tests', 'diagnosis'].includes(field.name) ? [options[0]!.value] : options[0]!.value;
        }
        case 'ChoiceField':
          return field.choices[0]!.value;
        case 'MultipleChoiceField':
          return [field.choices[0]!.value];
        case 'DateField':
          return '2026-11-22';
        case 'ApproximateDateField':
          return '2026-11';
        case 'IntegerField':
          return 1;
        case 'DecimalField':
          return '30';
        case 'CheckboxField':
          return false;
        default:
          return `Example ${field.name}`;
      }
    };

    it('every kind, in an order that fills the chart first', async () => {
      for (const kind of ORDER) {
        const created = await api.call('POST', `${C}/`, { body: { schemaKey: kind, noteKey } });
        assert.equal(created.status, 201, created.text);
        const uuid = created.json.uuid as string;
        const done = new Set<string>();
        // Fields can appear as others are set (a questionnaire's questions): fill until none is left.
        for (let round = 0; round < 3; round++) {
          for (const field of await fieldsOf(uuid)) {
            if (done.has(field.name)) continue;
            done.add(field.name);
            const value = await valueFor(uuid, field);
            const r = await api.call('PATCH', `${C}/${uuid}/`, { body: { values: { [field.name]: value } } });
            assert.equal(r.status, 200, `${kind}.${field.name}: ${r.text}`);
          }
        }
        if (kind === 'questionnaire')
          assert.ok(
            [...done].some((n) => n.startsWith('question-')),
            'the questions were answered',
          );
        const committed = await api.call('POST', `${C}/${uuid}/commit/`);
        assert.equal(committed.status, 200, `${kind}: ${committed.text}`);
      }
    });
  });
}
