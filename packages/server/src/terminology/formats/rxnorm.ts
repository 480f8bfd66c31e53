// RxNorm RXNCONSO.RRF (NLM full or prescribable release), pipe-delimited, 18 fields and a
// trailing pipe, no header:
//   RXCUI|LAT|TS|LUI|STT|SUI|ISPREF|RXAUI|SAUI|SCUI|SDUI|SAB|TTY|CODE|STR|SRL|SUPPRESS|CVF|
import type { ConceptRecord } from '../systems.ts';
import { TerminologyFormatError, clean, createParseStats, excerpt, readLines, skipLine, type ParseStats } from './common.ts';

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
  let started = false;
  for await (const [number, raw] of readLines(input)) {
    const line = raw.trimEnd();
    if (!line) continue;
    stats.read++;
    const fields = line.split('|');
    if (fields.length === FIELDS + 1 && fields[FIELDS] === '') fields.pop();
    let reason: string | undefined;
    if (fields.length !== FIELDS) reason = `${fields.length} pipe-separated fields, ${FIELDS} expected`;
    else if (!/^\d+$/.test(fields[RXCUI]!.trim())) reason = 'RXCUI (field 1) is not a number';
    else if (!fields[SAB]!.trim() || !fields[TTY]!.trim()) reason = 'empty SAB or TTY (fields 12-13)';
    if (reason) {
      if (!started) throw new TerminologyFormatError(EXPECTED, number, `${reason}: ${excerpt(line)}`);
      skipLine(stats, number, reason);
      continue;
    }
    started = true;
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
  if (!started) throw new TerminologyFormatError(EXPECTED, 0, 'the file has no data lines');
}
