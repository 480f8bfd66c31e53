// LOINC table (Loinc.csv, LoincTable/Loinc.csv of the LOINC release): RFC 4180 CSV with a
// header row of quoted column names; columns are found by name (LOINC_NUM, COMPONENT,
// LONG_COMMON_NAME, STATUS, CLASSTYPE), fields may hold commas, quotes and newlines.
import { pipeline } from 'node:stream';
import { parse as csvParse, type Info } from 'csv-parse';
import type { ConceptRecord } from '../systems.ts';
import { TerminologyFormatError, clean, createParseStats, excerpt, skipLine, type ParseStats } from './common.ts';

const EXPECTED = 'a LOINC table CSV (Loinc.csv)';
const CODE = /^\d{1,7}-\d$/;
/** STATUS values whose codes may still be picked. DISCOURAGED and DEPRECATED are inactive. */
export const LOINC_ACTIVE_STATUSES: ReadonlySet<string> = new Set(['ACTIVE', 'TRIAL']);

/**
 * LOINC terms: code = LOINC_NUM, display = LONG_COMMON_NAME (COMPONENT when empty),
 * active = STATUS ACTIVE or TRIAL, extra = { status, class_type } (class_type 1 = laboratory,
 * 2 = clinical, 3 = claims attachments, 4 = surveys; left out when the column is empty).
 */
export async function* parseLoinc(input: NodeJS.ReadableStream, stats: ParseStats = createParseStats()): AsyncGenerator<ConceptRecord> {
  const parser = csvParse({ bom: true, info: true, relax_column_count: true, skip_empty_lines: true });
  pipeline(input, parser, () => {}); // errors of either side reach the loop below through the parser
  let columns: { code: number; long: number; component: number; status: number; classType: number; count: number } | undefined;
  let started = false;
  let lastLine = 0;
  let lastEmpty = 0;
  try {
    for await (const { record, info } of parser as AsyncIterable<{ record: string[]; info: Info }>) {
      // The record starts after the previous one and the empty lines skipped since.
      const number = lastLine + 1 + (info.empty_lines - lastEmpty);
      lastLine = info.lines;
      lastEmpty = info.empty_lines;
      if (!columns) {
        const names = record.map((name) => name.trim().toUpperCase());
        const at = (name: string) => names.indexOf(name);
        const missing = ['LOINC_NUM', 'STATUS'].filter((name) => at(name) < 0);
        if (at('LONG_COMMON_NAME') < 0 && at('COMPONENT') < 0) missing.push('LONG_COMMON_NAME or COMPONENT');
        if (missing.length) throw new TerminologyFormatError(EXPECTED, number, `the header row lacks ${missing.join(', ')}: ${excerpt(record.join(','))}`);
        columns = {
          code: at('LOINC_NUM'),
          long: at('LONG_COMMON_NAME'),
          component: at('COMPONENT'),
          status: at('STATUS'),
          classType: at('CLASSTYPE'),
          count: names.length,
        };
        continue;
      }
      stats.read++;
      const code = (record[columns.code] ?? '').trim();
      const display = clean(record[columns.long]) || clean(record[columns.component]);
      let reason: string | undefined;
      if (record.length !== columns.count) reason = `${record.length} fields, the header has ${columns.count}`;
      else if (!CODE.test(code)) reason = `LOINC_NUM ${excerpt(code, 20)} is not a LOINC code`;
      else if (!display) reason = 'empty LONG_COMMON_NAME and COMPONENT';
      if (reason) {
        if (!started) throw new TerminologyFormatError(EXPECTED, number, `${reason}: ${excerpt(record.join(','))}`);
        skipLine(stats, number, reason);
        continue;
      }
      started = true;
      const status = clean(record[columns.status]).toUpperCase();
      const extra: Record<string, string | number> = { status };
      const classType = clean(columns.classType >= 0 ? record[columns.classType] : '');
      if (/^\d+$/.test(classType)) extra.class_type = Number(classType);
      yield { code, display, active: LOINC_ACTIVE_STATUSES.has(status), extra };
    }
  } catch (err) {
    if (err instanceof TerminologyFormatError) throw err;
    // csv-parse's errors (an unclosed quote…) say where; the file cannot be read past them.
    const code = (err as { code?: string }).code;
    if (typeof code === 'string' && code.startsWith('CSV_')) {
      const message = (err as Error).message;
      if (!started) throw new TerminologyFormatError(EXPECTED, lastLine + 1, message);
      throw new Error(`LOINC table CSV unreadable after line ${lastLine}: ${message}`, { cause: err });
    }
    throw err;
  } finally {
    parser.destroy();
  }
  if (!columns) throw new TerminologyFormatError(EXPECTED, 0, 'the file is empty');
  if (!started) throw new TerminologyFormatError(EXPECTED, 0, 'the file has a header row but no data rows');
}
