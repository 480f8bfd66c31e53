// A command's JSON written from its stored data (commands/representation.ts): the same bytes as
// serializing the fully parsed view, for any data Charta stores, and what a reader changed is
// what is sent.
import { it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { commandJson, commandPageJson, isStoredView, toView, type CommandView } from '../src/commands/representation.ts';
import type { CommandTable } from '../src/storage/schema.ts';

const rowOf = (data: Record<string, unknown>, over: Partial<CommandTable> = {}): CommandTable => ({
  uuid: '0b5c1c8e-2f0a-4a59-9d3e-1c8e2f0a4a59',
  state: 'committed',
  created_at: 1_763_950_000_123_456,
  updated_at: 1_763_950_001_000_007,
  schema_key: 'plan',
  patient_key: 'a'.repeat(32),
  note_uuid: '7d1f4a2e-5b6c-4d7e-8f90-a1b2c3d4e5f6',
  originated_by: 'b'.repeat(32),
  edited_by: JSON.stringify(['b'.repeat(32), 'c'.repeat(32)]),
  committed_by: 'c'.repeat(32),
  entered_in_error_by: null,
  data: JSON.stringify(data),
  ...over,
});

/** The view with its data parsed up front, as it was before data was spliced. */
const eager = (row: CommandTable) => ({ ...toView(row), data: JSON.parse(row.data) as Record<string, unknown> });

it('writes the same bytes as JSON.stringify of the parsed view, for any stored data', () => {
  fc.assert(
    fc.property(fc.dictionary(fc.string({ unit: 'binary' }), fc.jsonValue()), fc.constantFrom(null, 'd'.repeat(32)), (data, erred) => {
      const row = rowOf(data, { entered_in_error_by: erred });
      assert.equal(commandJson(toView(row)), JSON.stringify(eager(row)));
    }),
    { numRuns: 300 },
  );
});

it('edge cases of stored JSON come out unchanged: escapes, lone surrogates, integer-like keys, large numbers', () => {
  const data = { b: 1, 2: 'two', quote: '"\\\n\t\u0000', lone: '\ud800', emoji: '🩺', big: 1e21, small: 5e-324, neg: -0, nested: [{ a: null }, []], empty: {} };
  const row = rowOf(data);
  assert.equal(commandJson(toView(row)), JSON.stringify(eager(row)));
  assert.deepEqual(JSON.parse(commandJson(toView(row))).data, JSON.parse(JSON.stringify(data)));
});

it('data is parsed only when read, and every copy of the view sees it', () => {
  const row = rowOf({ narrative: 'follow up in 2 weeks' });
  const view = toView(row);
  assert.ok(isStoredView(view));
  assert.deepEqual(JSON.parse(JSON.stringify(view)), eager(row));
  assert.deepEqual({ ...view }, eager(row));
  assert.deepEqual(structuredClone(view), eager(row));
  assert.ok(!isStoredView({ ...view }), 'a copy is a plain object');
  assert.equal(commandJson({ ...view }), commandJson(view), 'a plain copy is written from its parsed data');
});

it('what a reader changes or replaces is what is written', () => {
  const view = toView(rowOf({ narrative: 'before' }));
  view.data.narrative = 'changed in place';
  assert.equal(JSON.parse(commandJson(view)).data.narrative, 'changed in place');
  const replaced = toView(rowOf({ narrative: 'before' }));
  replaced.data = { narrative: 'replaced' };
  assert.deepEqual(JSON.parse(commandJson(replaced)).data, { narrative: 'replaced' });
});

it('a page writes its envelope, then each command from its stored data', () => {
  const rows = [rowOf({ n: 1 }), rowOf({ n: 2 }, { committed_by: null, state: 'staged' })];
  const page = { count: 40, count_is_estimate: false, next: 'http://x/?limit=2&offset=2', previous: null, results: rows.map(toView) as CommandView[] };
  const json = commandPageJson(page);
  assert.equal(json, JSON.stringify({ ...page, results: rows.map(eager) }));
});
