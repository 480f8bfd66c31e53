// Terminology search: an exact code first, then concepts whose display starts with the first
// word, then concepts containing every word anywhere (by prefix, in any order). Each step is one
// indexed query with a LIMIT; nothing scans the table.
import type { Kysely } from 'kysely';
import type { Engine } from '../storage/db.ts';
import type { Database } from '../storage/schema.ts';
import { conceptsByCodeKey, conceptsByDisplayStart, conceptsByWords, type ConceptRow } from '../storage/concepts-repository.ts';
import { parseSearchTerm } from './normalize.ts';

/** Rows of the display-start range looked at for multi-word terms before the word search takes over. */
const DISPLAY_SCAN = 2000;

export interface Concept {
  system: string;
  code: string;
  display: string;
  extra: Record<string, unknown> | null;
}

export function toConcept(row: ConceptRow): Concept {
  return { system: row.system, code: row.code, display: row.display, extra: row.extra === null ? null : (JSON.parse(row.extra) as Record<string, unknown>) };
}

/** Up to `limit` active concepts of `systems` for a search term, best first. */
export async function searchConcepts(db: Kysely<Database>, engine: Engine, systems: readonly string[], term: string, limit: number): Promise<Concept[]> {
  const { words, code } = parseSearchTerm(term);
  if (words.length === 0 || systems.length === 0) return [];
  const found = new Map<string, ConceptRow>();
  const add = (rows: ConceptRow[]) => {
    for (const row of rows) if (found.size < limit && !found.has(`${row.system}\n${row.code}`)) found.set(`${row.system}\n${row.code}`, row);
  };
  if (code !== '') add(await conceptsByCodeKey(db, systems, code, limit));
  const [first, ...rest] = words as [string, ...string[]];
  for (const system of systems) {
    if (found.size >= limit) break;
    add(await conceptsByDisplayStart(db, system, first, rest, limit, rest.length === 0 ? limit * 2 : DISPLAY_SCAN));
  }
  for (const system of systems) {
    if (found.size >= limit) break;
    // Some of these were found above already: ask for enough to fill the page after dropping them.
    const anywhere = await conceptsByWords(db, engine, system, words, limit * 3);
    add(anywhere.sort(byDisplay));
  }
  return [...found.values()].map(toConcept);
}

/** Shorter displays first (the more general concept), then alphabetically. */
function byDisplay(a: ConceptRow, b: ConceptRow): number {
  return a.display.length - b.display.length || (a.display < b.display ? -1 : a.display > b.display ? 1 : 0);
}
