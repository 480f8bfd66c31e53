// this.data from a fixture (docs/plugins.md, "Testing a plugin"), the binding itself, in process:
// the rules it shares with the instance's reads (runtime/data-access.ts: declared resources,
// scope and the data:instance grant, the budget of reads and rows, the arguments), the answers
// of each read as its REST route gives them (404s, filters, order, pages), each read recorded as
// its audit row would be, and a malformed fixture refused with every reason.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { CallContext, DataAccess } from '../src/runtime/calls.ts';
import { checkFixture, fixtureBinding, type Fixture, type LocalRead } from '../src/runtime/fixture-reads.ts';
import type { JsonObject, JsonValue } from '../src/runtime/sandbox/types.ts';

const A = 'a'.repeat(32);
const B = 'b'.repeat(32);
const uuid = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;

const FIXTURE = {
  patients: [
    { key: A, first_name: 'Ada' },
    { key: B, first_name: 'Bob' },
  ],
  notes: [
    { uuid: uuid(2), patient_key: A, created_at: '2026-01-02T00:00:00.000000Z', deleted: true },
    { uuid: uuid(1), patient_key: A, created_at: '2026-01-01T00:00:00.000000Z' },
    { uuid: uuid(3), patient_key: B, created_at: '2026-01-01T00:00:00.000000Z' },
  ],
  commands: [
    { uuid: uuid(11), patient_key: A, note_key: uuid(1), schema_key: 'plan', state: 'committed', created_at: '2026-01-03T10:00:00.000000Z' },
    { uuid: uuid(12), patient_key: A, note_key: uuid(1), schema_key: 'hpi', state: 'staged', created_at: '2026-01-01T10:00:00.000000Z' },
    { uuid: uuid(13), patient_key: A, note_key: uuid(2), schema_key: 'plan', state: 'staged', created_at: '2026-01-02T10:00:00.000000Z' },
    { uuid: uuid(14), patient_key: B, note_key: uuid(3), schema_key: 'plan', state: 'staged', created_at: '2026-01-01T10:00:00.000000Z' },
  ],
  chart: {
    [A]: {
      conditions: [
        { id: 'c1', status: 'active' },
        { id: 'c2', status: 'entered_in_error' },
      ],
      goals: [{ id: 'g1' }],
    },
  },
  metadata: {
    [A]: [
      { namespace: 'z', key: 'a', value: '1' },
      { namespace: 'a', key: 'b', value: '2' },
    ],
  },
};

function fixture(value: unknown = FIXTURE): Fixture {
  const checked = checkFixture(value);
  assert.ok(checked.ok, checked.ok ? '' : checked.reasons.join('; '));
  return checked.fixture;
}

/** A call of plugin `reader` on an event about `patient`, reading the fixture. */
function caller(options: { access?: Partial<DataAccess>; grants?: string[]; patient?: string | null; data?: Fixture } = {}) {
  const access: DataAccess = { read: ['patients', 'notes', 'commands', 'chart'], scope: 'event_patient', reads: 50, rows: 2000, ...options.access };
  const call: CallContext = {
    handler: {
      plugin: 'reader',
      entry: 'reader/handlers.js',
      className: 'Reader',
      id: 'reader/handlers.js:Reader',
      events: ['PLAN_COMMAND__POST_COMMIT'],
      secrets: {},
      onFailure: 'allow',
      effectsPerAnswer: 100,
      routes: [],
      schedule: null,
      data: access,
    },
    type: 'PLAN_COMMAND__POST_COMMIT',
    event: { id: 'e-1', type: 'PLAN_COMMAND__POST_COMMIT', context: options.patient === null ? {} : { patient: { key: options.patient ?? A } } },
    requestId: 'r-1',
    pre: false,
    reads: { count: 0, rows: 0, overBudget: null, databaseUnavailable: false },
  };
  const reads: LocalRead[] = [];
  const binding = fixtureBinding(() => ({ fixture: options.data ?? fixture(), grants: options.grants ?? [], reads }));
  const read = async (resource: string, op: string, args: JsonObject = {}) => (await binding('reader', { resource, op, ...args }, call)) as JsonObject;
  const value = async (resource: string, op: string, args: JsonObject = {}) => {
    const answer = await read(resource, op, args);
    assert.ok('value' in answer, JSON.stringify(answer));
    return answer.value as Record<string, any>;
  };
  const error = async (resource: string, op: string, args: JsonObject = {}) => {
    const answer = await read(resource, op, args);
    assert.ok('error' in answer, JSON.stringify(answer));
    return answer.error as { code: string; message: string; errors?: JsonValue[] };
  };
  return { call, reads, read, value, error };
}

const uuids = (page: Record<string, any>) => (page.results as Array<{ uuid: string }>).map((r) => r.uuid);

describe('this.data from a fixture', () => {
  it('answers rows as the API shows them, and records each read as its audit row would', async () => {
    const { value, reads } = caller();
    assert.deepEqual(await value('patients', 'get', { key: A }), { key: A, first_name: 'Ada' });
    assert.deepEqual(await value('chart', 'get', { patient_key: A }), {
      patient_key: A,
      conditions: [{ id: 'c1', status: 'active' }],
      medications: [],
      goals: [{ id: 'g1' }],
      banner_alerts: [],
    });
    const metadata = await value('patients', 'metadata', { key: A });
    assert.deepEqual(
      metadata.results.map((p: { namespace: string }) => p.namespace),
      ['a', 'z'],
    );
    assert.deepEqual(reads, [
      { read: 'patients.get', patient_key: A, keys: [A], rows: 1, refused: null },
      { read: 'chart.get', patient_key: A, keys: [A], rows: 2, refused: null },
      { read: 'patients.metadata', patient_key: A, keys: [A], rows: 2, refused: null },
    ]);
  });

  it('lists filter, order and page as the REST routes do, within the event patient', async () => {
    const { value } = caller();
    assert.deepEqual(uuids(await value('notes', 'list')), [uuid(1), uuid(2)]);
    assert.deepEqual(uuids(await value('notes', 'list', { query: { deleted: 'false' } })), [uuid(1)]);
    assert.deepEqual(uuids(await value('commands', 'list')), [uuid(12), uuid(13), uuid(11)]);
    assert.deepEqual(uuids(await value('commands', 'list', { query: { ordering: '-created_at', schema_key: 'plan' } })), [uuid(11), uuid(13)]);
    assert.deepEqual(uuids(await value('commands', 'list', { query: { created_at__gte: '2026-01-02', state: 'staged' } })), [uuid(13)]);
    assert.deepEqual(uuids(await value('commands', 'list', { query: { note_key: uuid(1) } })), [uuid(12), uuid(11)]);
    const page = await value('commands', 'list', { query: { limit: 2 } });
    assert.deepEqual([page.count, page.count_is_estimate, page.next_offset, uuids(page)], [3, false, 2, [uuid(12), uuid(13)]]);
    assert.equal((await value('commands', 'list', { query: { limit: 2, offset: 2 } })).next_offset, null);
  });

  it('refuses another patient (recorded), unless the manifest asks instance scope and the grant is given', async () => {
    const scoped = caller();
    assert.deepEqual(await scoped.error('patients', 'get', { key: B }), {
      code: 'out_of_scope',
      message: `patient ${B} is not the event's patient (the manifest's data.scope is event_patient)`,
    });
    assert.equal((await scoped.error('commands', 'get', { uuid: uuid(14) })).code, 'out_of_scope');
    assert.deepEqual(scoped.reads[0], {
      read: 'patients.get',
      patient_key: B,
      keys: [],
      rows: 0,
      refused: `patient ${B} is not the event's patient (the manifest's data.scope is event_patient)`,
    });
    const ungranted = caller({ access: { scope: 'instance' } });
    assert.equal(
      (await ungranted.error('patients', 'get', { key: B })).message,
      `patient ${B} is not the event's patient, and the data:instance grant is not given to reader`,
    );
    const granted = caller({ access: { scope: 'instance' }, grants: ['data:instance'] });
    assert.equal((await granted.value('patients', 'get', { key: B })).first_name, 'Bob');
    assert.deepEqual(uuids(await granted.value('commands', 'list', { query: { schema_key: 'plan' } })), [uuid(14), uuid(13), uuid(11)]);
    const aboutNoPatient = caller({ patient: null });
    assert.equal((await aboutNoPatient.error('notes', 'list')).message, 'this event is about no patient, so a list must name the patient_key');
  });

  it('keeps the budget of reads and rows, and marks the call over budget', async () => {
    const few = caller({ access: { reads: 2 } });
    await few.value('patients', 'get', { key: A });
    await few.value('patients', 'get', { key: A });
    assert.deepEqual(await few.error('patients', 'get', { key: A }), { code: 'budget_exceeded', message: 'a handler call may read 2 times at most' });
    assert.equal(few.call.reads.overBudget, 'more than 2 reads in one call');
    const narrow = caller({ access: { rows: 2 } });
    await narrow.value('commands', 'list', { query: { schema_key: 'hpi' } });
    assert.deepEqual(await narrow.error('commands', 'list', { query: { schema_key: 'plan' } }), {
      code: 'budget_exceeded',
      message: 'a handler call may read 2 rows at most (1 read, this read has 2)',
    });
  });

  it('refuses what the manifest does not declare, bad arguments and unknown rows, with the API messages', async () => {
    const { error } = caller({ access: { read: ['patients'] } });
    assert.deepEqual(await error('chart', 'get', { patient_key: A }), {
      code: 'not_declared',
      message: "reader does not declare reading chart (the manifest's data.read: patients)",
    });
    const all = caller();
    assert.deepEqual(await all.error('patients', 'get', { key: 'ada' }), {
      code: 'invalid',
      message: 'key must be a patient key (32 lowercase hexadecimal characters)',
      errors: [{ field: 'key', message: 'must be a patient key (32 lowercase hexadecimal characters)' }],
    });
    assert.equal((await all.error('commands', 'list', { query: { colour: 'red' } })).message, 'Invalid querystring.colour (is not a known field)');
    assert.deepEqual(await all.error('commands', 'list', { query: { state: 'done' } }), {
      code: 'invalid',
      message: 'state: must be one of staged, committed, entered_in_error',
      errors: [{ field: 'state', message: 'must be one of staged, committed, entered_in_error' }],
    });
    assert.deepEqual(await all.error('notes', 'get', { uuid: uuid(99) }), { code: 'not_found', message: 'Note not found' });
    assert.deepEqual(await all.error('chart', 'get', { patient_key: 'c'.repeat(32) }), {
      code: 'out_of_scope',
      message: `patient ${'c'.repeat(32)} is not the event's patient (the manifest's data.scope is event_patient)`,
    });
    const unknown = caller({ patient: 'c'.repeat(32) });
    assert.deepEqual(await unknown.error('chart', 'get', { patient_key: 'c'.repeat(32) }), { code: 'not_found', message: 'Patient not found' });
  });

  it('reads the reference data by catalogue, a nested one by its parent, an entry by its key', async () => {
    const data = fixture({
      reference: {
        staff: [
          { key: 's1', first_name: 'Alex' },
          { key: 's2', first_name: 'Jordan' },
        ],
        lab_tests: [
          { id: 't1', lab_partner: 'p1', name: 'A1c' },
          { id: 't2', lab_partner: 'p2', name: 'HDL' },
        ],
      },
    });
    const { value, error, reads } = caller({ access: { read: ['reference'] }, data });
    assert.deepEqual((await value('reference', 'list', { catalogue: 'staff', query: { limit: 1 } })).results, [{ key: 's1', first_name: 'Alex' }]);
    assert.deepEqual(await value('reference', 'get', { catalogue: 'staff', id: 's2' }), { key: 's2', first_name: 'Jordan' });
    assert.deepEqual((await value('reference', 'list', { catalogue: 'lab_tests', query: { parent: 'p2' } })).results, [
      { id: 't2', lab_partner: 'p2', name: 'HDL' },
    ]);
    assert.equal((await value('reference', 'list', { catalogue: 'pharmacies' })).count, 0);
    assert.equal((await error('reference', 'list', { catalogue: 'lab_tests' })).code, 'invalid');
    assert.equal((await error('reference', 'get', { catalogue: 'staff', id: 'nobody' })).code, 'not_found');
    assert.equal((await error('reference', 'list', { catalogue: 'nope' })).code, 'invalid');
    assert.deepEqual(
      reads.map((r) => [r.read, r.patient_key]),
      [
        ['reference.list', null],
        ['reference.get', null],
        ['reference.list', null],
        ['reference.list', null],
      ],
    );
    assert.deepEqual(checkFixture({ reference: { nope: [] } }), {
      ok: false,
      reasons: [
        'reference.nope is not a catalogue (staff, lab_partners, lab_tests, pharmacies, reason_for_visit_codings, questionnaires, educational_materials, dispense_units)',
      ],
    });
  });

  it('looks up and searches the fixture’s concepts: an exact code first, then every word', async () => {
    const data = fixture({
      terminology: [
        { system: 'ICD-10', code: 'E11.65', display: 'Type 2 diabetes mellitus with hyperglycemia' },
        { system: 'ICD-10', code: 'E11.9', display: 'Type 2 diabetes mellitus without complications' },
        { system: 'ICD-10', code: 'I10', display: 'Essential (primary) hypertension' },
        { system: 'http://loinc.org', code: '4548-4', display: 'Hemoglobin A1c/Hemoglobin.total in Blood' },
      ],
    });
    const { value, error, reads } = caller({ access: { read: ['terminology'] }, data });
    assert.deepEqual(await value('terminology', 'lookup', { system: 'ICD-10', code: 'e119' }), {
      system: 'ICD-10',
      code: 'E11.9',
      display: 'Type 2 diabetes mellitus without complications',
      extra: null,
    });
    const codes = async (systems: string[], term: string) =>
      ((await value('terminology', 'search', { systems, term })) as unknown as Array<{ code: string }>).map((c) => c.code);
    assert.deepEqual(await codes(['ICD-10'], 'E11.9'), ['E11.9']);
    assert.deepEqual(await codes(['ICD-10'], 'diabetes type'), ['E11.65', 'E11.9']);
    assert.deepEqual(await codes(['http://loinc.org'], 'diabetes'), [], 'only the systems asked');
    assert.equal((await error('terminology', 'lookup', { system: 'ICD-10', code: 'Z99' })).code, 'not_found');
    assert.equal((await error('terminology', 'search', { systems: ['nowhere'], term: 'x' })).code, 'invalid');
    assert.equal((await error('terminology', 'search', { systems: ['ICD-10'], term: 'x', limit: 101 })).code, 'invalid');
    assert.deepEqual(
      reads.map((r) => r.read),
      ['terminology.lookup', 'terminology.search', 'terminology.search', 'terminology.search'],
      'the answered reads are recorded',
    );
  });

  it('refuses a malformed fixture with every reason', () => {
    const checked = checkFixture({ patients: [{ key: 'ada' }, { key: A }, { key: A }], notes: {}, chart: { x: [] }, colour: 1 });
    assert.deepEqual(checked.ok ? [] : checked.reasons, [
      'colour is not a member of a fixture (patients, notes, commands, chart, metadata, reference, terminology)',
      'patients[0].key must be a patient key (32 lowercase hexadecimal characters)',
      `patients[2]: key ${A} is there twice`,
      'notes must be a list of rows',
      'chart: "x" must be a patient key (32 lowercase hexadecimal characters)',
      'chart.x must be an object of conditions, medications, goals, banner_alerts',
    ]);
    assert.deepEqual(checkFixture([]), {
      ok: false,
      reasons: ['a fixture is a JSON object of patients, notes, commands, chart, metadata, reference and terminology'],
    });
  });
});
