// The starter set in data/starter/: every file well formed (its columns, no duplicate codes),
// loaded on a first start so each row is searchable, and not loaded again while unchanged.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ENGINES, startInstance, type Instance } from './support/harness.ts';
import { countConcepts } from '../src/storage/concepts-repository.ts';
import { searchConcepts } from '../src/terminology/search.ts';
import { STARTER_FILES, loadStarterTerminology, readStarterRows } from '../src/terminology/starter.ts';

describe('starter set files', () => {
  for (const starter of STARTER_FILES) {
    it(`${starter.file}: every row has its columns and a distinct code`, () => {
      const rows = readStarterRows(starter.file, starter.columns);
      const codes = rows.map((r) => starter.record(r).code);
      assert.equal(new Set(codes).size, codes.length, 'no duplicate code');
      for (const row of rows) for (const cell of row) assert.doesNotMatch(cell, /[\u0000-\u001f]/, 'no control characters');
    });
  }

  it('icd10cm.tsv: usage ranks are 1, 2, 3… each given once (README.md, "Usage ranks")', () => {
    const icd = STARTER_FILES.find((f) => f.file === 'icd10cm.tsv')!;
    const ranks = readStarterRows(icd.file, icd.columns)
      .map((r) => icd.record(r).usageRank)
      .filter((r) => r !== undefined)
      .sort((a, b) => a - b);
    assert.ok(ranks.length > 0);
    assert.deepEqual(
      ranks,
      ranks.map((_, i) => i + 1),
    );
    assert.throws(() => icd.record(['I10', 'Essential (primary) hypertension', 'first']), /usage_rank of I10 is not a positive integer/);
    assert.throws(() => icd.record(['I10', 'Essential (primary) hypertension', '0']), /not a positive integer/);
  });
});

for (const engine of ENGINES) {
  describe(`starter set on a first start (${engine})`, () => {
    let api: Instance;
    before(async () => {
      api = await startInstance(engine);
    });
    after(async () => api?.stop());

    it('every row of every file is stored and found by its own display', async () => {
      for (const starter of STARTER_FILES) {
        const rows = readStarterRows(starter.file, starter.columns).map(starter.record);
        assert.deepEqual(await countConcepts(api.storage.db, starter.system), { total: rows.length, active: rows.length }, starter.file);
        for (const record of rows.filter((_, i) => i % 7 === 0)) {
          const found = await searchConcepts(api.storage.db, engine, [starter.system], record.display, 100);
          assert.ok(
            found.some((c) => c.code === record.code),
            `${starter.file}: "${record.display}" finds ${record.code}`,
          );
        }
      }
    });

    it('is not loaded again while its files are unchanged', async () => {
      assert.equal(await loadStarterTerminology(api.storage), false);
    });
  });
}
