// The editor's sorting of a refusal's reasons (docs/console.md, "The command editor"): each
// value's reason goes to its field (also an item of a list, `values.tests[1]`), worded with the
// field's label rather than its raw name; a plugin's message carries the plugin's name; what names
// no field of the form is listed above it; and each reason is shown once: with a reason at a
// field, the banner says where to look instead of the problem's message, which restates them all.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { sortProblems } from '../src/editor/problems.ts';

describe('sortProblems', () => {
  it("puts each reason next to the field it names, with the field's label and the plugin that raised it", () => {
    const sorted = sortProblems(
      [
        { field: 'values.narrative', message: 'narrative is required to commit plan' },
        { field: 'values.tests[1]', message: 'the same option as an earlier item (CBC)' },
        { field: 'values.quantity_to_dispense', message: 'must be at least 1' },
        { field: 'narrative', message: 'Say when to follow up', plugin: 'follow-up-flag' },
        { field: 'command', message: 'Not on a Sunday', plugin: 'calendar' },
        { field: 'values.unknown', message: 'Unknown field' },
        { message: 'no field at all' },
      ],
      [{ name: 'narrative' }, { name: 'tests', label: 'Lab tests' }, { name: 'quantity_to_dispense' }],
    );
    assert.deepEqual(sorted.byField, {
      narrative: ['Narrative is required to commit.', 'follow-up-flag: Say when to follow up'],
      tests: ['Lab tests, item 2: the same option as an earlier item (CBC)'],
      quantity_to_dispense: ['Quantity to dispense must be at least 1'],
    });
    assert.deepEqual(sorted.general, ['calendar: Not on a Sunday', 'values.unknown: Unknown field', 'no field at all']);
    assert.equal(sorted.summary, 'Refused by follow-up-flag, calendar: see Narrative, Lab tests and Quantity to dispense below.');
  });

  it("says where to look without the reason, or leaves the problem's message alone when no reason sits at a field", () => {
    const required = sortProblems([{ field: 'values.diagnose', message: 'diagnose is required to commit diagnose' }], [{ name: 'diagnose' }]);
    assert.deepEqual(required, { byField: { diagnose: ['Diagnose is required to commit.'] }, general: [], summary: 'Not accepted: see Diagnose below.' });
    // The problem's message ("Refused by calendar: Not on a Sunday") already quotes it: not listed again.
    assert.deepEqual(sortProblems([{ field: 'command', message: 'Not on a Sunday', plugin: 'calendar' }], [{ name: 'narrative' }]), {
      byField: {},
      general: [],
    });
  });
});
