// The Commands API's states, transitions, note rules and messages, on both engines.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ENGINES, startInstance, type Instance, type Reply } from './support/harness.ts';

const C = '/core/api/v1/commands';

function assertProblem(r: Reply, status: number, code: string, detail?: string) {
  assert.equal(r.status, status, r.text);
  assert.match(r.headers.get('content-type') ?? '', /^application\/problem\+json/);
  assert.equal(r.json.code, code);
  assert.equal(r.json.status, status);
  assert.equal(typeof r.json.title, 'string');
  if (detail !== undefined) assert.equal(r.json.detail, detail);
}

for (const engine of ENGINES) {
  describe(`commands (${engine})`, () => {
    let api: Instance;
    before(async () => {
      api = await startInstance(engine);
    });
    after(async () => api?.stop());

    it('creates a staged command with the caller as originator and editor', async () => {
      const { noteKey, patientKey } = await api.note('encounter');
      const r = await api.call('POST', `${C}/`, { body: { schemaKey: 'plan', noteKey, values: { narrative: 'Rest' } } });
      assert.equal(r.status, 201);
      const c = r.json;
      assert.match(c.uuid, /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
      assert.equal(c.state, 'staged');
      assert.equal(c.schema_key, 'plan');
      assert.equal(c.note_key, noteKey);
      assert.equal(c.patient_key, patientKey);
      assert.match(c.originated_by, /^[0-9a-f]{32}$/);
      assert.deepEqual(c.edited_by, [c.originated_by]);
      assert.equal(c.committed_by, null);
      assert.equal(c.entered_in_error_by, null);
      assert.deepEqual(c.data, { narrative: 'Rest' });
      assert.match(c.created_at, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/);
      assert.equal(c.created_at, c.updated_at);
      assert.deepEqual(Object.keys(c), [
        'uuid',
        'state',
        'created_at',
        'updated_at',
        'schema_key',
        'patient_key',
        'note_key',
        'originated_by',
        'edited_by',
        'committed_by',
        'entered_in_error_by',
        'data',
      ]);
      assert.ok(r.headers.get('etag'));
    });

    it('timestamps carry real sub-millisecond precision', async () => {
      const stamps = new Set<string>();
      for (let i = 0; i < 5; i++) stamps.add((await api.command('plan')).json.created_at.slice(23, 26));
      // Five creates landing on microsecond part 000 every time would mean milliseconds padded.
      assert.ok(
        [...stamps].some((s) => s !== '000'),
        `microsecond digits: ${[...stamps].join(',')}`,
      );
    });

    it('accepts commands in encounter, review and data import notes only', async () => {
      for (const type of ['encounter', 'review', 'data_import']) {
        const { noteKey } = await api.note(type);
        assert.equal((await api.call('POST', `${C}/`, { body: { schemaKey: 'hpi', noteKey } })).status, 201, type);
      }
      for (const type of ['letter', 'message', 'phone_call']) {
        const { noteKey } = await api.note(type);
        assertProblem(await api.call('POST', `${C}/`, { body: { schemaKey: 'hpi', noteKey } }), 400, 'note_invalid', 'Note has an invalid type or state');
      }
    });

    it('refuses a locked or deleted note, and takes commands again once unlocked', async () => {
      const { noteKey } = await api.note();
      assert.equal((await api.call('POST', `/core/api/v1/notes/${noteKey}/lock/`)).status, 200);
      assertProblem(await api.call('POST', `${C}/`, { body: { schemaKey: 'plan', noteKey } }), 400, 'note_invalid', 'Note has an invalid type or state');
      assert.equal((await api.call('POST', `/core/api/v1/notes/${noteKey}/unlock/`)).status, 200);
      assert.equal((await api.call('POST', `${C}/`, { body: { schemaKey: 'plan', noteKey } })).status, 201);
      assert.equal((await api.call('DELETE', `/core/api/v1/notes/${noteKey}/`)).status, 200);
      assertProblem(await api.call('POST', `${C}/`, { body: { schemaKey: 'plan', noteKey } }), 400, 'note_invalid');
    });

    it('answers Note does not exist for a missing, malformed or unknown noteKey', async () => {
      for (const body of [
        { schemaKey: 'plan' },
        { schemaKey: 'plan', noteKey: 'nope' },
        { schemaKey: 'plan', noteKey: '00000000-0000-4000-8000-000000000000' },
      ]) {
        assertProblem(await api.call('POST', `${C}/`, { body }), 400, 'note_does_not_exist', 'Note does not exist');
      }
    });

    it('names the known kinds for an unknown schemaKey', async () => {
      const { noteKey } = await api.note();
      const r = await api.call('POST', `${C}/`, { body: { schemaKey: 'vitals', noteKey } });
      assertProblem(r, 400, 'unknown_schema_key');
      assert.match(r.json.detail, /vitals/);
      assert.match(r.json.detail, /medicationStatement/);
    });

    it('PATCH replaces named values, null clears one, and edited_by grows', async () => {
      const c = await api.command('goal', { goal_statement: 'Walk daily', priority: 'high-priority' });
      const r = await api.call('PATCH', `${C}/${c.uuid}/`, { body: { values: { progress: 'Started', priority: null } } });
      assert.equal(r.status, 200);
      assert.deepEqual(r.json.data, { goal_statement: 'Walk daily', progress: 'Started' });
      assert.ok(r.json.updated_at > c.json.updated_at);
      const again = await api.call('GET', `${C}/${c.uuid}`);
      assert.deepEqual(again.json.data, r.json.data);
    });

    it('commit sets committed_by and state; a second commit or PATCH says Command is not staged', async () => {
      const c = await api.command('plan', { narrative: 'Follow up' });
      const r = await api.call('POST', `${C}/${c.uuid}/commit/`);
      assert.equal(r.status, 200);
      assert.equal(r.json.state, 'committed');
      assert.equal(r.json.committed_by, c.json.originated_by);
      assertProblem(await api.call('POST', `${C}/${c.uuid}/commit/`, { body: {} }), 400, 'command_not_staged', 'Command is not staged');
      assertProblem(await api.call('PATCH', `${C}/${c.uuid}/`, { body: { values: { narrative: 'x' } } }), 400, 'command_not_staged', 'Command is not staged');
      assertProblem(await api.call('DELETE', `${C}/${c.uuid}/`), 400, 'command_not_staged');
    });

    it('commit enforces fields required to commit, naming them', async () => {
      const c = await api.command('prescribe', { sig: 'one daily' });
      const r = await api.call('POST', `${C}/${c.uuid}/commit/`);
      assertProblem(r, 400, 'required_field_missing');
      const names = r.json.errors.map((e: { field: string }) => e.field);
      for (const f of ['prescribe', 'quantity_to_dispense', 'type_to_dispense', 'refills', 'substitutions', 'prescriber'])
        assert.ok(names.includes(`values.${f}`), f);
      assert.ok(!names.includes('values.sig'));
      assert.match(r.json.detail, /'prescribe'/);
      assert.equal((await api.call('GET', `${C}/${c.uuid}`)).json.state, 'staged');
    });

    it('enter-in-error applies to committed commands only', async () => {
      const c = await api.command('hpi', { narrative: 'Cough for 3 days' });
      assertProblem(await api.call('POST', `${C}/${c.uuid}/enter-in-error/`), 400, 'command_not_committed', 'Command is not committed');
      await api.call('POST', `${C}/${c.uuid}/commit/`);
      const r = await api.call('POST', `${C}/${c.uuid}/enter-in-error/`, { body: {} });
      assert.equal(r.status, 200);
      assert.equal(r.json.state, 'entered_in_error');
      assert.equal(r.json.entered_in_error_by, c.json.originated_by);
      assert.equal(r.json.committed_by, c.json.originated_by);
      assertProblem(await api.call('POST', `${C}/${c.uuid}/enter-in-error/`), 400, 'command_not_committed');
      assertProblem(await api.call('POST', `${C}/${c.uuid}/commit/`), 400, 'command_not_staged');
    });

    it('every write checks the note: locked note → Note has an invalid type or state', async () => {
      const staged = await api.command('plan', { narrative: 'x' });
      const committed = await api.command('plan', { narrative: 'y' });
      await api.call('POST', `${C}/${committed.uuid}/commit/`);
      for (const c of [staged, committed]) await api.call('POST', `/core/api/v1/notes/${c.noteKey}/lock/`);
      assertProblem(await api.call('PATCH', `${C}/${staged.uuid}/`, { body: { values: { narrative: 'z' } } }), 400, 'note_invalid');
      assertProblem(await api.call('POST', `${C}/${staged.uuid}/commit/`), 400, 'note_invalid');
      assertProblem(await api.call('DELETE', `${C}/${staged.uuid}/`), 400, 'note_invalid');
      assertProblem(await api.call('POST', `${C}/${committed.uuid}/enter-in-error/`), 400, 'note_invalid');
      assert.equal((await api.call('GET', `${C}/${staged.uuid}`)).json.data.narrative, 'x');
    });

    it('DELETE answers 200 with an empty body, then the command is gone (404)', async () => {
      const c = await api.command('plan');
      const r = await api.call('DELETE', `${C}/${c.uuid}/`);
      assert.equal(r.status, 200);
      assert.equal(r.text, '');
      assertProblem(await api.call('GET', `${C}/${c.uuid}`), 404, 'command_not_found', 'Command not found');
      assertProblem(await api.call('GET', `${C}/${c.uuid}/`), 404, 'command_not_found');
      assertProblem(await api.call('DELETE', `${C}/${c.uuid}/`), 404, 'command_not_found', 'Command not found');
    });

    it('GET works with and without the trailing slash; writes without it are 404 saying why', async () => {
      const c = await api.command('plan');
      assert.equal((await api.call('GET', `${C}/${c.uuid}`)).status, 200);
      assert.equal((await api.call('GET', `${C}/${c.uuid}/`)).status, 200);
      assert.equal((await api.call('GET', `${C}/`)).status, 200);
      for (const [method, path] of [
        ['PATCH', `${C}/${c.uuid}`],
        ['DELETE', `${C}/${c.uuid}`],
        ['POST', `${C}/${c.uuid}/commit`],
        ['POST', C],
      ] as const) {
        const r = await api.call(method, path, { body: { values: {} } });
        assertProblem(r, 404, 'trailing_slash_required');
        assert.match(r.json.detail, /trailing slash/);
      }
      assert.equal((await api.call('GET', `${C}/${c.uuid}`)).json.state, 'staged');
    });

    it('a malformed uuid in the path is simply not found', async () => {
      for (const path of [`${C}/not-a-uuid`, `${C}/not-a-uuid/fields/`, `${C}/12345678-1234-1234-1234-1234567890ag/commit/`]) {
        const method = path.endsWith('commit/') ? 'POST' : 'GET';
        assertProblem(await api.call(method, path), 404, 'command_not_found');
      }
    });

    it('fields/ lists the kind fields; autocomplete answers per field type', async () => {
      const c = await api.command('assess');
      const f = await api.call('GET', `${C}/${c.uuid}/fields/`);
      assert.equal(f.status, 200);
      assert.equal(f.json.schema, 'assess');
      assert.deepEqual(
        f.json.fields.map((x: { name: string }) => x.name),
        ['condition', 'background', 'status', 'narrative'],
      );
      const status = f.json.fields.find((x: { name: string }) => x.name === 'status');
      assert.deepEqual(status.choices[0], { value: 'improved', text: 'Improved' });
      assert.deepEqual(f.json.fields.find((x: { name: string }) => x.name === 'narrative').choices, []);
      assert.ok(
        f.json.fields.every((x: object) => !('max_items' in x)),
        'no list field: no max_items',
      );
      const order = await api.command('labOrder');
      const lists = (await api.call('GET', `${C}/${order.uuid}/fields/`)).json.fields.filter((x: { max_items?: number }) => x.max_items !== undefined);
      assert.deepEqual(
        lists.map((x: { name: string; max_items: number }) => [x.name, x.max_items]),
        [
          ['tests', 20],
          ['diagnosis', 12],
        ],
        'a list field says how many options it takes',
      );
      assertProblem(
        await api.call('GET', `${C}/${c.uuid}/fields/narrative/autocomplete/?search_term=a`),
        400,
        'field_not_autocomplete',
        'Field does not support autocomplete',
      );
      assertProblem(await api.call('GET', `${C}/${c.uuid}/fields/nope/autocomplete/`), 404, 'field_not_found');
      const ac = await api.call('GET', `${C}/${c.uuid}/fields/condition/autocomplete/?search_term=lyme`);
      assert.equal(ac.status, 200);
      assert.deepEqual(ac.json, []);
    });

    it('fields/ says which fields take free text, and such a field stores it as an UNSTRUCTURED coding', async () => {
      const freeText = async (kind: string) =>
        (await api.call('GET', `${C}/${(await api.command(kind)).uuid}/fields/`)).json.fields
          .filter((x: { free_text?: boolean }) => x.free_text !== undefined)
          .map((x: { name: string; free_text: boolean }) => [x.name, x.free_text]);
      assert.deepEqual(await freeText('diagnose'), [['diagnose', true]]);
      assert.deepEqual(await freeText('prescribe'), [
        ['prescribe', true],
        ['indications', true],
      ]);
      assert.deepEqual(await freeText('labOrder'), [['diagnosis', true]], 'lab partners and their tests take no free text');
      assert.deepEqual(await freeText('assess'), [], "the chart's conditions take no free text");
      const text = {
        text: 'Chronic fatigue after travel',
        value: 'Chronic fatigue after travel',
        extra: { coding: [{ code: 'Chronic fatigue after travel', system: 'UNSTRUCTURED' }] },
      };
      const diagnosis = await api.command('diagnose', { diagnose: text });
      assert.deepEqual(diagnosis.json.data.diagnose.extra.coding, [{ code: text.text, display: text.text, system: 'UNSTRUCTURED' }]);
      const order = await api.command('labOrder');
      const refused = await api.call('PATCH', `${C}/${order.uuid}/`, { body: { values: { tests: [text] } } });
      assert.equal(refused.status, 400, 'a field without free_text refuses free text');
      assert.deepEqual(
        refused.json.errors.map((e: { field: string }) => e.field),
        ['values.tests[0]'],
      );
    });
  });
}
