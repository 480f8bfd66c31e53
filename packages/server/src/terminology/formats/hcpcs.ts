// HCPCS Level II annual alpha-numeric file of CMS (HCPC20xx_<MON>_ANWEB*.txt), fixed-width
// 320-character records as in HCPC20xx_recordlayout.txt:
//   1-5 HCPCS code (modifiers: blanks then the 2 characters in 4-5), 6-10 sequence number,
//   11 record identification code (3 = first line of a procedure, 4 = its continuation lines,
//   7 = first line of a modifier, 8 = its continuation lines), 12-91 long description
//   (one 80-column slice per line), 92-119 short description, 269-276 date added,
//   277-284 action effective date, 285-292 termination date (YYYYMMDD), 293 action code.
import type { ConceptRecord } from '../systems.ts';
import { checkedLines, clean, createParseStats, excerpt, skipLine, type Checked, type ParseStats } from './common.ts';

const EXPECTED = 'an HCPCS Level II record-layout file (HCPC20xx_…_ANWEB….txt)';

export interface HcpcsOptions {
  /** The day termination dates are compared with (default: today, UTC). */
  asOf?: Date;
}

interface Pending {
  code: string;
  line: number;
  short: string;
  termination: string;
  parts: { seq: number; text: string }[];
}

type Line = { modifier: false; ric: '3' | '4'; code: string; seq: number; long: string; short: string; termination: string } | { modifier: true };

function parseLine(line: string): Checked<Line> {
  if (line.length < 12) return { ok: false, reason: `${line.length} characters, the layout has a description from column 12` };
  const ric = line[10];
  const seq = line.slice(5, 10);
  if (!/^\d{5}$/.test(seq)) return { ok: false, reason: 'columns 6-10 are not a sequence number' };
  if (ric === '7' || ric === '8') {
    // Modifiers are written in columns 4-5 after three blanks; only their shape is checked.
    if (!/^ *[A-Z0-9]{2,5} *$/.test(line.slice(0, 5))) return { ok: false, reason: 'columns 1-5 are not a modifier' };
    return { ok: true, value: { modifier: true } };
  }
  if (ric !== '3' && ric !== '4') return { ok: false, reason: `record identification code (column 11) ${excerpt(ric ?? '')} is not 3, 4, 7 or 8` };
  const code = line.slice(0, 5);
  if (!/^[A-Z0-9]{5}$/.test(code)) return { ok: false, reason: 'columns 1-5 are not an HCPCS code' };
  const termination = ric === '3' ? line.slice(284, 292).trim() : '';
  if (termination && !/^\d{8}$/.test(termination)) return { ok: false, reason: 'termination date (columns 285-292) is not YYYYMMDD' };
  return {
    ok: true,
    value: { modifier: false, ric, code, seq: Number(seq), long: line.slice(11, 91), short: ric === '3' ? clean(line.slice(91, 119)) : '', termination },
  };
}

const yyyymmdd = (date: Date) => date.toISOString().slice(0, 10).replaceAll('-', '');

/**
 * HCPCS procedure codes (modifiers left out): display = the long description joined from the
 * code's lines in sequence order (the short description when it is empty); extra = { short,
 * termination_date? }; active unless the termination date (the last day the code may be used)
 * is before `options.asOf`.
 */
export async function* parseHcpcs(
  input: NodeJS.ReadableStream,
  stats: ParseStats = createParseStats(),
  options: HcpcsOptions = {},
): AsyncGenerator<ConceptRecord> {
  const today = yyyymmdd(options.asOf ?? new Date());
  let pending: Pending | undefined;

  const finish = (p: Pending): ConceptRecord | undefined => {
    const long = clean(
      p.parts
        .sort((a, b) => a.seq - b.seq)
        .map((part) => part.text)
        .join(' '),
    );
    const display = long || p.short;
    if (!display) {
      skipLine(stats, p.line, 'empty long and short descriptions');
      return undefined;
    }
    const extra: Record<string, string> = { short: p.short };
    if (p.termination) extra.termination_date = `${p.termination.slice(0, 4)}-${p.termination.slice(4, 6)}-${p.termination.slice(6)}`;
    return { code: p.code, display, active: !p.termination || p.termination >= today, extra };
  };

  for await (const [number, parsed] of checkedLines(input, stats, EXPECTED, parseLine)) {
    if (parsed.modifier) {
      stats.ignored++;
      continue;
    }
    if (parsed.ric === '4') {
      if (pending?.code === parsed.code) pending.parts.push({ seq: parsed.seq, text: parsed.long });
      else skipLine(stats, number, `continuation line of ${parsed.code} without its first line (record identification code 3)`);
      continue;
    }
    if (pending) {
      const record = finish(pending);
      if (record) yield record;
    }
    pending = { code: parsed.code, line: number, short: parsed.short, termination: parsed.termination, parts: [{ seq: parsed.seq, text: parsed.long }] };
  }
  if (pending) {
    const record = finish(pending);
    if (record) yield record;
  }
}
