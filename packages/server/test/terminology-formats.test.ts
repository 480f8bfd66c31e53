// The release-file parsers of import-terminology: each reads a small file written in the official
// layout (BOMs, CRLF, continuation lines, quoted CSV fields, rows to leave out), through a real
// file stream, and yields exactly the expected concepts; a file of another format is refused
// naming the line, and a malformed line after a good start is skipped and counted.
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { TERMINOLOGIES, type ConceptRecord, type TerminologyName } from '../src/terminology/systems.ts';
import {
  TERMINOLOGY_FORMATS,
  TerminologyFormatError,
  createParseStats,
  icd10cmWithDot,
  parseCpt,
  parseHcpcs,
  parseIcd10cm,
  parseLoinc,
  parseRxnorm,
  parseSnomed,
  parseTerminology,
  readSnomedInactiveConcepts,
  splitSemanticTag,
  type ParseStats,
} from '../src/terminology/formats/index.ts';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'charta-terminology-'));
after(() => fs.rmSync(dir, { recursive: true, force: true }));
let files = 0;

function write(content: string): string {
  const file = path.join(dir, `f${++files}.txt`);
  fs.writeFileSync(file, content, 'utf8');
  return file;
}

type Parser = (input: NodeJS.ReadableStream, stats?: ParseStats) => AsyncGenerator<ConceptRecord>;

async function parseFile(parse: Parser, content: string): Promise<{ records: ConceptRecord[]; stats: ParseStats }> {
  const stats = createParseStats();
  const records: ConceptRecord[] = [];
  for await (const record of parse(fs.createReadStream(write(content)), stats)) records.push(record);
  return { records, stats };
}

async function refused(parse: Parser, content: string, message: RegExp): Promise<void> {
  await assert.rejects(parseFile(parse, content), (err: unknown) => {
    assert.ok(err instanceof TerminologyFormatError, `a TerminologyFormatError, got ${String(err)}`);
    assert.match(err.message, message);
    return true;
  });
}

const BOM = '\uFEFF';
const crlf = (lines: string[]) => lines.map((l) => `${l}\r\n`).join('');
const lf = (lines: string[]) => lines.map((l) => `${l}\n`).join('');

/** A fixed-width line: text placed at 1-based columns, blanks elsewhere. */
function columns(width: number, fields: [column: number, text: string][]): string {
  const chars = Array.from({ length: width }, () => ' ');
  for (const [column, text] of fields) for (let i = 0; i < text.length; i++) chars[column - 1 + i] = text[i]!;
  return chars.join('');
}

// ---------------------------------------------------------------------------------- ICD-10-CM

const icd = (order: number, code: string, flag: string, short: string, long: string) =>
  columns(77, [
    [1, String(order).padStart(5, '0')],
    [7, code],
    [15, flag],
    [17, short],
  ]) + long;

describe('ICD-10-CM order file', () => {
  it('yields codes with the dot, headers inactive, long description as display (BOM, CRLF, trailing blanks)', async () => {
    const content =
      BOM +
      crlf([
        // Written out by hand once, to pin the columns down: order 1-5, code 7-13, flag 15, short 17-76, long 78-.
        '00001 A00     0 Cholera                                                      Cholera',
        icd(2, 'A000', '1', 'Cholera due to Vibrio cholerae 01, biovar cholerae', 'Cholera due to Vibrio cholerae 01, biovar cholerae   '),
        '',
        icd(3, 'E119', '1', 'Type 2 diabetes mellitus without complications', 'Type 2 diabetes mellitus  without\tcomplications'),
        icd(
          4,
          'S72001A',
          '1',
          'Fracture of unsp part of neck of right femur, init',
          'Fracture of unspecified part of neck of right femur, initial encounter for closed fracture',
        ),
        icd(5, 'C4A', '0', 'Merkel cell carcinoma', 'Merkel cell carcinoma'),
      ]);
    const { records, stats } = await parseFile(parseIcd10cm, content);
    assert.deepEqual(records, [
      { code: 'A00', display: 'Cholera', active: false, extra: { billable: false, short: 'Cholera' } },
      {
        code: 'A00.0',
        display: 'Cholera due to Vibrio cholerae 01, biovar cholerae',
        active: true,
        extra: { billable: true, short: 'Cholera due to Vibrio cholerae 01, biovar cholerae' },
      },
      {
        code: 'E11.9',
        display: 'Type 2 diabetes mellitus without complications',
        active: true,
        extra: { billable: true, short: 'Type 2 diabetes mellitus without complications' },
      },
      {
        code: 'S72.001A',
        display: 'Fracture of unspecified part of neck of right femur, initial encounter for closed fracture',
        active: true,
        extra: { billable: true, short: 'Fracture of unsp part of neck of right femur, init' },
      },
      { code: 'C4A', display: 'Merkel cell carcinoma', active: false, extra: { billable: false, short: 'Merkel cell carcinoma' } },
    ]);
    assert.deepEqual(stats, { read: 5, skipped: 0, skippedExamples: [], ignored: 0 });
  });

  it('skips and counts malformed lines after a good first line', async () => {
    const content = lf([
      icd(1, 'A00', '0', 'Cholera', 'Cholera'),
      'this line is not an order-file line',
      icd(3, 'A001', '2', 'Bad flag', 'Bad flag'),
      icd(4, 'A0001', '1', 'No long description', ''),
      icd(5, 'A009', '1', 'Cholera, unspecified', 'Cholera, unspecified'),
    ]);
    const { records, stats } = await parseFile(parseIcd10cm, content);
    assert.deepEqual(
      records.map((r) => r.code),
      ['A00', 'A00.9'],
    );
    assert.equal(stats.read, 5);
    assert.equal(stats.skipped, 3);
    assert.deepEqual(stats.skippedExamples, [
      'line 2: columns 1-5 are not an order number followed by a blank',
      "line 3: column 15 is not the header flag '0' or '1'",
      'line 4: empty long description (columns 78-end)',
    ]);
  });

  it('refuses a file of another format, naming the line', async () => {
    await refused(
      parseIcd10cm,
      lf(['', '197361|ENG||L1|PF|S1|Y|A1|||||RXNORM|SCD|197361|amlodipine 5 MG Oral Tablet||N|4096|']),
      /^not an ICD-10-CM order file .*: line 2: columns 1-5/,
    );
    await refused(parseIcd10cm, '', /no data lines/);
  });

  it('puts the dot after the third character', () => {
    assert.equal(icd10cmWithDot('E119'), 'E11.9');
    assert.equal(icd10cmWithDot('A00'), 'A00');
    assert.equal(icd10cmWithDot('S72001A'), 'S72.001A');
  });
});

// ------------------------------------------------------------------------------------- RxNorm

const rrf = (rxcui: string, lat: string, sab: string, tty: string, str: string, suppress: string) =>
  [rxcui, lat, 'P', 'L0000001', 'PF', 'S0000001', 'Y', `${rxcui}0`, '', '', '', sab, tty, rxcui, str, '0', suppress, '4096'].join('|') + '|';

describe('RxNorm RXNCONSO.RRF', () => {
  it('keeps the RXNORM, English, prescribable term types; SUPPRESS decides active', async () => {
    const content = lf([
      rrf('3', 'ENG', 'SNOMEDCT_US', 'PT', '1,4-alpha-Glucan branching enzyme', 'N'),
      rrf('197361', 'ENG', 'RXNORM', 'SCD', 'amlodipine 5 MG Oral Tablet', 'N'),
      rrf('197361', 'ENG', 'RXNORM', 'SY', 'amlodipine 5mg tab', 'N'),
      rrf('197361', 'ENG', 'RXNORM', 'PSN', 'amLODIPine 5 MG Oral Tablet', 'N'),
      rrf('212549', 'ENG', 'RXNORM', 'SBD', 'amlodipine 5 MG Oral Tablet [Norvasc]', 'N'),
      rrf('104377', 'ENG', 'RXNORM', 'SCD', 'Buspirone hydrochloride 10 MG Oral Tablet', 'O'),
      rrf('104378', 'ENG', 'RXNORM', 'SBD', 'Suppressed  by   editor', 'E'),
      rrf('308136', 'ENG', 'MTHSPL', 'SCD', 'amlodipine 2.5 MG Oral Tablet', 'N'),
      rrf('5555', 'SPA', 'RXNORM', 'SCD', 'amlodipino 5 MG', 'N'),
      '123|ENG|truncated',
      rrf('197361', 'ENG', 'RXNORM', 'SCD', 'amlodipine 5 MG Oral Tablet (again)', 'N'),
      rrf('749762', 'ENG', 'RXNORM', 'GPCK', '{21 (Ethinyl Estradiol 0.035 MG / Norethindrone 0.5 MG Oral Tablet) } Pack', 'N'),
      rrf('749785', 'ENG', 'RXNORM', 'BPCK', '{21 (Ethinyl Estradiol 0.035 MG / Norethindrone 0.5 MG Oral Tablet) } Pack [Ovcon 35 28 Day]', 'N'),
      rrf('999999', 'ENG', 'RXNORM', 'SCD', '   ', 'N'),
    ]);
    const { records, stats } = await parseFile(parseRxnorm, content);
    assert.deepEqual(records, [
      { code: '197361', display: 'amlodipine 5 MG Oral Tablet', active: true, extra: { tty: 'SCD' } },
      { code: '212549', display: 'amlodipine 5 MG Oral Tablet [Norvasc]', active: true, extra: { tty: 'SBD' } },
      { code: '104377', display: 'Buspirone hydrochloride 10 MG Oral Tablet', active: false, extra: { tty: 'SCD' } },
      { code: '104378', display: 'Suppressed by editor', active: false, extra: { tty: 'SBD' } },
      { code: '749762', display: '{21 (Ethinyl Estradiol 0.035 MG / Norethindrone 0.5 MG Oral Tablet) } Pack', active: true, extra: { tty: 'GPCK' } },
      {
        code: '749785',
        display: '{21 (Ethinyl Estradiol 0.035 MG / Norethindrone 0.5 MG Oral Tablet) } Pack [Ovcon 35 28 Day]',
        active: true,
        extra: { tty: 'BPCK' },
      },
    ]);
    assert.deepEqual(stats, {
      read: 14,
      skipped: 2,
      skippedExamples: ['line 10: 3 pipe-separated fields, 18 expected', 'line 14: empty STR (field 15)'],
      ignored: 6, // SNOMEDCT_US, SY, PSN, MTHSPL, SPA, the second 197361
    });
  });

  it('refuses a file of another format, naming the line', async () => {
    await refused(
      parseRxnorm,
      lf([icd(1, 'A00', '0', 'Cholera', 'Cholera')]),
      /^not an RxNorm RXNCONSO\.RRF file: line 1: 1 pipe-separated fields, 18 expected/,
    );
    await refused(
      parseRxnorm,
      BOM + crlf(['RXCUI|LAT|TS|LUI|STT|SUI|ISPREF|RXAUI|SAUI|SCUI|SDUI|SAB|TTY|CODE|STR|SRL|SUPPRESS|CVF|']),
      /line 1: RXCUI \(field 1\) is not a number/,
    );
  });
});

// -------------------------------------------------------------------------------------- LOINC

const LOINC_HEADER =
  '"LOINC_NUM","COMPONENT","PROPERTY","TIME_ASPCT","SYSTEM","SCALE_TYP","METHOD_TYP","CLASS","VersionLastChanged","CHNG_TYPE","DefinitionDescription","STATUS","CONSUMER_NAME","CLASSTYPE","FORMULA","SHORTNAME","LONG_COMMON_NAME"';
const loinc = (code: string, component: string, definition: string, status: string, classType: string, long: string) =>
  [code, component, 'MCnc', 'Pt', 'Ser/Plas', 'Qn', '', 'CHEM', '2.73', 'MIN', definition, status, '', classType, '', 'short', long]
    .map((f) => `"${f.replaceAll('"', '""')}"`)
    .join(',');

describe('LOINC table CSV', () => {
  it('finds columns by name, reads quoted commas, quotes and newlines; ACTIVE and TRIAL are active', async () => {
    const content =
      BOM +
      crlf([
        LOINC_HEADER,
        loinc('2345-7', 'Glucose', 'Glucose, a "simple" sugar,\r\nmeasured in serum', 'ACTIVE', '1', 'Glucose [Mass/volume] in Serum or Plasma'),
        loinc('4548-4', 'Hemoglobin A1c/Hemoglobin.total', '', 'ACTIVE', '1', 'Hemoglobin A1c/Hemoglobin.total in Blood'),
        '',
        loinc('97062-4', 'History of Sexual behavior', '', 'TRIAL', '2', 'History of sexual behavior,\nNarrative'),
        loinc('1000-9', 'DBG Ab', '', 'DEPRECATED', '1', 'DBG Ab [Presence] in Serum or Plasma from Blood product unit'),
        loinc('10000-8', 'R wave duration.lead AVR', '', 'DISCOURAGED', '2', ''),
        loinc('10001-6', 'R wave duration.lead I', '', 'ACTIVE', '', 'R wave duration in lead I'),
      ]);
    const { records, stats } = await parseFile(parseLoinc, content);
    assert.deepEqual(records, [
      { code: '2345-7', display: 'Glucose [Mass/volume] in Serum or Plasma', active: true, extra: { status: 'ACTIVE', class_type: 1 } },
      { code: '4548-4', display: 'Hemoglobin A1c/Hemoglobin.total in Blood', active: true, extra: { status: 'ACTIVE', class_type: 1 } },
      { code: '97062-4', display: 'History of sexual behavior, Narrative', active: true, extra: { status: 'TRIAL', class_type: 2 } },
      {
        code: '1000-9',
        display: 'DBG Ab [Presence] in Serum or Plasma from Blood product unit',
        active: false,
        extra: { status: 'DEPRECATED', class_type: 1 },
      },
      { code: '10000-8', display: 'R wave duration.lead AVR', active: false, extra: { status: 'DISCOURAGED', class_type: 2 } },
      { code: '10001-6', display: 'R wave duration in lead I', active: true, extra: { status: 'ACTIVE' } },
    ]);
    assert.deepEqual(stats, { read: 6, skipped: 0, skippedExamples: [], ignored: 0 });
  });

  it('skips rows with a wrong field count or code after a good first row, naming their first line', async () => {
    const content = lf([
      LOINC_HEADER,
      loinc('2345-7', 'Glucose', 'two\nlines', 'ACTIVE', '1', 'Glucose [Mass/volume] in Serum or Plasma'),
      '"12345-6","too","few"',
      loinc('LP1234-5', 'A part', '', 'ACTIVE', '1', 'Not a term'),
      loinc('2339-0', 'Glucose', '', 'ACTIVE', '1', 'Glucose [Mass/volume] in Blood'),
    ]);
    const { records, stats } = await parseFile(parseLoinc, content);
    assert.deepEqual(
      records.map((r) => r.code),
      ['2345-7', '2339-0'],
    );
    assert.deepEqual(stats, {
      read: 4,
      skipped: 2,
      skippedExamples: ['line 4: 3 fields, the header has 17', 'line 5: LOINC_NUM "LP1234-5" is not a LOINC code'],
      ignored: 0,
    });
  });

  it('refuses a file of another format, naming the line', async () => {
    await refused(
      parseLoinc,
      lf(['id\teffectiveTime\tactive']),
      /^not a LOINC table CSV \(Loinc\.csv\): line 1: the header row lacks LOINC_NUM, STATUS, LONG_COMMON_NAME or COMPONENT/,
    );
    await refused(parseLoinc, lf([LOINC_HEADER, '"not","a","row"']), /line 2: 3 fields, the header has 17/);
    await refused(parseLoinc, lf([LOINC_HEADER, '"2345-7","unclosed']), /^not a LOINC table CSV .*: line 2: .*quote/i);
    await refused(parseLoinc, '', /the file is empty/);
  });
});

// -------------------------------------------------------------------------------------- HCPCS

/** A record of the HCPCS fixed-width layout (HCPC20xx_recordlayout.txt), 320 columns. */
const hcpcs = (code: string, seq: string, ric: string, long: string, short = '', dates: { added?: string; termination?: string; action?: string } = {}) =>
  columns(320, [
    [1, code],
    [6, seq],
    [11, ric],
    [12, long],
    [92, short],
    [120, '00'],
    [128, '9'],
    [269, dates.added ?? ''],
    [285, dates.termination ?? ''],
    [293, dates.action ?? ''],
  ]);

describe('HCPCS Level II record-layout file', () => {
  it('joins continuation lines in sequence order, leaves modifiers out, terminated codes inactive', async () => {
    const content = crlf([
      hcpcs('   25', '00100', '7', 'Significant, separately identifiable evaluation and management service by the same', 'Sig sep e/m svc same day'),
      hcpcs('   25', '00200', '8', 'physician or other qualified health care professional on the same day'),
      hcpcs('A0021', '00100', '3', 'Ambulance service, outside state per mile, transport (medicaid only)', 'Outside state ambulance serv', {
        added: '20000101',
        action: 'N',
      }),
      hcpcs('E0100', '00100', '3', 'Cane, includes canes of all materials,', 'Cane adjust/fixed with tip', { added: '19860101', action: 'N' }),
      hcpcs('E0100', '00300', '4', 'with tip').trimEnd(),
      hcpcs('E0100', '00200', '4', 'adjustable or fixed,'),
      hcpcs('G0438', '00100', '3', 'Annual wellness visit; includes a personalized prevention plan of service (pps),', 'Ppps, initial visit', {
        added: '20110101',
        termination: '20201231',
        action: 'D',
      }),
      hcpcs('G0438', '00200', '4', 'initial visit'),
      hcpcs('G9999', '00100', '3', 'Code terminated later this decade', 'Terminated later', { termination: '20991231' }),
      hcpcs('J0120', '00200', '4', 'orphan continuation line'),
      hcpcs('J0121', '00100', '9', 'unknown record identification code'),
      hcpcs('J0130', '00100', '3', 'Injection abciximab, 10 mg', 'Abciximab injection', { termination: '2020-1-1' }),
      hcpcs('Q0035', '00100', '3', 'Cardiokymography', 'Cardiokymography').trimEnd(),
    ]);
    const stats = createParseStats();
    const records: ConceptRecord[] = [];
    for await (const r of parseHcpcs(fs.createReadStream(write(content)), stats, { asOf: new Date('2025-06-01T00:00:00Z') })) records.push(r);
    assert.deepEqual(records, [
      {
        code: 'A0021',
        display: 'Ambulance service, outside state per mile, transport (medicaid only)',
        active: true,
        extra: { short: 'Outside state ambulance serv' },
      },
      {
        code: 'E0100',
        display: 'Cane, includes canes of all materials, adjustable or fixed, with tip',
        active: true,
        extra: { short: 'Cane adjust/fixed with tip' },
      },
      {
        code: 'G0438',
        display: 'Annual wellness visit; includes a personalized prevention plan of service (pps), initial visit',
        active: false,
        extra: { short: 'Ppps, initial visit', termination_date: '2020-12-31' },
      },
      { code: 'G9999', display: 'Code terminated later this decade', active: true, extra: { short: 'Terminated later', termination_date: '2099-12-31' } },
      { code: 'Q0035', display: 'Cardiokymography', active: true, extra: { short: 'Cardiokymography' } },
    ]);
    assert.deepEqual(stats, {
      read: 13,
      skipped: 3,
      skippedExamples: [
        'line 10: continuation line of J0120 without its first line (record identification code 3)',
        'line 11: record identification code (column 11) "9" is not 3, 4, 7 or 8',
        'line 12: termination date (columns 285-292) is not YYYYMMDD',
      ],
      ignored: 2,
    });
  });

  it('refuses a file of another format, naming the line', async () => {
    await refused(
      parseHcpcs,
      lf([icd(1, 'A00', '0', 'Cholera', 'Cholera')]),
      /^not an HCPCS Level II record-layout file .*: line 1: columns 6-10 are not a sequence number/,
    );
    await refused(parseHcpcs, BOM + lf(['HCPC,SEQNUM,RECID,LONG DESCRIPTION']), /line 1: /);
  });
});

// ---------------------------------------------------------------------------------------- CPT

describe('CPT data files', () => {
  it('reads tab- and space-separated lines after the AMA copyright notice', async () => {
    const content =
      BOM +
      crlf([
        'CPT® 2025 codes and descriptions only are copyright 2024 American Medical Association.',
        'All rights reserved.',
        '',
        '99213\tOffice or other outpatient visit for the evaluation and management of an established patient,  which requires a medically appropriate history and/or examination and low level of medical decision making. ',
        '00100 ANESTH SALIVARY GLAND',
        '0001F\tHeart failure assessed',
        '0042T\tCerebral perfusion analysis using computed tomography',
        '0001U\tRed blood cell antigen typing, DNA, human erythrocyte antigen gene analysis of 35 antigens',
        '9921\tfour digits',
        '99214\t   ',
        '99213\tduplicate line',
      ]);
    const { records, stats } = await parseFile(parseCpt, content);
    assert.deepEqual(records, [
      {
        code: '99213',
        display:
          'Office or other outpatient visit for the evaluation and management of an established patient, which requires a medically appropriate history and/or examination and low level of medical decision making.',
        active: true,
      },
      { code: '00100', display: 'ANESTH SALIVARY GLAND', active: true },
      { code: '0001F', display: 'Heart failure assessed', active: true },
      { code: '0042T', display: 'Cerebral perfusion analysis using computed tomography', active: true },
      { code: '0001U', display: 'Red blood cell antigen typing, DNA, human erythrocyte antigen gene analysis of 35 antigens', active: true },
    ]);
    assert.deepEqual(stats, {
      read: 8,
      skipped: 2,
      skippedExamples: ['line 9: does not start with a CPT code followed by a tab or blanks', 'line 10: empty description'],
      ignored: 1,
    });
  });

  it('refuses a file of another format, naming the line', async () => {
    await refused(parseCpt, lf([icd(1, 'A00', '0', 'Cholera', 'Cholera')]), /^not a CPT data file .*: line 1: this is an ICD-10-CM order file line/);
    const junk = Array.from({ length: 150 }, (_, i) => `junk line ${i + 1}`);
    await refused(parseCpt, lf(junk), /line 101: no line starting with a CPT code in the first 100 non-empty lines/);
    await refused(parseCpt, lf(['just a notice']), /the file has no line starting with a CPT code/);
  });
});

// ------------------------------------------------------------------------------------- SNOMED

const SCT_HEADER = 'id\teffectiveTime\tactive\tmoduleId\tconceptId\tlanguageCode\ttypeId\tterm\tcaseSignificanceId';
const FSN = '900000000000003001';
const SYN = '900000000000013009';
const desc = (id: string, active: string, conceptId: string, lang: string, typeId: string, term: string) =>
  [id, '20250101', active, '900000000000207008', conceptId, lang, typeId, term, '900000000000448009'].join('\t');

describe('SNOMED CT RF2 description snapshot', () => {
  const content = lf([
    SCT_HEADER,
    desc('37436014', '1', '22298006', 'en', SYN, 'Myocardial infarction'),
    desc('37442013', '1', '22298006', 'en', SYN, 'Heart attack'),
    desc('1784872019', '0', '22298006', 'en', FSN, 'Old name of myocardial infarction (disorder)'),
    desc('751689013', '1', '22298006', 'en', FSN, 'Myocardial infarction (disorder)'),
    desc('1234567013', '1', '44054006', 'es', FSN, 'diabetes mellitus tipo 2 (trastorno)'),
    desc('3003209014', '1', '44054006', 'en', FSN, 'Diabetes mellitus  type 2 (disorder)'),
    desc('3003209999', '1', '44054006', 'en', FSN, 'Second active FSN (disorder)'),
    '123\t20250101\t1\tshort row',
    desc('2150371011', '1', '1231004', 'en', FSN, 'Product containing (precisely) something (product)'),
    desc('2150371022', '1', '7000001', 'en', FSN, 'Term without a tag'),
  ]);

  it('yields one record per concept from its active English FSN, the semantic tag in extra', async () => {
    const { records, stats } = await parseFile(parseSnomed, content);
    assert.deepEqual(records, [
      { code: '22298006', display: 'Myocardial infarction', active: true, extra: { semantic_tag: 'disorder' } },
      { code: '44054006', display: 'Diabetes mellitus type 2', active: true, extra: { semantic_tag: 'disorder' } },
      { code: '1231004', display: 'Product containing (precisely) something', active: true, extra: { semantic_tag: 'product' } },
      { code: '7000001', display: 'Term without a tag', active: true },
    ]);
    assert.deepEqual(stats, {
      read: 10,
      skipped: 1,
      skippedExamples: ['line 9: 4 tab-separated fields, 9 expected'],
      ignored: 5, // two synonyms, an inactive FSN, a Spanish FSN, a second FSN
    });
  });

  it('marks the concepts of the concept snapshot that are inactive', async () => {
    const concepts = crlf([
      'id\teffectiveTime\tactive\tmoduleId\tdefinitionStatusId',
      '22298006\t20020131\t1\t900000000000207008\t900000000000073002',
      '7000001\t20200131\t0\t900000000000207008\t900000000000074008',
    ]);
    const inactive = await readSnomedInactiveConcepts(fs.createReadStream(write(concepts)));
    assert.deepEqual([...inactive], ['7000001']);
    const records: ConceptRecord[] = [];
    for await (const r of parseSnomed(fs.createReadStream(write(content)), undefined, { inactiveConcepts: inactive })) records.push(r);
    assert.deepEqual(
      records.map((r) => [r.code, r.active]),
      [
        ['22298006', true],
        ['44054006', true],
        ['1231004', true],
        ['7000001', false],
      ],
    );
  });

  it('refuses a file of another format, naming the line', async () => {
    await refused(
      parseSnomed,
      lf(['id\teffectiveTime\tactive\tmoduleId\tdefinitionStatusId']),
      /^not a SNOMED CT RF2 description snapshot .*: line 1: the header row is not/,
    );
    await refused(parseSnomed, BOM + crlf([SCT_HEADER, desc('x', '1', '22298006', 'en', FSN, 'Bad id (disorder)')]), /line 2: id is not an SCTID/);
    await refused(parseSnomed, lf([SCT_HEADER]), /header row but no data rows/);
  });

  it('splits the semantic tag off a fully specified name', () => {
    assert.deepEqual(splitSemanticTag('Myocardial infarction (disorder)'), { term: 'Myocardial infarction', tag: 'disorder' });
    assert.deepEqual(splitSemanticTag('(disorder)'), { term: '(disorder)' });
    assert.deepEqual(splitSemanticTag('No tag'), { term: 'No tag' });
  });
});

// -------------------------------------------------------------------------------------- index

describe('TERMINOLOGY_FORMATS', () => {
  it('has a parser and a file description for every --system name', async () => {
    assert.deepEqual(Object.keys(TERMINOLOGY_FORMATS).sort(), Object.keys(TERMINOLOGIES).sort());
    for (const [name, format] of Object.entries(TERMINOLOGY_FORMATS)) {
      assert.equal(typeof format.parse, 'function', name);
      assert.ok(format.file.length > 10 && !format.file.includes('\n'), `${name} has a one-line description`);
    }
    const { records } = await parseFile((input, stats) => parseTerminology('cpt' as TerminologyName, input, stats), '99213\tOffice visit\n');
    assert.deepEqual(records, [{ code: '99213', display: 'Office visit', active: true }]);
  });

  it('stops reading when the caller stops iterating', async () => {
    const lines = Array.from({ length: 5000 }, (_, i) => `${String(10000 + i)}\tCode ${i}`);
    const stream = fs.createReadStream(write(lf(lines)), { highWaterMark: 1024 });
    let n = 0;
    for await (const _ of parseCpt(stream)) if (++n === 3) break;
    assert.equal(n, 3);
    assert.ok(stream.destroyed, 'the file stream is closed');
  });
});
