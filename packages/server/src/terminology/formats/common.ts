// What every release-file parser shares: the stats a caller passes in, the error a file of the
// wrong format raises, and a line reader that copes with BOMs, CRLF and files of any size.
import readline from 'node:readline';
import type { ConceptRecord } from '../systems.ts';

/**
 * Counters a parser updates while the caller iterates. Create one with `createParseStats()`,
 * pass it in, read it once the loop ends (also after an error, for what was read until then).
 */
export interface ParseStats {
  /** Data lines (CSV records for LOINC) looked at: headers, preambles and empty lines excluded. */
  read: number;
  /** Malformed lines that were dropped (a wrong field count, a bad code, an empty display…). */
  skipped: number;
  /** `line N: reason` for the first MAX_SKIPPED_EXAMPLES skipped lines. */
  skippedExamples: string[];
  /** Well-formed lines deliberately not kept: other RxNorm sources/term types, HCPCS modifiers, SNOMED synonyms, duplicates… */
  ignored: number;
}

export const MAX_SKIPPED_EXAMPLES = 10;

export function createParseStats(): ParseStats {
  return { read: 0, skipped: 0, skippedExamples: [], ignored: 0 };
}

/** A release-file parser: yields the concepts of the file, updating `stats` as it goes. */
export type TerminologyParser = (input: NodeJS.ReadableStream, stats?: ParseStats) => AsyncGenerator<ConceptRecord>;

/**
 * The file is not of the expected format: its header or first data line do not match the
 * layout (`line` is that line's 1-based number), or it has no data at all (`line` is 0).
 */
export class TerminologyFormatError extends Error {
  readonly line: number;
  constructor(expected: string, line: number, reason: string) {
    super(line > 0 ? `not ${expected}: line ${line}: ${reason}` : `not ${expected}: ${reason}`);
    this.name = 'TerminologyFormatError';
    this.line = line;
  }
}

/** Records a skipped line in the stats. */
export function skipLine(stats: ParseStats, line: number, reason: string): void {
  stats.skipped++;
  if (stats.skippedExamples.length < MAX_SKIPPED_EXAMPLES) stats.skippedExamples.push(`line ${line}: ${reason}`);
}

/** Trims and collapses internal whitespace (tabs, runs of spaces, embedded newlines). */
export function clean(text: string | undefined): string {
  return (text ?? '').replace(/\s+/g, ' ').trim();
}

/** A line shortened for an error message, so a binary or huge line does not flood the terminal. */
export function excerpt(line: string, max = 80): string {
  const shown = line.length > max ? `${line.slice(0, max)}…` : line;
  return JSON.stringify(shown);
}

/**
 * The lines of a UTF-8 stream with their 1-based numbers, streamed (never the whole file in
 * memory). A leading BOM is removed; LF and CRLF both end lines. Trailing whitespace is kept:
 * parsers of fixed-width and tab-separated layouts decide what it means.
 */
export async function* readLines(input: NodeJS.ReadableStream): AsyncGenerator<[number, string]> {
  const rl = readline.createInterface({ input, crlfDelay: Infinity });
  let number = 0;
  try {
    for await (const raw of rl) {
      number++;
      yield [number, number === 1 && raw.charCodeAt(0) === 0xfeff ? raw.slice(1) : raw];
    }
  } finally {
    rl.close();
    // Stop reading a 1 GB file the caller gave up on (an error, a break out of the loop).
    const destroy = (input as { destroy?: () => void }).destroy;
    if (typeof destroy === 'function') destroy.call(input);
  }
}

/** A data line as a parser reads it: its value, or the reason it is malformed. */
export type Checked<T> = { ok: true; value: T } | { ok: false; reason: string };

/**
 * The data lines of a line-based release file (trailing blanks cut, empty lines passed over),
 * each checked by `check`, under the rule every format shares: until one line is good, a bad
 * line means the file is not of this format (throws naming it); after that, bad lines are
 * skipped and counted. A file without a good line throws too.
 */
export async function* checkedLines<T>(
  input: NodeJS.ReadableStream,
  stats: ParseStats,
  expected: string,
  check: (line: string) => Checked<T>,
): AsyncGenerator<[number, T]> {
  let started = false;
  for await (const [number, raw] of readLines(input)) {
    const line = raw.trimEnd();
    if (!line) continue;
    stats.read++;
    const checked = check(line);
    if (!checked.ok) {
      if (!started) throw new TerminologyFormatError(expected, number, `${checked.reason}: ${excerpt(line)}`);
      skipLine(stats, number, checked.reason);
      continue;
    }
    started = true;
    yield [number, checked.value];
  }
  if (!started) throw new TerminologyFormatError(expected, 0, 'the file has no data lines');
}
