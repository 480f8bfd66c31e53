// Ranking over the starter set, on both engines: each common clinical search of
// test/fixtures/ranking-searches.json (diagnoses, drugs, lab tests, procedures, instructions)
// finds the concept a clinician means in the top 3 of its field's autocomplete answer, through
// the endpoint the console calls, on a real server with the starter terminologies and the demo
// reference data (its lab partners' catalogues). The rules are in docs/api.md, "How a search
// matches and ranks"; the same list gives the bench's figure over 300k concepts.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { CodeSystems } from '@charta/api/constants';
import { ENGINES, startInstance, type Instance } from './support/harness.ts';
import { readRankingSearches, runRankingSearches, type RankingResult } from './support/ranking.ts';
import { findConcept } from '../src/storage/concepts-repository.ts';
import { loadDemoReference } from '../src/reference/starter.ts';

const SEARCHES = readRankingSearches();

describe('the ranking searches', () => {
  it('are at least 40, spread over the systems of the starter set, each term once per field', () => {
    assert.ok(SEARCHES.length >= 40, `${SEARCHES.length} searches`);
    const systems = new Set(SEARCHES.map((s) => s.system));
    for (const system of [CodeSystems.ICD10, CodeSystems.RXNORM, CodeSystems.LOINC, CodeSystems.HCPCS, CodeSystems.UNSTRUCTURED])
      assert.ok(systems.has(system), system);
    const keys = SEARCHES.map((s) => `${s.command}.${s.field} ${s.term}`);
    assert.equal(new Set(keys).size, keys.length, 'no search twice');
  });
});

for (const engine of ENGINES) {
  describe(`ranking over the starter set (${engine})`, () => {
    let api: Instance;
    let results: RankingResult[];

    before(async () => {
      api = await startInstance(engine);
      await loadDemoReference(api.storage);
      results = await runRankingSearches({ url: api.url, token: api.token, noteKey: (await api.note()).noteKey }, SEARCHES);
    });
    after(async () => api?.stop());

    it('the starter set holds every expected concept, active', async () => {
      // Lab tests are the demo partners' catalogue entries (found by their LOINC coding below).
      for (const s of SEARCHES.filter((x) => x.system !== CodeSystems.LOINC)) {
        const row = await findConcept(api.storage.db, s.system, s.code);
        assert.equal(row?.active, 1, `${s.system} ${s.code}`);
      }
    });

    for (const [i, s] of SEARCHES.entries()) {
      it(`${JSON.stringify(s.term)} (${s.command}.${s.field}) finds ${s.code} in the top 3`, () => {
        const r = results[i]!;
        assert.ok(r.rank !== null && r.rank <= 3, `${s.code} is ${r.rank === null ? 'not in the page' : `number ${r.rank}`}; the top 3: ${r.top.join(' | ')}`);
      });
    }
  });
}
