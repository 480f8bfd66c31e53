// `charta-server import-terminology` as an operator runs it, on both engines: a release file
// in its official layout (written here) loads into the concepts of its system, a second run
// changes nothing and a newer file updates what changed, the starter set loaded on start never
// overwrites an imported concept, and a wrong file, system or path is refused with its reason
// and stores nothing. Without a terminal nothing but the summary line is printed.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { ENGINES, createDatabase, testConfig, type TestDatabase } from './support/harness.ts';
import { runBinary } from './support/processes.ts';
import { CodeSystems } from '@charta/api/constants';
import { openStorage, type Storage } from '../src/storage/db.ts';
import { findConcept, countConcepts } from '../src/storage/concepts-repository.ts';
import { searchConcepts } from '../src/terminology/search.ts';
import { prepareStorage } from '../src/server.ts';

const ROOT = path.resolve(import.meta.dirname, '../../..');
const BIN = path.join(ROOT, 'packages/server/bin/charta-server.js');

/** One line of the ICD-10-CM order file: order, code, header flag, short and long description at their columns. */
const icd = (order: number, code: string, billable: boolean, short: string, long: string) =>
  `${String(order).padStart(5, '0')} ${code.padEnd(7)} ${billable ? '1' : '0'} ${short.padEnd(60)} ${long}`;

const release = (hypertension: string, extra: string[] = []) =>
  [
    icd(1, 'E11', false, 'Type 2 diabetes mellitus', 'Type 2 diabetes mellitus'),
    icd(2, 'E119', true, 'Type 2 diabetes mellitus without complications', 'Type 2 diabetes mellitus without complications'),
    icd(3, 'E1165', true, 'Type 2 diabetes mellitus with hyperglycemia', 'Type 2 diabetes mellitus with hyperglycemia'),
    icd(4, 'I10', true, hypertension, hypertension),
    ...extra,
  ].join('\r\n');
const RELEASE_1 = release('Essential (primary) hypertension');
const RELEASE_2 = release('Essential (primary) hypertension (revised)', [icd(5, 'R7303', true, 'Prediabetes', 'Prediabetes')]);

/** `charta-server …` on the database, to its exit. */
const run = (args: string[], db: TestDatabase) => runBinary(args, { CHARTA_DATABASE_URL: db.url, CHARTA_DATA_DIR: db.dataDir });

for (const engine of ENGINES) {
  describe(`charta-server import-terminology (${engine})`, () => {
    let db: TestDatabase;
    let storage: Storage;
    const file = (name: string, text: string) => {
      const full = path.join(db.dataDir, name);
      fs.writeFileSync(full, text);
      return full;
    };

    before(async () => {
      db = await createDatabase(engine);
    });
    after(async () => {
      await storage?.close();
      await db?.drop();
    });

    it('loads a release file, prints one summary line, and a second run changes nothing', async () => {
      const first = await run(['import-terminology', '--system', 'icd10cm', '--file', file('order-1.txt', RELEASE_1)], db);
      assert.equal(first.code, 0, first.stderr);
      assert.equal(first.stderr, '', 'no progress output without a terminal');
      const summary = JSON.parse(first.stdout);
      assert.deepEqual(
        { system: summary.system, read: summary.read, stored: summary.stored, skipped: summary.skipped, total: summary.total, active: summary.active },
        { system: 'ICD-10', read: 4, stored: 4, skipped: 0, total: 4, active: 3 },
      );
      const again = await run(['import-terminology', '--system', 'icd10cm', '--file', file('order-1b.txt', RELEASE_1)], db);
      assert.equal(again.code, 0, again.stderr);
      assert.deepEqual([JSON.parse(again.stdout).total, JSON.parse(again.stdout).active], [4, 3]);

      storage = openStorage(db.url);
      const found = await searchConcepts(storage.db, storage.engine, [CodeSystems.ICD10], 'diabetes type 2', 10);
      assert.deepEqual(found.map((c) => c.code).sort(), ['E11.65', 'E11.9'], 'the header E11 is stored inactive and never found');
      assert.deepEqual((await findConcept(storage.db, CodeSystems.ICD10, 'E11'))?.active, 0);
    });

    it('on a terminal it shows a running count (under script(1), a real pseudo-terminal)', async () => {
      const order = file('order-tty.txt', RELEASE_1);
      const command = [process.execPath, BIN, 'import-terminology', '--system', 'icd10cm', '--file', order].map((a) => `'${a}'`).join(' ');
      const r = await new Promise<{ code: number | null; out: string }>((resolve, reject) => {
        const env = { ...process.env, CHARTA_DATABASE_URL: db.url, CHARTA_DATA_DIR: db.dataDir };
        const child = spawn('script', ['-qec', command, '/dev/null'], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
        let out = '';
        child.stdout.on('data', (c) => (out += c));
        child.on('error', reject);
        child.on('close', (code) => resolve({ code, out }));
      });
      assert.equal(r.code, 0, r.out);
      assert.match(r.out, /\rICD-10-CM: 4 concepts stored \(4 lines read\)/);
      assert.match(r.out, /\{"system":"ICD-10",/);
    });

    it('a newer release updates what changed and adds what is new', async () => {
      const r = await run(['import-terminology', '--system', 'icd10cm', '--file', file('order-2.txt', RELEASE_2)], db);
      assert.equal(r.code, 0, r.stderr);
      assert.deepEqual(await countConcepts(storage.db, CodeSystems.ICD10), { total: 5, active: 4 });
      assert.equal((await findConcept(storage.db, CodeSystems.ICD10, 'I10'))?.display, 'Essential (primary) hypertension (revised)');
      const found = await searchConcepts(storage.db, storage.engine, [CodeSystems.ICD10], 'revised', 10);
      assert.deepEqual(
        found.map((c) => c.code),
        ['I10'],
        'the search index follows the new display',
      );
    });

    it('the starter set loaded on start keeps imported concepts as they are', async () => {
      const prepared = await prepareStorage(testConfig(db));
      try {
        assert.equal((await findConcept(prepared.storage.db, CodeSystems.ICD10, 'I10'))?.display, 'Essential (primary) hypertension (revised)');
        const starter = await countConcepts(prepared.storage.db, CodeSystems.RXNORM);
        assert.ok(starter.total > 0, 'the starter medications are there');
      } finally {
        await prepared.storage.close();
      }
    });

    it('SNOMED CT: with --concepts, concepts the concept snapshot marks inactive are stored inactive', async () => {
      const row = (id: string, concept: string, term: string) =>
        [id, '20250101', '1', '900000000000207008', concept, 'en', '900000000000003001', term, '900000000000448009'].join('\t');
      const descriptions = file(
        'sct2_Description_Snapshot-en_INT.txt',
        [
          'id\teffectiveTime\tactive\tmoduleId\tconceptId\tlanguageCode\ttypeId\tterm\tcaseSignificanceId',
          row('751689013', '22298006', 'Myocardial infarction (disorder)'),
          row('2150371022', '7000001', 'Retired concept (disorder)'),
        ].join('\n'),
      );
      const concepts = file(
        'sct2_Concept_Snapshot_INT.txt',
        [
          'id\teffectiveTime\tactive\tmoduleId\tdefinitionStatusId',
          '22298006\t20020131\t1\t900000000000207008\t900000000000073002',
          '7000001\t20200131\t0\t900000000000207008\t900000000000074008',
        ].join('\n'),
      );
      const r = await run(['import-terminology', '--system', 'snomed', '--file', descriptions, '--concepts', concepts], db);
      assert.equal(r.code, 0, r.stderr);
      assert.deepEqual([JSON.parse(r.stdout).total, JSON.parse(r.stdout).active], [2, 1]);
      assert.equal((await findConcept(storage.db, CodeSystems.SNOMED, '7000001'))?.active, 0);
      const misplaced = await run(['import-terminology', '--system', 'icd10cm', '--file', descriptions, '--concepts', concepts], db);
      assert.equal(misplaced.code, 2);
      assert.match(misplaced.stderr, /--concepts is for --system snomed only/);
    });

    it('a file of another format, an unknown system or a missing file is refused and stores nothing', async () => {
      const before = await countConcepts(storage.db, CodeSystems.ICD10);
      const rxnormBefore = await countConcepts(storage.db, CodeSystems.RXNORM);
      const rrf = file('RXNCONSO.RRF', '197361|ENG|P|L0|PF|S0|Y|A0||||RXNORM|SCD|197361|amlodipine 5 MG Oral Tablet||N|4096|\n');
      const wrong = await run(['import-terminology', '--system', 'icd10cm', '--file', rrf], db);
      assert.equal(wrong.code, 1);
      assert.match(wrong.stderr, /^charta-server: not an ICD-10-CM order file .*line 1/);
      assert.doesNotMatch(wrong.stderr, /\n\s+at /, 'no stack trace');
      const system = await run(['import-terminology', '--system', 'icd9', '--file', rrf], db);
      assert.equal(system.code, 2);
      assert.match(system.stderr, /--system must be one of icd10cm, rxnorm, loinc, hcpcs, cpt, snomed/);
      const missing = await run(['import-terminology', '--system', 'rxnorm', '--file', path.join(db.dataDir, 'nope.rrf')], db);
      assert.equal(missing.code, 2);
      assert.match(missing.stderr, /no such file/);
      assert.deepEqual(await countConcepts(storage.db, CodeSystems.ICD10), before);
      assert.deepEqual(await countConcepts(storage.db, CodeSystems.RXNORM), rxnormBefore, 'nothing of the RxNorm file was stored');
    });
  });
}
