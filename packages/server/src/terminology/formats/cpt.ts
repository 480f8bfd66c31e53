// CPT data files of the AMA (LONGULT.txt tab-delimited; MEDU.txt, SHORTU.txt, LONGUT.txt…):
// one code per line, `CODE<tab or spaces>DESCRIPTION`. The AMA puts a copyright notice before
// the first code, so lines before it are passed over (up to PREAMBLE_LINES of them).
import type { ConceptRecord } from '../systems.ts';
import { TerminologyFormatError, clean, createParseStats, excerpt, readLines, skipLine, type ParseStats } from './common.ts';

const EXPECTED = 'a CPT data file (LONGULT.txt, MEDU.txt, SHORTU.txt: code, tab or spaces, description)';
/**
 * Five digits, or four digits and F (Category II), T (Category III), U (proprietary laboratory
 * analyses) or M (multianalyte assays with algorithmic analyses).
 */
const LINE = /^(\d{4}[0-9FTUM])(?:\s+(.*))?$/;
/** How many leading non-code lines (the AMA copyright notice) are tolerated before the first code. */
export const CPT_PREAMBLE_LINES = 100;
/** An ICD-10-CM order-file line also starts with five digits and a blank: never take it for CPT. */
const ICD10CM_ORDER_LINE = /^\d{5} [A-Z][0-9][0-9A-Z ]{5} [01] /;

/** CPT codes: code = the 5-character code, display = its description, active = true. A code seen twice keeps its first line. */
export async function* parseCpt(input: NodeJS.ReadableStream, stats: ParseStats = createParseStats()): AsyncGenerator<ConceptRecord> {
  const seen = new Set<string>(); // ~11k codes
  let started = false;
  let preamble = 0;
  for await (const [number, raw] of readLines(input)) {
    const line = raw.trimEnd();
    if (!line.trim()) continue;
    if (!started && ICD10CM_ORDER_LINE.test(line)) throw new TerminologyFormatError(EXPECTED, number, `this is an ICD-10-CM order file line: ${excerpt(line)}`);
    const match = LINE.exec(line);
    const display = clean(match?.[2]);
    if (!started) {
      if (!match || !display) {
        if (++preamble > CPT_PREAMBLE_LINES) {
          throw new TerminologyFormatError(
            EXPECTED,
            number,
            `no line starting with a CPT code in the first ${CPT_PREAMBLE_LINES} non-empty lines (last: ${excerpt(line)})`,
          );
        }
        continue;
      }
      started = true;
    }
    stats.read++;
    if (!match) {
      skipLine(stats, number, 'does not start with a CPT code followed by a tab or blanks');
      continue;
    }
    if (!display) {
      skipLine(stats, number, 'empty description');
      continue;
    }
    const code = match[1]!;
    if (seen.has(code)) {
      stats.ignored++;
      continue;
    }
    seen.add(code);
    yield { code, display, active: true };
  }
  if (!started) throw new TerminologyFormatError(EXPECTED, 0, 'the file has no line starting with a CPT code');
}
