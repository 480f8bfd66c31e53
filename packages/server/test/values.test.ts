// Tests for the command-kind registry and the validation of `values`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { commandKinds, getKind, kindKeys } from '../src/commands/kinds/index.ts';
import type { CommandKind, FieldDef } from '../src/commands/kinds/types.ts';
import { CodeSystems } from '@charta/api/constants';
import { missingRequired, validateValues, type FieldError } from '../src/commands/check-values.ts';

function kind(key: string): CommandKind {
  const found = getKind(key);
  assert.ok(found, `kind ${key} exists`);
  return found;
}

function field(kindKey: string, name: string): FieldDef {
  const found = kind(kindKey).fields.find((f) => f.name === name);
  assert.ok(found, `${kindKey}.${name} exists`);
  return found;
}

/** Validates and expects success; returns the normalised values. */
function accept(kindKey: string, values: Record<string, unknown>): Record<string, unknown> {
  const result = validateValues(kind(kindKey), values);
  assert.ok(result.ok, `expected ${JSON.stringify(values)} to be accepted: ${JSON.stringify(result)}`);
  return result.values;
}

/** Validates and expects failure; returns the errors. */
function reject(kindKey: string, values: unknown): FieldError[] {
  const result = validateValues(kind(kindKey), values);
  assert.ok(!result.ok, `expected ${JSON.stringify(values)} to be rejected`);
  assert.ok(result.errors.length > 0);
  return result.errors;
}

/** Expects exactly one error, at `path`, whose message matches `pattern`. */
function rejectOne(kindKey: string, values: unknown, path: string, pattern?: RegExp): void {
  const errors = reject(kindKey, values);
  assert.equal(errors.length, 1, JSON.stringify(errors));
  assert.equal(errors[0]?.field, path);
  if (pattern) assert.match(errors[0]?.message ?? '', pattern);
}

const option = (text: string, value: string | number, more: Record<string, unknown> = {}) => ({ text, value, ...more });
const normalisedOption = (text: string, value: string | number) => ({
  text,
  value,
  disabled: false,
  description: null,
  annotations: null,
  extra: null,
});

// ---------------------------------------------------------------------------------------
// Registry

const EXPECTED_KEYS = [
  'assess',
  'diagnose',
  'goal',
  'hpi',
  'instruct',
  'labOrder',
  'medicationStatement',
  'perform',
  'plan',
  'prescribe',
  'questionnaire',
  'reasonForVisit',
  'stopMedication',
  'updateGoal',
  'educationalMaterial',
];

/** Field names in the fixed API order. */
const EXPECTED_FIELDS: Record<string, string[]> = {
  assess: ['condition', 'background', 'status', 'narrative'],
  diagnose: ['diagnose', 'background', 'approximate_date_of_onset', 'today_assessment'],
  goal: ['goal_statement', 'start_date', 'due_date', 'achievement_status', 'priority', 'progress'],
  hpi: ['narrative'],
  instruct: ['instruct', 'comment'],
  labOrder: ['lab_partner', 'tests', 'ordering_provider', 'diagnosis', 'fasting_required', 'comment'],
  medicationStatement: ['medication', 'sig'],
  perform: ['perform', 'notes'],
  plan: ['narrative'],
  prescribe: [
    'prescribe',
    'indications',
    'sig',
    'days_supply',
    'quantity_to_dispense',
    'type_to_dispense',
    'refills',
    'substitutions',
    'pharmacy',
    'prescriber',
    'supervising_provider',
    'note_to_pharmacist',
  ],
  questionnaire: ['questionnaire', 'result'],
  reasonForVisit: ['coding', 'comment'],
  stopMedication: ['medication', 'rationale'],
  updateGoal: ['goal_statement', 'due_date', 'achievement_status', 'priority', 'progress'],
  educationalMaterial: ['title', 'language'],
};

const EXPECTED_REQUIRED: Record<string, string[]> = {
  assess: ['condition'],
  diagnose: ['diagnose'],
  goal: ['goal_statement'],
  hpi: ['narrative'],
  instruct: ['instruct'],
  labOrder: ['lab_partner', 'tests', 'ordering_provider'],
  medicationStatement: ['medication'],
  perform: ['perform'],
  plan: ['narrative'],
  prescribe: ['prescribe', 'sig', 'quantity_to_dispense', 'type_to_dispense', 'refills', 'substitutions', 'prescriber'],
  questionnaire: ['questionnaire'],
  reasonForVisit: [],
  stopMedication: ['medication'],
  updateGoal: ['goal_statement'],
  educationalMaterial: ['title', 'language'],
};

test('all 15 kinds exist, in order, and getKind finds them', () => {
  assert.deepEqual(kindKeys, EXPECTED_KEYS);
  assert.deepEqual([...commandKinds.keys()], EXPECTED_KEYS);
  for (const key of EXPECTED_KEYS) {
    assert.equal(getKind(key)?.key, key);
    assert.ok(getKind(key)?.label);
    assert.ok(getKind(key)?.description);
  }
  assert.equal(getKind('nope'), undefined);
  assert.equal(getKind('__proto__'), undefined);
});

test('every kind has unique field names in the fixed API order', () => {
  for (const [key, kindDef] of commandKinds) {
    const names = kindDef.fields.map((f) => f.name);
    assert.equal(new Set(names).size, names.length, `${key} has duplicate field names`);
    assert.deepEqual(names, EXPECTED_FIELDS[key], `${key} field order`);
  }
});

test('required flags match the decisions', () => {
  for (const [key, kindDef] of commandKinds) {
    const required = kindDef.fields.filter((f) => f.required).map((f) => f.name);
    assert.deepEqual(required, EXPECTED_REQUIRED[key], `${key} required fields`);
  }
  assert.equal(field('goal', 'start_date').required, false);
  assert.equal(field('labOrder', 'diagnosis').required, false);
});

test('every field is well formed: choices, limits, descriptions', () => {
  for (const [key, kindDef] of commandKinds) {
    for (const f of kindDef.fields) {
      const where = `${key}.${f.name}`;
      assert.ok(f.description.length > 0, `${where} has a description`);
      if (f.type === 'ChoiceField' || f.type === 'MultipleChoiceField') {
        assert.ok(f.choices && f.choices.length > 0, `${where} has choices`);
        const values = f.choices.map((c) => c.value);
        assert.equal(new Set(values).size, values.length, `${where} choice values are unique`);
        for (const c of f.choices) assert.ok(c.text.length > 0, `${where} choice ${c.value} has a text`);
      } else {
        assert.equal(f.choices, undefined, `${where} has no choices`);
      }
      if (f.type === 'MultiLineTextField' || f.type === 'TextField') {
        assert.ok(typeof f.maxLength === 'number' && f.maxLength > 0, `${where} has maxLength`);
      }
      if (f.multiple) assert.equal(f.type, 'AutocompleteField', `${where} multiple is autocomplete`);
    }
  }
});

test('field types, limits, choices and coding systems follow the decisions', () => {
  assert.deepEqual(field('assess', 'status').choices, [
    { value: 'improved', text: 'Improved' },
    { value: 'stable', text: 'Unchanged' },
    { value: 'deteriorated', text: 'Deteriorated' },
  ]);
  assert.deepEqual(
    field('goal', 'achievement_status').choices?.map((c) => c.text),
    ['In Progress', 'Improving', 'Worsening', 'No Change', 'Achieved', 'Sustaining', 'Not Achieved', 'No Progress', 'Not Attainable'],
  );
  assert.deepEqual(
    field('goal', 'priority').choices?.map((c) => c.value),
    ['high-priority', 'medium-priority', 'low-priority'],
  );
  assert.deepEqual(field('updateGoal', 'achievement_status').choices, field('goal', 'achievement_status').choices);
  assert.deepEqual(field('updateGoal', 'priority').choices, field('goal', 'priority').choices);
  assert.deepEqual(field('prescribe', 'substitutions').choices, [
    { value: 'allowed', text: 'Allowed' },
    { value: 'not_allowed', text: 'Not allowed' },
  ]);

  assert.equal(field('assess', 'narrative').maxLength, 2048);
  assert.equal(field('diagnose', 'today_assessment').maxLength, 2048);
  assert.equal(field('medicationStatement', 'sig').maxLength, 1000);
  assert.equal(field('prescribe', 'sig').type, 'MultiLineTextField');
  assert.equal(field('prescribe', 'sig').maxLength, 1000);
  assert.equal(field('prescribe', 'note_to_pharmacist').type, 'TextField');
  assert.equal(field('prescribe', 'note_to_pharmacist').maxLength, 210);
  assert.equal(field('plan', 'narrative').maxLength, 10000);
  assert.equal(field('prescribe', 'type_to_dispense').type, 'AutocompleteField');
  assert.deepEqual((({ type, min, max, exclusiveMin }) => ({ type, min, max, exclusiveMin }))(field('prescribe', 'quantity_to_dispense')), {
    type: 'DecimalField',
    min: 0,
    max: 99999,
    exclusiveMin: true,
  });
  assert.deepEqual([field('prescribe', 'days_supply').min, field('prescribe', 'days_supply').max], [1, 365]);
  assert.deepEqual([field('prescribe', 'refills').min, field('prescribe', 'refills').max], [0, 99]);
  assert.equal(field('labOrder', 'fasting_required').type, 'CheckboxField');
  assert.equal(field('labOrder', 'comment').type, 'MultiLineTextField');
  assert.equal(field('diagnose', 'approximate_date_of_onset').type, 'ApproximateDateField');
  assert.equal(field('questionnaire', 'questionnaire').type, 'AutocompleteField');
  assert.equal(field('questionnaire', 'result').type, 'MultiLineTextField');
  assert.equal(field('educationalMaterial', 'title').type, 'AutocompleteField');
  assert.equal(field('educationalMaterial', 'language').type, 'AutocompleteField');

  assert.deepEqual([field('prescribe', 'indications').multiple, field('prescribe', 'indications').maxItems], [true, 2]);
  assert.deepEqual([field('labOrder', 'tests').multiple, field('labOrder', 'tests').maxItems], [true, 20]);
  assert.deepEqual([field('labOrder', 'diagnosis').multiple, field('labOrder', 'diagnosis').maxItems], [true, 12]);

  const { ICD10, UNSTRUCTURED, RXNORM, FDB, CPT, HCPCS, SNOMED, LOINC } = CodeSystems;
  const expectedSystems: Record<string, string[]> = {
    'diagnose.diagnose': [ICD10, UNSTRUCTURED],
    'prescribe.indications': [ICD10, UNSTRUCTURED],
    'labOrder.diagnosis': [ICD10, UNSTRUCTURED],
    'medicationStatement.medication': [RXNORM, FDB, UNSTRUCTURED],
    'prescribe.prescribe': [RXNORM, FDB, UNSTRUCTURED],
    'perform.perform': [CPT, HCPCS, UNSTRUCTURED],
    'instruct.instruct': [SNOMED, UNSTRUCTURED],
    'reasonForVisit.coding': [SNOMED, ICD10, 'INTERNAL'],
    'labOrder.tests': [LOINC, 'charta:lab-order-code'],
  };
  for (const [key, kindDef] of commandKinds) {
    for (const f of kindDef.fields) {
      assert.deepEqual(f.codingSystems, expectedSystems[`${key}.${f.name}`], `${key}.${f.name} coding systems`);
    }
  }
});

// ---------------------------------------------------------------------------------------
// values: shape, unknown keys, null

test('values must be a plain JSON object', () => {
  for (const bad of [null, [], ['narrative'], 'narrative', 42, true, undefined, new Date()]) {
    rejectOne('plan', bad, 'values', /JSON object/);
  }
  assert.deepEqual(accept('plan', {}), {});
});

test('unknown keys are rejected with the list of allowed fields', () => {
  rejectOne('assess', { nope: 1 }, 'values.nope');
  const errors = reject('assess', { nope: 1 });
  assert.equal(errors[0]?.message, "Unknown field 'nope' for assess; allowed fields: condition, background, status, narrative");
  const proto = reject('plan', JSON.parse('{"__proto__": {"x": 1}}'));
  assert.equal(proto[0]?.field, 'values.__proto__');
});

test('null is accepted for every field of every kind and normalises to null', () => {
  for (const kindDef of commandKinds.values()) {
    const values = Object.fromEntries(kindDef.fields.map((f) => [f.name, null]));
    const result = validateValues(kindDef, values);
    assert.ok(result.ok, kindDef.key);
    assert.deepEqual(result.values, values);
  }
});

test('every error is returned, not only the first', () => {
  const errors = reject('prescribe', {
    sig: 5,
    refills: 100,
    substitutions: 'maybe',
    quantity_to_dispense: 0,
    bogus: true,
    indications: [option('A', 1), option('B', 1), option('C', 2)],
  });
  assert.deepEqual(errors.map((e) => e.field).sort(), [
    'values.bogus',
    'values.indications',
    'values.indications[1]',
    'values.quantity_to_dispense',
    'values.refills',
    'values.sig',
    'values.substitutions',
  ]);
});

// ---------------------------------------------------------------------------------------
// Text fields

test('MultiLineTextField: string within maxLength (code points), line breaks allowed, no NUL', () => {
  assert.deepEqual(accept('plan', { narrative: 'line 1\nline 2\r\n' }), { narrative: 'line 1\nline 2\r\n' });
  assert.deepEqual(accept('plan', { narrative: '' }), { narrative: '' });
  rejectOne('plan', { narrative: 12 }, 'values.narrative', /string/);
  rejectOne('plan', { narrative: ['a'] }, 'values.narrative', /string/);
  rejectOne('plan', { narrative: 'a\u0000b' }, 'values.narrative', /NUL/);

  // 2048 emoji are 4096 UTF-16 units but 2048 characters.
  accept('assess', { narrative: '😀'.repeat(2048) });
  rejectOne('assess', { narrative: '😀'.repeat(2049) }, 'values.narrative', /at most 2048/);
  accept('assess', { background: 'x'.repeat(10000) });
  rejectOne('assess', { background: 'x'.repeat(10001) }, 'values.background', /at most 10000/);
  rejectOne('medicationStatement', { sig: 'x'.repeat(1001) }, 'values.sig', /at most 1000/);
});

test('TextField: single line, within maxLength, no NUL', () => {
  accept('prescribe', { note_to_pharmacist: 'x'.repeat(210) });
  rejectOne('prescribe', { note_to_pharmacist: 'x'.repeat(211) }, 'values.note_to_pharmacist', /at most 210/);
  rejectOne('prescribe', { note_to_pharmacist: 'a\nb' }, 'values.note_to_pharmacist', /line/);
  rejectOne('prescribe', { note_to_pharmacist: 'a\rb' }, 'values.note_to_pharmacist', /line/);
  rejectOne('prescribe', { note_to_pharmacist: 'a\u0000b' }, 'values.note_to_pharmacist', /NUL/);
  rejectOne('prescribe', { note_to_pharmacist: false }, 'values.note_to_pharmacist', /string/);
  // Both problems at once are both reported.
  assert.equal(reject('prescribe', { note_to_pharmacist: `\u0000\n${'x'.repeat(300)}` }).length, 3);
});

// ---------------------------------------------------------------------------------------
// Choice fields

test('ChoiceField: one of the choice values', () => {
  assert.deepEqual(accept('assess', { status: 'stable' }), { status: 'stable' });
  accept('goal', { achievement_status: 'not-attainable', priority: 'low-priority' });
  accept('prescribe', { substitutions: 'not_allowed' });
  rejectOne('assess', { status: 'Unchanged' }, 'values.status', /one of: improved, stable, deteriorated/);
  rejectOne('assess', { status: 1 }, 'values.status', /one of/);
  rejectOne('assess', { status: ['stable'] }, 'values.status', /one of/);
});

test('MultipleChoiceField: a list of distinct allowed values', () => {
  // No current kind uses MultipleChoiceField (questionnaire questions will); use a small kind.
  const pick: CommandKind = {
    key: 'pick',
    label: 'Pick',
    description: 'Test kind.',
    fields: [
      {
        name: 'colours',
        type: 'MultipleChoiceField',
        required: true,
        choices: [
          { value: 'red', text: 'Red' },
          { value: 'blue', text: 'Blue' },
        ],
        description: 'Colours.',
      },
    ],
  };
  const ok = validateValues(pick, { colours: ['red', 'blue'] });
  assert.deepEqual(ok, { ok: true, values: { colours: ['red', 'blue'] } });
  assert.deepEqual(validateValues(pick, { colours: [] }), { ok: true, values: { colours: [] } });
  const bad = validateValues(pick, { colours: ['red', 'green', 'red', 3] });
  assert.ok(!bad.ok);
  assert.deepEqual(
    bad.errors.map((e) => e.field),
    ['values.colours[1]', 'values.colours[2]', 'values.colours[3]'],
  );
  assert.match(bad.errors[1]?.message ?? '', /duplicate/);
  const notList = validateValues(pick, { colours: 'red' });
  assert.ok(!notList.ok);
  assert.equal(notList.errors[0]?.field, 'values.colours');
  assert.deepEqual(
    missingRequired(pick, { colours: [] }).map((e) => e.field),
    ['values.colours'],
  );
});

// ---------------------------------------------------------------------------------------
// Dates

test('DateField: YYYY-MM-DD, a real date, year 1900-2200', () => {
  for (const good of ['2026-02-28', '2024-02-29', '1900-01-01', '2200-12-31', '2026-04-30']) {
    assert.deepEqual(accept('goal', { due_date: good }), { due_date: good });
  }
  for (const bad of ['2026-02-30', '2023-02-29', '2026-04-31', '2026-13-01', '2026-00-10', '2026-01-00']) {
    rejectOne('goal', { start_date: bad }, 'values.start_date', /date|month/);
  }
  rejectOne('goal', { due_date: '1899-12-31' }, 'values.due_date', /year/);
  rejectOne('goal', { due_date: '2201-01-01' }, 'values.due_date', /year/);
  for (const bad of ['2026-1-05', '2026-01-05T00:00:00Z', '2026', '20260105', ' 2026-01-05', 20260105, true]) {
    rejectOne('updateGoal', { due_date: bad }, 'values.due_date', /YYYY-MM-DD/);
  }
});

test('ApproximateDateField: YYYY, YYYY-MM or YYYY-MM-DD, each real, year 1900-2200', () => {
  for (const good of ['2020', '2020-05', '2020-05-31', '1900', '2200-12', '2024-02-29']) {
    assert.deepEqual(accept('diagnose', { approximate_date_of_onset: good }), { approximate_date_of_onset: good });
  }
  const path = 'values.approximate_date_of_onset';
  rejectOne('diagnose', { approximate_date_of_onset: '2020-13' }, path, /month/);
  rejectOne('diagnose', { approximate_date_of_onset: '2020-00' }, path, /month/);
  rejectOne('diagnose', { approximate_date_of_onset: '2020-04-31' }, path, /real calendar date/);
  rejectOne('diagnose', { approximate_date_of_onset: '2023-02-29' }, path, /real calendar date/);
  rejectOne('diagnose', { approximate_date_of_onset: '1899' }, path, /year/);
  rejectOne('diagnose', { approximate_date_of_onset: '2201-01' }, path, /year/);
  for (const bad of ['20', '2020-5', '2020/05', 'May 2020', 2020]) {
    rejectOne('diagnose', { approximate_date_of_onset: bad }, path, /approximate date/);
  }
});

// ---------------------------------------------------------------------------------------
// Numbers and booleans

test('IntegerField: a safe integer JSON number within bounds', () => {
  assert.deepEqual(accept('prescribe', { refills: 0, days_supply: 365 }), { refills: 0, days_supply: 365 });
  accept('prescribe', { refills: 99, days_supply: 1 });
  rejectOne('prescribe', { refills: 100 }, 'values.refills', /at most 99/);
  rejectOne('prescribe', { refills: -1 }, 'values.refills', /at least 0/);
  rejectOne('prescribe', { days_supply: 0 }, 'values.days_supply', /at least 1/);
  rejectOne('prescribe', { days_supply: 366 }, 'values.days_supply', /at most 365/);
  for (const bad of [1.5, '3', Number.NaN, Number.POSITIVE_INFINITY, 2 ** 53, true]) {
    rejectOne('prescribe', { refills: bad }, 'values.refills', /integer/);
  }
});

test('DecimalField: number or decimal string, > 0 and <= 99999, canonical string', () => {
  const q = (v: unknown) => accept('prescribe', { quantity_to_dispense: v })['quantity_to_dispense'];
  assert.equal(q(10), '10');
  assert.equal(q('10.50'), '10.5');
  assert.equal(q('10.0'), '10');
  assert.equal(q('007.250'), '7.25');
  assert.equal(q(0.5), '0.5');
  assert.equal(q('0.000001'), '0.000001');
  assert.equal(q(99999), '99999');
  assert.equal(q('99999.000000'), '99999');
  const path = 'values.quantity_to_dispense';
  rejectOne('prescribe', { quantity_to_dispense: 0 }, path, /greater than 0/);
  rejectOne('prescribe', { quantity_to_dispense: '0.000' }, path, /greater than 0/);
  rejectOne('prescribe', { quantity_to_dispense: '-0' }, path, /greater than 0/);
  rejectOne('prescribe', { quantity_to_dispense: -2 }, path, /greater than 0/);
  rejectOne('prescribe', { quantity_to_dispense: '99999.000001' }, path, /at most 99999/);
  rejectOne('prescribe', { quantity_to_dispense: 100000 }, path, /at most 99999/);
  for (const bad of ['1e3', 'abc', '', '1.', '.5', '+1', '1.1234567', '12345678901', ' 1', true, [1], 1e-7, Number.NaN]) {
    rejectOne('prescribe', { quantity_to_dispense: bad }, path, /decimal/);
  }
});

test('CheckboxField: booleans only', () => {
  assert.deepEqual(accept('labOrder', { fasting_required: true }), { fasting_required: true });
  assert.deepEqual(accept('labOrder', { fasting_required: false }), { fasting_required: false });
  for (const bad of ['true', 1, 0, []]) {
    rejectOne('labOrder', { fasting_required: bad }, 'values.fasting_required', /true or false/);
  }
});

// ---------------------------------------------------------------------------------------
// Autocomplete

test('AutocompleteField: object or JSON-string form, normalised with defaults', () => {
  assert.deepEqual(accept('assess', { condition: option('Fracture (W56.21XA)', 24) }), {
    condition: normalisedOption('Fracture (W56.21XA)', 24),
  });
  const full = {
    text: 'Lisinopril 10 mg tablet',
    value: '554704',
    disabled: false,
    description: 'oral',
    annotations: ['generic'],
    extra: {
      coding: [
        { code: 554704, display: 'Lisinopril 10 mg', system: CodeSystems.FDB },
        { code: '314076', system: CodeSystems.RXNORM },
      ],
    },
  };
  assert.deepEqual(accept('medicationStatement', { medication: JSON.stringify(full) }), { medication: full });
  assert.deepEqual(accept('medicationStatement', { medication: full }), { medication: full });
  // Normalised keys are exactly these, in this order.
  const normalised = accept('stopMedication', { medication: JSON.stringify({ value: 7, text: 'Aspirin' }) });
  assert.deepEqual(Object.keys(normalised['medication'] as object), ['text', 'value', 'disabled', 'description', 'annotations', 'extra']);
  // Free objects in extra (questionnaire definition) are kept.
  const questionnaire = option('PHQ-9', 3, { extra: { pk: 3, name: 'PHQ-9', questions: [] } });
  assert.deepEqual(accept('questionnaire', { questionnaire }), {
    questionnaire: { ...normalisedOption('PHQ-9', 3), extra: { pk: 3, name: 'PHQ-9', questions: [] } },
  });
});

test('AutocompleteField: rejects what is not an option', () => {
  const path = 'values.condition';
  for (const bad of ['not json', '[1,2]', '"text"', 'null', '42', 42, true, [option('A', 1)]]) {
    rejectOne('assess', { condition: bad }, path, /option object/);
  }
  rejectOne('assess', { condition: { value: 1 } }, path, /text/);
  rejectOne('assess', { condition: option('', 1) }, path, /text/);
  rejectOne('assess', { condition: option('x'.repeat(501), 1) }, path, /text/);
  accept('assess', { condition: option('x'.repeat(500), 'v'.repeat(500)) });
  rejectOne('assess', { condition: { text: 'A' } }, path, /value/);
  rejectOne('assess', { condition: option('A', 'v'.repeat(501)) }, path, /value/);
  rejectOne('assess', { condition: option('A', Number.POSITIVE_INFINITY) }, path, /value/);
  rejectOne('assess', { condition: { text: 'A', value: { id: 1 } } }, path, /value/);
  rejectOne('assess', { condition: option('A', 1, { colour: 'red' }) }, path, /unknown option key 'colour'/);
  rejectOne('assess', { condition: option('A', 1, { disabled: true }) }, path, /^option is disabled$/);
  rejectOne('assess', { condition: option('A', 1, { disabled: 'no' }) }, path, /disabled/);
  rejectOne('assess', { condition: option('A', 1, { description: 5 }) }, path, /description/);
  rejectOne('assess', { condition: option('A', 1, { annotations: {} }) }, path, /annotations/);
  rejectOne('assess', { condition: option('A', 1, { extra: [] }) }, path, /extra/);
  rejectOne('assess', { condition: option('A', 1, { extra: 'x' }) }, path, /extra/);
  // Several problems in one option are all reported.
  assert.equal(reject('assess', { condition: { text: '', value: null, bad: 1 } }).length, 3);
});

test('AutocompleteField: extra.coding shape and coding systems', () => {
  const withCoding = (coding: unknown) => option('A', 1, { extra: { coding } });
  const icd = { code: 'M54.50', display: 'Low back pain', system: CodeSystems.ICD10 };
  accept('diagnose', { diagnose: withCoding([icd]) });
  accept('diagnose', { diagnose: withCoding([{ code: 'back pain', system: 'UNSTRUCTURED' }]) });
  accept('diagnose', { diagnose: withCoding([]) });
  const path = 'values.diagnose';
  rejectOne('diagnose', { diagnose: withCoding([{ code: '1', system: CodeSystems.RXNORM }]) }, path, /system .* not allowed/);
  rejectOne('diagnose', { diagnose: withCoding(icd) }, path, /coding must be a list/);
  rejectOne('diagnose', { diagnose: withCoding(Array.from({ length: 11 }, () => icd)) }, path, /at most 10/);
  accept('diagnose', { diagnose: withCoding(Array.from({ length: 10 }, () => icd)) });
  rejectOne('diagnose', { diagnose: withCoding([{ code: true, system: CodeSystems.ICD10 }]) }, path, /code/);
  rejectOne('diagnose', { diagnose: withCoding([{ display: 'x', system: CodeSystems.ICD10 }]) }, path, /code/);
  rejectOne('diagnose', { diagnose: withCoding([{ code: 'x', display: 1, system: CodeSystems.ICD10 }]) }, path, /display/);
  rejectOne('diagnose', { diagnose: withCoding([{ code: 'x' }]) }, path, /system/);
  rejectOne('diagnose', { diagnose: withCoding(['M54.50']) }, path, /coding\[0\]/);
  // A field that declares no coding systems accepts any system.
  accept('assess', { condition: withCoding([{ code: '1', system: CodeSystems.SNOMED }, icd]) });
  accept('instruct', { instruct: withCoding([{ code: '1', system: CodeSystems.SNOMED }]) });
  rejectOne('instruct', { instruct: withCoding([icd]) }, 'values.instruct', /not allowed/);
  accept('perform', { perform: withCoding([{ code: 'J1100', system: CodeSystems.HCPCS }]) });
  accept('labOrder', { tests: [withCoding([{ code: '2345-7', system: CodeSystems.LOINC }])] });
  accept('reasonForVisit', { coding: withCoding([icd, { code: '1', system: CodeSystems.SNOMED }]) });
});

test('multiple AutocompleteField: list of options, maxItems, distinct values', () => {
  assert.deepEqual(accept('prescribe', { indications: [option('A', 'M54.50'), JSON.stringify(option('B', 'I10'))] }), {
    indications: [normalisedOption('A', 'M54.50'), normalisedOption('B', 'I10')],
  });
  assert.deepEqual(accept('prescribe', { indications: [] }), { indications: [] });
  rejectOne('prescribe', { indications: option('A', 1) }, 'values.indications', /list/);
  rejectOne('prescribe', { indications: JSON.stringify([option('A', 1)]) }, 'values.indications', /list/);
  rejectOne('prescribe', { indications: [option('A', 1), option('B', 2), option('C', 3)] }, 'values.indications', /at most 2/);
  rejectOne('prescribe', { indications: [option('A', 'I10'), option('B', 'I10')] }, 'values.indications[1]', /duplicate/);
  rejectOne('prescribe', { indications: [option('A', 1), 'garbage'] }, 'values.indications[1]', /option object/);
  rejectOne('prescribe', { indications: [option('A', 1, { disabled: true })] }, 'values.indications[0]', /disabled/);

  const tests = Array.from({ length: 20 }, (_, i) => option(`T${i}`, i));
  accept('labOrder', { tests });
  rejectOne('labOrder', { tests: [...tests, option('T20', 20)] }, 'values.tests', /at most 20/);
  const diagnoses = Array.from({ length: 13 }, (_, i) => option(`D${i}`, i));
  rejectOne('labOrder', { diagnosis: diagnoses }, 'values.diagnosis', /at most 12/);
  accept('labOrder', { diagnosis: diagnoses.slice(0, 12) });
});

// ---------------------------------------------------------------------------------------
// Required at commit

test('missingRequired: absent, null, empty string and empty list are missing', () => {
  const prescribe = kind('prescribe');
  assert.deepEqual(
    missingRequired(prescribe, {}).map((e) => e.field),
    EXPECTED_REQUIRED['prescribe']?.map((name) => `values.${name}`),
  );
  const complete = {
    prescribe: normalisedOption('Lisinopril', '554704'),
    sig: 'one a day',
    quantity_to_dispense: '30',
    type_to_dispense: normalisedOption('tablet', 'C48542'),
    refills: 0,
    substitutions: 'allowed',
    prescriber: normalisedOption('Dr A', 'abc'),
  };
  assert.deepEqual(missingRequired(prescribe, complete), []);
  // refills 0 is a value, not missing.
  assert.deepEqual(
    missingRequired(prescribe, { ...complete, sig: '', refills: 0, prescriber: null }).map((e) => e.field),
    ['values.sig', 'values.prescriber'],
  );
  const labOrder = kind('labOrder');
  const missing = missingRequired(labOrder, { lab_partner: normalisedOption('Quest', 1), tests: [], diagnosis: [] });
  assert.deepEqual(
    missing.map((e) => e.field),
    ['values.tests', 'values.ordering_provider'],
  );
  assert.match(missing[0]?.message ?? '', /tests/);
  assert.deepEqual(missingRequired(kind('reasonForVisit'), {}), []);
  assert.deepEqual(missingRequired(kind('goal'), { goal_statement: 'Walk daily' }), []);
  assert.deepEqual(
    missingRequired(kind('educationalMaterial'), {}).map((e) => e.field),
    ['values.title', 'values.language'],
  );
  // Inherited properties do not count.
  assert.deepEqual(missingRequired(kind('hpi'), Object.create({ narrative: 'x' }) as Record<string, unknown>).length, 1);
});
