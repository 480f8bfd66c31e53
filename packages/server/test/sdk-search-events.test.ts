// The SDK's list of after-search events is the server's list of autocomplete fields
// (docs/plugins.md, "Events"): SEARCH_FIELDS of @charta/plugin-sdk names, per kind, exactly the
// fields of type AutocompleteField, in the same order, so the two cannot drift apart.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { COMMAND_EVENT_PREFIXES, SEARCH_FIELDS, searchEvent, type AutocompleteOption, type SearchField } from '@charta/plugin-sdk';
import { commandKinds } from '../src/commands/kinds/index.ts';
import type { OptionDoc } from '../src/autocomplete/types.ts';

describe("the SDK's after-search events", () => {
  it('the SDK knows the same kinds as the server', () => {
    assert.deepEqual(Object.keys(COMMAND_EVENT_PREFIXES).sort(), [...commandKinds.keys()].sort());
  });

  it("SEARCH_FIELDS lists each kind's AutocompleteFields, in the order the kind lists them", () => {
    const server = Object.fromEntries(
      [...commandKinds].map(([key, kind]) => [key, kind.fields.filter((f) => f.type === 'AutocompleteField').map((f) => f.name)]),
    );
    const sdk = Object.fromEntries(Object.entries(SEARCH_FIELDS).map(([key, fields]) => [key, [...fields]]));
    assert.deepEqual(sdk, server);
  });

  it('no two autocomplete fields share an event name', () => {
    const names = [...commandKinds].flatMap(([key, kind]) =>
      kind.fields.filter((f) => f.type === 'AutocompleteField').map((f) => searchEvent(key as keyof typeof SEARCH_FIELDS, f.name as SearchField)),
    );
    assert.equal(new Set(names).size, names.length);
  });

  it("the SDK's AutocompleteOption is the server's option document", () => {
    // Checked by the typecheck: each is assignable to the other.
    const doc: OptionDoc = { text: 'Asthma', disabled: false, description: null, annotations: ['x'], extra: { coding: [] }, value: 'J45' };
    const option: AutocompleteOption = doc;
    const back: OptionDoc = option;
    assert.deepEqual(back, doc);
  });
});
