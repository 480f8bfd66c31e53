// RxNorm RXNCONSO.RRF (NLM full or prescribable release), pipe-delimited, 18 fields and a
// trailing pipe, no header:
//   RXCUI|LAT|TS|LUI|STT|SUI|ISPREF|RXAUI|SAUI|SCUI|SDUI|SAB|TTY|CODE|STR|SRL|SUPPRESS|CVF|
import type { ConceptRecord } from '../systems.ts';
import { checkedLines, clean, createParseStats, skipLine, type Checked, type ParseStats } from './common.ts';

const EXPECTED = 'an RxNorm RXNCONSO.RRF file';
const FIELDS = 18;
const [RXCUI, LAT, SAB, TTY, STR, SUPPRESS] = [0, 1, 11, 12, 14, 16] as const;

/** The prescribable drug term types kept: clinical and branded drugs, generic and branded packs. */
export const RXNORM_TERM_TYPES: ReadonlySet<string> = new Set(['SCD', 'SBD', 'GPCK', 'BPCK']);

/**
 * Drugs of SAB=RXNORM, LAT=ENG and a term type of RXNORM_TERM_TYPES; code = RXCUI,
 * display = STR, active = SUPPRESS 'N' (O, Y, E → inactive), extra = { tty }. An RXCUI is
 * yielded once (a later row with the same RXCUI is counted as ignored).
 */
export async function* parseRxnorm(input: NodeJS.ReadableStream, stats: ParseStats = createParseStats()): AsyncGenerator<ConceptRecord> {
  const seen = new Set<string>(); // ~50k kept RXCUIs at most: a few MB
  for await (const [number, fields] of checkedLines(input, stats, EXPECTED, splitLine)) {
    const tty = fields[TTY]!.trim();
    if (fields[SAB]!.trim() !== 'RXNORM' || fields[LAT]!.trim() !== 'ENG' || !RXNORM_TERM_TYPES.has(tty)) {
      stats.ignored++;
      continue;
    }
    const code = fields[RXCUI]!.trim();
    const display = clean(fields[STR]);
    if (!display) {
      skipLine(stats, number, 'empty STR (field 15)');
      continue;
    }
    if (seen.has(code)) {
      stats.ignored++;
      continue;
    }
    seen.add(code);
    yield { code, display, active: fields[SUPPRESS]!.trim() === 'N', extra: { tty } };
  }
}

/** A RXNCONSO line's fields (the trailing pipe dropped), if it has the layout's shape. */
function splitLine(line: string): Checked<string[]> {
  const fields = line.split('|');
  if (fields.length === FIELDS + 1 && fields[FIELDS] === '') fields.pop();
  if (fields.length !== FIELDS) return { ok: false, reason: `${fields.length} pipe-separated fields, ${FIELDS} expected` };
  if (!/^\d+$/.test(fields[RXCUI]!.trim())) return { ok: false, reason: 'RXCUI (field 1) is not a number' };
  if (!fields[SAB]!.trim() || !fields[TTY]!.trim()) return { ok: false, reason: 'empty SAB or TTY (fields 12-13)' };
  return { ok: true, value: fields };
}
