// The editor's sorting of a refusal's reasons (docs/console.md, "The command editor"): each
// value's reason goes to its field (also an item of a list, `values.tests[1]`), a plugin's
// message carries the plugin's name, and what names no field of the form is listed above it.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { sortProblems } from '../src/editor/problems.ts';

describe('sortProblems', () => {
  it('puts each reason next to the field it names, with the plugin that raised it', () => {
    const sorted = sortProblems(
      [
        { field: 'values.narrative', message: 'narrative is required to commit plan' },
        { field: 'values.tests[1]', message: 'is a test of another lab partner' },
        { field: 'narrative', message: 'Say when to follow up', plugin: 'follow-up-flag' },
        { field: 'command', message: 'Not on a Sunday', plugin: 'calendar' },
        { field: 'values.unknown', message: 'Unknown field' },
        { message: 'no field at all' },
      ],
      ['narrative', 'tests'],
    );
    assert.deepEqual(sorted.byField, {
      narrative: ['narrative is required to commit plan', 'follow-up-flag: Say when to follow up'],
      tests: ['is a test of another lab partner'],
    });
    assert.deepEqual(sorted.general, ['calendar: Not on a Sunday', 'values.unknown: Unknown field', 'no field at all']);
  });
});
