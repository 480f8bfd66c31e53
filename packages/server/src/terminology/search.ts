// Terminology search: a bounded set of candidates from indexed queries — the exact code; per
// system, displays starting with the first word (and, for several words, with the whole term),
// the concepts ranked by use that contain every word, and concepts containing every word
// anywhere (by prefix, in any order) — then ranked in memory (ranking.ts) and cut to the page.
// Each query is an index lookup with a LIMIT; nothing scans the table.
import type { Kysely } from 'kysely';
import type { Engine } from '../storage/db.ts';
import type { Database } from '../storage/schema.ts';
import { conceptsByCodeKey, conceptsByDisplayStart, conceptsByUsageRank, conceptsByWords, type ConceptRow } from '../storage/concepts-repository.ts';
import { parseSearchTerm } from './normalize.ts';
import { conceptKey, rankConcepts } from './ranking.ts';

/** Candidates each query may give, per system, as a multiple of the page asked for. */
const CANDIDATES_PER_PAGE = 2;
/**
 * Rows of the display-start range looked at for multi-word terms (the other words are tested on
 * them). 2,000 before the ranking, which also asks for the whole term as the start and for the
 * words anywhere every time: reading fewer here pays for those (docs/performance.md, "Ranking").
 */
const DISPLAY_SCAN = 500;
/** Ranked concepts of a system looked at, in rank order, for those containing every word. */
const USAGE_SCAN = 2000;

export interface Concept {
  system: string;
  code: string;
  display: string;
  extra: Record<string, unknown> | null;
}

export function toConcept(row: ConceptRow): Concept {
  return { system: row.system, code: row.code, display: row.display, extra: row.extra === null ? null : (JSON.parse(row.extra) as Record<string, unknown>) };
}

/** Up to `limit` active concepts of `systems` for a search term, best first (ranking.ts). */
export async function searchConcepts(db: Kysely<Database>, engine: Engine, systems: readonly string[], term: string, limit: number): Promise<Concept[]> {
  const query = parseSearchTerm(term);
  const { words, code } = query;
  if (words.length === 0 || systems.length === 0) return [];
  const wanted = limit * CANDIDATES_PER_PAGE;
  const [first, ...rest] = words as [string, ...string[]];
  // Independent lookups, sent together (on PostgreSQL each may take its own pooled connection).
  const [byCode, ...found] = await Promise.all([
    code === '' ? [] : conceptsByCodeKey(db, systems, code, limit),
    ...systems.flatMap((system) => [
      conceptsByDisplayStart(db, system, first, rest, wanted, rest.length === 0 ? wanted : DISPLAY_SCAN),
      // The whole term as the start of the display (its words in the order typed): found however
      // many displays start with the first word alone.
      rest.length === 0 ? [] : conceptsByDisplayStart(db, system, words.join(' '), [], wanted, wanted),
      conceptsByUsageRank(db, system, words, wanted, USAGE_SCAN),
      conceptsByWords(db, engine, system, words, wanted),
    ]),
  ]);
  const candidates = new Map<string, ConceptRow>();
  for (const row of [byCode, ...found].flat()) if (!candidates.has(conceptKey(row))) candidates.set(conceptKey(row), row);
  const exact = new Set(byCode.map(conceptKey));
  return rankConcepts([...candidates.values()], query, systems, exact)
    .slice(0, limit)
    .map(toConcept);
}
