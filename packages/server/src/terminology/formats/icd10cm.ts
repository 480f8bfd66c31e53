// ICD-10-CM order file (icd10cm_order_YYYY.txt, CMS/CDC), fixed width:
//   cols 1-5 order number, 7-13 code (no dot, left-justified), 15 header flag ('0' header,
//   '1' valid for HIPAA transactions), 17-76 short description, 78-end long description,
//   single blanks in between.
import type { ConceptRecord } from '../systems.ts';
import { checkedLines, clean, createParseStats, type Checked, type ParseStats } from './common.ts';

const EXPECTED = 'an ICD-10-CM order file (icd10cm_order_YYYY.txt)';
/** A letter, a digit, then 1 to 5 letters or digits: A00, C4A, E119, S72001A. */
const CODE = /^[A-Z][0-9][0-9A-Z]{1,5}$/;

/** `E119` → `E11.9`; three-character categories have no dot. */
export function icd10cmWithDot(code: string): string {
  return code.length > 3 ? `${code.slice(0, 3)}.${code.slice(3)}` : code;
}

function parseLine(line: string): Checked<ConceptRecord> {
  if (!/^\d{5} /.test(line)) return { ok: false, reason: 'columns 1-5 are not an order number followed by a blank' };
  const field = line.slice(6, 13);
  const code = field.trim();
  if (!CODE.test(code) || field.trimEnd() !== code || line[13] !== ' ') return { ok: false, reason: 'columns 7-13 are not a left-justified ICD-10-CM code' };
  const flag = line[14];
  if ((flag !== '0' && flag !== '1') || line[15] !== ' ') return { ok: false, reason: "column 15 is not the header flag '0' or '1'" };
  if (line.length > 76 && line[76] !== ' ') return { ok: false, reason: 'column 77 is not blank' };
  const short = clean(line.slice(16, 76));
  const long = clean(line.slice(77));
  if (!long) return { ok: false, reason: 'empty long description (columns 78-end)' };
  const billable = flag === '1';
  return { ok: true, value: { code: icd10cmWithDot(code), display: long, active: billable, extra: { billable, short } } };
}

/**
 * Codes of the ICD-10-CM order file, with the dot (`E11.9`); display = long description;
 * active = billable (header flag '1'); extra = { billable, short }.
 */
export async function* parseIcd10cm(input: NodeJS.ReadableStream, stats: ParseStats = createParseStats()): AsyncGenerator<ConceptRecord> {
  for await (const [, record] of checkedLines(input, stats, EXPECTED, parseLine)) yield record;
}
