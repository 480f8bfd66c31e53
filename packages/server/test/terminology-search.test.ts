// Autocomplete over the terminologies, on both engines: concepts written by storeConcepts, then
// searched through the API — every word matches a word prefix, in any order; case and accents
// ignored; inactive codes never offered; query syntax in a search term is plain text; the option
// shape of the spec; a picked option round-trips through PATCH and commit, and a value that is not
// an option is a 400 naming the field. The ranking rules of docs/api.md ("How a search matches
// and ranks") one by one, and the usage rank kept across imports. The query plans of the searches
// are index lookups, never table scans. (The ranking measured over the starter set with common
// clinical searches: terminology-ranking.test.ts.)
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { CompiledQuery, sql } from 'kysely';
import { ENGINES, startInstance, type Instance } from './support/harness.ts';
import { CodeSystems } from '@charta/api/constants';
import { storeConcepts } from '../src/terminology/store.ts';
import { searchConcepts } from '../src/terminology/search.ts';
import { conceptSearchQueries, conceptSearchValues, conceptsByWords, findConcept, withWordIndex } from '../src/storage/concepts-repository.ts';
import type { ConceptRecord } from '../src/terminology/systems.ts';

const ICD: ConceptRecord[] = [
  ['E11.9', 'Type 2 diabetes mellitus without complications'],
  ['E11.65', 'Type 2 diabetes mellitus with hyperglycemia'],
  ['E11.21', 'Type 2 diabetes mellitus with diabetic nephropathy'],
  ['E10.9', 'Type 1 diabetes mellitus without complications'],
  ['E23.2', 'Diabetes insipidus'],
  ['Z83.3', 'Family history of diabetes mellitus'],
  ['R73.03', 'Prediabetes'],
  ['I10', 'Essential (primary) hypertension'],
  ['M35.00', 'Sjögren syndrome, unspecified'],
  ['M54.50', 'Low back pain, unspecified'],
].map(([code, display]) => ({ code: code!, display: display!, active: true }));
const HEADER: ConceptRecord = { code: 'E11', display: 'Type 2 diabetes mellitus', active: false, extra: { billable: false } };
const RXNORM: ConceptRecord[] = [
  { code: '197361', display: 'amlodipine 5 MG Oral Tablet', active: true, extra: { tty: 'SCD' } },
  { code: '314076', display: 'lisinopril 10 MG Oral Tablet', active: true, extra: { tty: 'SCD' } },
];

type Option = { text: string; value: string };
const docOf = (option: Option) =>
  JSON.parse(option.value) as { text: string; value: string; extra: { coding: Array<{ code: string; system: string; display: string }> } };
const codes = (options: Option[]) => options.map((o) => docOf(o).value);

for (const engine of ENGINES) {
  describe(`terminology autocomplete (${engine})`, () => {
    let api: Instance;
    let diagnose: string;
    let prescribe: string;
    const search = async (uuid: string, field: string, term: string, extra = '') => {
      const r = await api.call('GET', `/core/api/v1/commands/${uuid}/fields/${field}/autocomplete/?search_term=${encodeURIComponent(term)}${extra}`);
      assert.equal(r.status, 200, r.text);
      return r.json as Option[];
    };

    before(async () => {
      api = await startInstance(engine);
      // Only the fixtures below: the starter set would blur what each search must find.
      await api.storage.db.deleteFrom('concepts').where('system', 'in', [CodeSystems.ICD10, CodeSystems.RXNORM]).execute();
      await storeConcepts(api.storage, CodeSystems.ICD10, [...ICD, HEADER]);
      await storeConcepts(api.storage, CodeSystems.RXNORM, RXNORM);
      diagnose = (await api.command('diagnose')).uuid;
      prescribe = (await api.command('prescribe')).uuid;
    });
    after(async () => api?.stop());

    it('an exact code ranks first, with or without its dot, in any case', async () => {
      assert.equal(codes(await search(diagnose, 'diagnose', 'E11.9'))[0], 'E11.9');
      assert.equal(codes(await search(diagnose, 'diagnose', 'e119'))[0], 'E11.9');
      assert.deepEqual(codes(await search(diagnose, 'diagnose', 'i10')), ['I10']);
    });

    it('a display starting with the word ranks before matches elsewhere; every word must match a word prefix', async () => {
      const found = codes(await search(diagnose, 'diagnose', 'diab'));
      assert.equal(found[0], 'E23.2', 'the display that starts with the word comes first');
      assert.deepEqual(new Set(found), new Set(['E23.2', 'E11.9', 'E11.65', 'E11.21', 'E10.9', 'Z83.3']));
      assert.ok(!found.includes('R73.03'), '"Prediabetes" has no word starting with "diab"');
    });

    it('several words in any order, by prefix', async () => {
      for (const term of ['mellitus type 2', 'type 2 melli', '2 TYPE dia wiTH']) {
        const found = new Set(codes(await search(diagnose, 'diagnose', term)));
        assert.ok(
          [...found].every((c) => c.startsWith('E11.')),
          `${term}: ${[...found]}`,
        );
        assert.ok(found.has('E11.65'), term);
      }
      assert.deepEqual(codes(await search(diagnose, 'diagnose', 'nephro diabetic')), ['E11.21']);
    });

    it('case and accents are ignored', async () => {
      for (const term of ['sjogren', 'SJÖGREN', 'Sjo\u0308gren syndr']) assert.deepEqual(codes(await search(diagnose, 'diagnose', term)), ['M35.00'], term);
    });

    it('an inactive code is never offered, even by its exact code', async () => {
      const found = codes(await search(diagnose, 'diagnose', 'E11'));
      assert.ok(!found.includes('E11'));
      assert.deepEqual(new Set(found), new Set(['E11.9', 'E11.65', 'E11.21']));
    });

    it('each field searches its own system', async () => {
      assert.deepEqual(codes(await search(prescribe, 'prescribe', 'amlo')), ['197361']);
      assert.deepEqual(codes(await search(prescribe, 'prescribe', 'diab')), []);
      assert.deepEqual(codes(await search(prescribe, 'indications', 'hypert')), ['I10']);
    });

    it('the option shape of the spec', async () => {
      const [option] = await search(diagnose, 'diagnose', 'E11.9');
      assert.deepEqual(Object.keys(option!).sort(), ['text', 'value']);
      assert.equal(option!.text, 'Type 2 diabetes mellitus without complications');
      assert.deepEqual(JSON.parse(option!.value), {
        text: 'Type 2 diabetes mellitus without complications',
        disabled: false,
        description: null,
        annotations: ['E11.9'],
        extra: { coding: [{ code: 'E11.9', display: 'Type 2 diabetes mellitus without complications', system: 'ICD-10' }] },
        value: 'E11.9',
      });
    });

    it('limit: 20 by default, up to 100; outside 1–100 is a 400', async () => {
      assert.equal((await search(diagnose, 'diagnose', 'diab', '&limit=2')).length, 2);
      for (const limit of ['0', '101', '-1', 'x']) {
        const r = await api.call('GET', `/core/api/v1/commands/${diagnose}/fields/diagnose/autocomplete/?search_term=diab&limit=${limit}`);
        assert.equal(r.status, 400, limit);
      }
    });

    it('an empty term gives no options; a term over 200 characters is a 400', async () => {
      assert.deepEqual(await search(diagnose, 'diagnose', ''), []);
      assert.deepEqual(await search(diagnose, 'diagnose', '   '), []);
      const r = await api.call('GET', `/core/api/v1/commands/${diagnose}/fields/diagnose/autocomplete/?search_term=${'a'.repeat(201)}`);
      assert.equal(r.status, 400);
    });

    it('query syntax and control characters are plain text, never a 500', async () => {
      const hostile = [
        '"',
        '*',
        'NEAR',
        'diab NEAR/2 type',
        '%',
        '_',
        '%diab%',
        'dia_',
        '"diab"*',
        'diab* OR hyper',
        "') OR 1=1 --",
        'type:* | diab',
        '!diab',
        'diab\u0007',
        '\u0000',
        '^diab',
        '{display}: diab',
        '\\',
        'diab(',
        'AND',
        'OR NOT',
      ];
      for (const term of hostile) {
        const r = await api.call('GET', `/core/api/v1/commands/${diagnose}/fields/diagnose/autocomplete/?search_term=${encodeURIComponent(term)}`);
        assert.ok(r.status === 200 || r.status === 400, `${JSON.stringify(term)} → ${r.status} ${r.text}`);
        if (r.status === 400) assert.equal(r.json.status, 400);
      }
      // Operators are words like any other: nothing here contains the word "near".
      assert.deepEqual(await search(diagnose, 'diagnose', 'diab NEAR type'), []);
      assert.deepEqual(codes(await search(diagnose, 'diagnose', '"diab"*')).length > 0, true);
      assert.deepEqual(await search(diagnose, 'diagnose', '%'), []);
    });

    it('a picked option round-trips: PATCH its value string, commit, read the stored option back', async () => {
      const [option] = await search(diagnose, 'diagnose', 'hyperglycemia');
      const patched = await api.call('PATCH', `/core/api/v1/commands/${diagnose}/`, { body: { values: { diagnose: option!.value } } });
      assert.equal(patched.status, 200, patched.text);
      assert.deepEqual(patched.json.data.diagnose, JSON.parse(option!.value));
      const committed = await api.call('POST', `/core/api/v1/commands/${diagnose}/commit/`);
      assert.equal(committed.status, 200, committed.text);
      const read = await api.call('GET', `/core/api/v1/commands/${diagnose}`);
      assert.deepEqual(read.json.data.diagnose, JSON.parse(option!.value));
    });

    it('the stored option is the catalogue’s, whatever text the client sent; free text is an UNSTRUCTURED coding', async () => {
      const { uuid } = await api.command('prescribe');
      const tampered = { text: 'Something else', value: '197361', extra: { coding: [{ code: '197361', system: CodeSystems.RXNORM, display: 'nonsense' }] } };
      const free = { text: 'Rash', value: 'Rash', extra: { coding: [{ code: 'Rash', display: 'Rash', system: 'UNSTRUCTURED' }] } };
      const r = await api.call('PATCH', `/core/api/v1/commands/${uuid}/`, { body: { values: { prescribe: tampered, indications: [JSON.stringify(free)] } } });
      assert.equal(r.status, 200, r.text);
      assert.equal(r.json.data.prescribe.text, 'amlodipine 5 MG Oral Tablet');
      assert.deepEqual(r.json.data.prescribe.extra.coding, [{ code: '197361', display: 'amlodipine 5 MG Oral Tablet', system: CodeSystems.RXNORM }]);
      assert.deepEqual(r.json.data.indications, [
        {
          text: 'Rash',
          disabled: false,
          description: null,
          annotations: null,
          extra: { coding: [{ code: 'Rash', display: 'Rash', system: 'UNSTRUCTURED' }] },
          value: 'Rash',
        },
      ]);
    });

    it('a value that is not an option is a 400 naming the field; nothing is written', async () => {
      const { uuid } = await api.command('prescribe');
      const before = await api.call('GET', `/core/api/v1/commands/${uuid}`);
      const icd = (code: string) => ({ text: code, value: code, extra: { coding: [{ code, system: 'ICD-10' }] } });
      const cases: Array<[Record<string, unknown>, string, RegExp]> = [
        [
          { prescribe: { text: 'x', value: '999999999' } },
          'values.prescribe',
          /not an option of prescribe: "999999999" is not a known code of http:\/\/www\.nlm\.nih\.gov\/research\/umls\/rxnorm/,
        ],
        [{ indications: [icd('I10'), icd('Z99.999')] }, 'values.indications[1]', /not an option of indications: "Z99\.999" is not a known code of ICD-10/],
        [{ indications: [icd('E11')] }, 'values.indications[0]', /E11 is no longer an active code of ICD-10/],
        [{ indications: [icd('I10'), icd('E11.9'), icd('M54.50')] }, 'values.indications', /at most 2 items/],
        [{ indications: [icd('I10'), icd('I10')] }, 'values.indications[1]', /duplicate option value|the same option/],
      ];
      for (const [values, field, message] of cases) {
        const r = await api.call('PATCH', `/core/api/v1/commands/${uuid}/`, { body: { values } });
        assert.equal(r.status, 400, r.text);
        const error = (r.json.errors as Array<{ field: string; message: string }>).find((e) => e.field === field);
        assert.ok(error, `${field} in ${r.text}`);
        assert.match(error.message, message);
      }
      const created = await api.call('POST', '/core/api/v1/commands/', {
        body: { schemaKey: 'diagnose', noteKey: (await api.note()).noteKey, values: { diagnose: icd('Q99.999') } },
      });
      assert.equal(created.status, 400);
      assert.equal(created.json.errors[0].field, 'values.diagnose');
      const after = await api.call('GET', `/core/api/v1/commands/${uuid}`);
      assert.deepEqual(after.json, before.json);
    });

    describe('ranking rules (docs/api.md, "How a search matches and ranks")', () => {
      const RULES = 'urn:test:ranking-rules';
      const rank = async (term: string, limit = 20) => (await searchConcepts(api.storage.db, engine, [RULES], term, limit)).map((c) => c.display);
      const concept = (code: string, display: string, more: Partial<ConceptRecord> = {}): ConceptRecord => ({ code, display, active: true, ...more });

      before(async () => {
        await storeConcepts(api.storage, RULES, [
          concept('R1', 'Family history of gout'),
          concept('R2', 'Idiopathic gout'),
          concept('R3', 'Gout due to renal impairment'),
          concept('R4', 'Gout, unspecified'),
          concept('R5', 'Gout', { extra: { billable: false } }),
          concept('R6', 'Goutte de lait', { usageRank: 1 }),
          concept('R7', 'Obesity, class 1'),
          concept('R8', 'Obesity, unspecified'),
          concept('R9', 'Asthmatic bronchitis'),
          concept('R10', 'Cough variant asthma'),
          concept('R11', 'Resistant hypertension'),
          concept('R12', 'Renovascular hypertension'),
          concept('R13', 'Essential (primary) hypertension', { usageRank: 2 }),
          concept('Q42', 'Zygomatic arch fracture'),
        ]);
      });

      it('the exact code first, whatever its display', async () => {
        assert.equal((await rank('q42'))[0], 'Zygomatic arch fracture');
      });

      it('a header code after every billable one; a display that is the term (no-detail words aside) first', async () => {
        const found = await rank('gout');
        assert.equal(found[0], 'Gout, unspecified');
        assert.equal(found.at(-1), 'Gout', 'a header (extra.billable false), though its display is the term');
        assert.equal((await rank('obesity'))[0], 'Obesity, unspecified', '"unspecified" is no extra word: shorter "Obesity, class 1" comes after');
      });

      it('whole-word matches before prefix matches, even of a used concept', async () => {
        assert.deepEqual(await rank('asthma'), ['Cough variant asthma', 'Asthmatic bronchitis']);
        const gout = await rank('gout');
        assert.equal(gout.at(-2), 'Goutte de lait', 'ranked 1, but "gout" only starts a word of it');
      });

      it('among matches of the same quality, the used concept first', async () => {
        assert.equal((await rank('hypertension'))[0], 'Essential (primary) hypertension');
        assert.equal((await rank('hypert'))[0], 'Essential (primary) hypertension');
      });

      it('then the display starting with the term, then the term’s words earlier, then fewer extra words, then shorter', async () => {
        assert.deepEqual((await rank('gout')).slice(1, 4), ['Gout due to renal impairment', 'Idiopathic gout', 'Family history of gout']);
        assert.deepEqual((await rank('hypertension')).slice(1), ['Resistant hypertension', 'Renovascular hypertension']);
      });

      it('a used concept is found however many others match first in every index (the usage-rank query)', async () => {
        const many = Array.from({ length: 300 }, (_, i) => concept(`M${i}`, `Migraine variant ${i} with aura`));
        await storeConcepts(api.storage, `${RULES}:many`, [...many, concept('M-used', 'Chronic migraine without aura', { usageRank: 1 })]);
        const found = await searchConcepts(api.storage.db, engine, [`${RULES}:many`], 'migraine', 5);
        assert.equal(found[0]?.code, 'M-used');
      });

      it('an import without usage ranks keeps the stored ones; the starter set gives its rank to an imported concept', async () => {
        await storeConcepts(api.storage, RULES, [concept('R13', 'Essential (primary) hypertension', { extra: { billable: true } })]);
        assert.equal((await findConcept(api.storage.db, RULES, 'R13'))?.usage_rank, 2);
        await storeConcepts(api.storage, RULES, [concept('R11', 'Starter wording', { usageRank: 3 })], undefined, 'keep');
        const kept = await findConcept(api.storage.db, RULES, 'R11');
        assert.deepEqual([kept?.display, kept?.usage_rank], ['Resistant hypertension', 3]);
      });
    });

    // PostgreSQL's word index holds prefixes of up to six characters: a longer word is looked up
    // by its first six, and the row must still have a word that starts with all of it.
    it('a word longer than six characters matches the words it starts, not those that only share its first six', async () => {
      const S = 'urn:test:long-words';
      await storeConcepts(api.storage, S, [
        { code: 'L1', display: 'Hypertensive heart disease', active: true },
        { code: 'L2', display: 'Hypertrophy of breast', active: true },
        { code: 'L3', display: 'Benign hypertensive kidney', active: true },
        { code: 'L4', display: 'Kidney stone', active: true },
      ]);
      const words = async (...w: string[]) => (await conceptsByWords(api.storage.db, engine, S, w, 10)).map((r) => r.code).sort();
      assert.deepEqual(await words('hypertens'), ['L1', 'L3']);
      assert.deepEqual(await words('hypertrop'), ['L2']);
      assert.deepEqual(await words('kidney', 'hypertensive'), ['L3']);
      assert.deepEqual(await words('kid', 'hypertensives'), []);
      assert.deepEqual(await words('hypert'), ['L1', 'L2', 'L3']);
      const found = await searchConcepts(api.storage.db, engine, [S], 'hypertens', 10);
      assert.deepEqual(found.map((c) => c.code).sort(), ['L1', 'L3']);
    });

    it('the searches are index lookups (query plans over 20,000 concepts)', async () => {
      const many: ConceptRecord[] = Array.from({ length: 20_000 }, (_, i) => ({
        code: `T${String(i).padStart(5, '0')}`,
        display: `Test concept ${i} of the ${['alpha', 'beta', 'gamma'][i % 3]} family`,
        active: true,
        ...(i % 10 === 0 ? { usageRank: i / 10 + 1 } : {}),
      }));
      await storeConcepts(api.storage, 'urn:test:plans', many);
      const db = api.storage.db;
      if (engine === 'postgres') await sql`ANALYZE concepts`.execute(db);
      else await sql`ANALYZE`.execute(db);
      // Each plan as the server runs it: the word search inside withWordIndex, the others bare.
      const explain = (compiled: { sql: string; parameters: readonly unknown[] }, words = false) =>
        (words ? withWordIndex : (d: typeof db, _e: string, work: (q: typeof db) => Promise<string>) => work(d))(db, engine, async (q) => {
          const prefix = engine === 'sqlite' ? 'EXPLAIN QUERY PLAN ' : 'EXPLAIN ';
          const { rows } = await q.executeQuery<Record<string, unknown>>(CompiledQuery.raw(prefix + compiled.sql, [...compiled.parameters]));
          return rows.map((r) => String(r.detail ?? r['QUERY PLAN'])).join('\n');
        });
      const [S, V, Q] = ['urn:test:plans', conceptSearchValues, conceptSearchQueries];
      const plans = [
        await explain(Q.byCodeKey(db, V.byCodeKey([S], 'T00042', 20)).compile()),
        await explain(Q.byDisplayStart(db, V.byDisplayStart(S, 'test', ['beta'], 20, 2000)).compile()),
        await explain(Q.byWords(engine, V.byWords(engine, S, ['4242', 'alpha'], 60)).compile(db), true),
        await explain(Q.byWords(engine, V.byWords(engine, S, ['concept', 'family'], 60)).compile(db), true),
        await explain(Q.byUsageRank(db, V.byUsageRank(S, ['alpha'], 60, 2000)).compile()),
      ];
      for (const plan of plans) {
        if (engine === 'sqlite') assert.doesNotMatch(plan, /SCAN concepts(?! VIRTUAL)|SCAN c\b(?! VIRTUAL)/, plan);
        else assert.doesNotMatch(plan, /Seq Scan on concepts/, plan);
      }
      if (engine === 'sqlite') assert.match(plans[2]!, /VIRTUAL TABLE INDEX/, plans[2]);
      else assert.match(plans[2]!, /concepts_search/, plans[2]);
      assert.match(plans[4]!, /concepts_usage_rank/, plans[4]);
    });
  });
}
