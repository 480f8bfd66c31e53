// SNOMED CT RF2 description snapshot (sct2_Description_Snapshot-en_INT_YYYYMMDD.txt, or an
// edition's sct2_Description_Snapshot-en_…), tab-separated with a header row:
//   id effectiveTime active moduleId conceptId languageCode typeId term caseSignificanceId
// and, optionally, the concept snapshot (sct2_Concept_Snapshot_…) to tell inactive concepts:
//   id effectiveTime active moduleId definitionStatusId
import type { ConceptRecord } from '../systems.ts';
import { TerminologyFormatError, clean, createParseStats, excerpt, readLines, skipLine, type ParseStats } from './common.ts';

const EXPECTED = 'a SNOMED CT RF2 description snapshot (sct2_Description_Snapshot-en_….txt)';
const HEADER = ['id', 'effectiveTime', 'active', 'moduleId', 'conceptId', 'languageCode', 'typeId', 'term', 'caseSignificanceId'];
const CONCEPT_EXPECTED = 'a SNOMED CT RF2 concept snapshot (sct2_Concept_Snapshot_….txt)';
const CONCEPT_HEADER = ['id', 'effectiveTime', 'active', 'moduleId', 'definitionStatusId'];
/** Description typeIds. */
export const SNOMED_FSN = '900000000000003001';
export const SNOMED_SYNONYM = '900000000000013009';
const SCTID = /^\d{6,18}$/;

export interface SnomedOptions {
  /** conceptIds that are inactive (from readSnomedInactiveConcepts): yielded with active = false. */
  inactiveConcepts?: ReadonlySet<string>;
}

/** `Myocardial infarction (disorder)` → { term: 'Myocardial infarction', tag: 'disorder' }. */
export function splitSemanticTag(fsn: string): { term: string; tag?: string } {
  const m = /^(.*?)\s*\(([^()]+)\)$/.exec(fsn);
  if (!m || !m[1]!.trim()) return { term: fsn };
  return { term: m[1]!.trim(), tag: m[2]!.trim() };
}

/** Reads an RF2 file's header, then yields its data lines split on tabs. */
async function* rf2Rows(
  input: NodeJS.ReadableStream,
  expected: string,
  header: string[],
  stats: ParseStats,
  valid: (fields: string[]) => string | undefined,
): AsyncGenerator<[number, string[]]> {
  let headerSeen = false;
  let started = false;
  for await (const [number, raw] of readLines(input)) {
    const line = raw.replace(/[\r ]+$/, ''); // keep tabs: they separate fields
    if (!line.trim()) continue;
    const fields = line.split('\t');
    if (!headerSeen) {
      if (fields.map((f) => f.trim()).join('\t') !== header.join('\t')) {
        throw new TerminologyFormatError(expected, number, `the header row is not "${header.join(' ')}" (tab-separated): ${excerpt(line)}`);
      }
      headerSeen = true;
      continue;
    }
    stats.read++;
    const reason = fields.length !== header.length ? `${fields.length} tab-separated fields, ${header.length} expected` : valid(fields);
    if (reason) {
      if (!started) throw new TerminologyFormatError(expected, number, `${reason}: ${excerpt(line)}`);
      skipLine(stats, number, reason);
      continue;
    }
    started = true;
    yield [number, fields];
  }
  if (!headerSeen) throw new TerminologyFormatError(expected, 0, 'the file is empty');
  if (!started) throw new TerminologyFormatError(expected, 0, 'the file has a header row but no data rows');
}

const checkCommon = (fields: string[]): string | undefined => {
  if (!SCTID.test(fields[0]!)) return 'id is not an SCTID';
  if (!/^\d{8}$/.test(fields[1]!)) return 'effectiveTime is not YYYYMMDD';
  if (fields[2] !== '0' && fields[2] !== '1') return 'active is not 0 or 1';
  return undefined;
};

/**
 * One record per concept, from its active English fully specified name: code = conceptId,
 * display = the FSN without its semantic tag, extra = { semantic_tag }, active = true (false for
 * concepts in `options.inactiveConcepts`). Synonyms, inactive descriptions and other languages
 * are passed over; a concept's second active FSN (never in a valid release) is ignored.
 */
export async function* parseSnomed(
  input: NodeJS.ReadableStream,
  stats: ParseStats = createParseStats(),
  options: SnomedOptions = {},
): AsyncGenerator<ConceptRecord> {
  const seen = new Set<string>(); // one entry per concept, not per description
  const valid = (f: string[]) =>
    checkCommon(f) ?? (!SCTID.test(f[4]!) ? 'conceptId is not an SCTID' : !SCTID.test(f[6]!) ? 'typeId is not an SCTID' : undefined);
  for await (const [number, f] of rf2Rows(input, EXPECTED, HEADER, stats, valid)) {
    const [, , active, , conceptId, languageCode, typeId, term] = f as [string, string, string, string, string, string, string, string];
    if (active !== '1' || languageCode !== 'en' || typeId !== SNOMED_FSN || seen.has(conceptId)) {
      stats.ignored++;
      continue;
    }
    const fsn = clean(term);
    if (!fsn) {
      skipLine(stats, number, 'empty term');
      continue;
    }
    seen.add(conceptId);
    const { term: display, tag } = splitSemanticTag(fsn);
    yield { code: conceptId, display, active: !options.inactiveConcepts?.has(conceptId), ...(tag ? { extra: { semantic_tag: tag } } : {}) };
  }
}

/** The ids of the inactive concepts of an RF2 concept snapshot, for parseSnomed's `inactiveConcepts`. */
export async function readSnomedInactiveConcepts(input: NodeJS.ReadableStream, stats: ParseStats = createParseStats()): Promise<Set<string>> {
  const inactive = new Set<string>();
  const valid = (f: string[]) => checkCommon(f) ?? (!SCTID.test(f[4]!) ? 'definitionStatusId is not an SCTID' : undefined);
  for await (const [, f] of rf2Rows(input, CONCEPT_EXPECTED, CONCEPT_HEADER, stats, valid)) {
    if (f[2] === '0') inactive.add(f[0]!);
    else stats.ignored++;
  }
  return inactive;
}
