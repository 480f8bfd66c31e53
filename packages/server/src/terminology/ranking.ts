// The order of a terminology search's answer: the candidates the indexed queries gathered
// (search.ts) scored in memory by how likely each is the concept a clinician means. The rules,
// in the order they are applied, are those of docs/api.md ("How a search matches and ranks");
// nothing here knows a particular search or code: each rule reads only the term, the display,
// and what the data says of the concept (billable, usage rank).
import type { ConceptRow } from '../storage/concepts-repository.ts';
import type { SearchQuery } from './normalize.ts';

/**
 * Words that only say "no further detail" (ICD-10-CM's "Obesity, unspecified" is the code for
 * obesity said without more): they neither count as extra words nor push the matched words
 * later, unless the term itself has them.
 */
export const NO_DETAIL_WORDS: ReadonlySet<string> = new Set(['unspecified']);

/**
 * What the rules compare, in the order they apply, each oriented so that smaller ranks first
 * (a row's score is these numbers in this order):
 *  0 exact    0: the term is the concept's code (found by the exact code search)
 *  1 header   1: a header code (extra.billable false); 0: billable, or no such notion
 *  2 equal    0: the display is the term: every word of each, whole, in any order (no-detail words aside)
 *  3 partial  minus the number of the term's words that are whole words of the display
 *  4 usage    the concept's usage rank (1 = the most used of its system); Infinity when unranked
 *  5 leading  0: the display's first word is (or starts with) the term's first word
 *  6 position sum of the places of the display words the term's words match (0 = the first word)
 *  7 extra    display words that no word of the term matches
 *  8 system   place of the concept's system in the field's list of systems
 *  9 length   characters of the display, no-detail words left out
 */
export type ConceptScore = number[];

function isHeader(extra: string | null): boolean {
  if (extra === null || !extra.includes('"billable"')) return false;
  return (JSON.parse(extra) as { billable?: unknown }).billable === false;
}

/** The score of one candidate for `query`; `exact` says whether the exact code search found it. */
export function scoreConcept(row: ConceptRow, query: SearchQuery, systemIndex: number, exact: boolean): ConceptScore {
  const { words } = query;
  // display_key is the display as normalizeText makes it: its words, as the term's are.
  const displayWords: string[] = [];
  let length = -1;
  for (const w of row.display_key.split(' ')) {
    if (w === '' || (NO_DETAIL_WORDS.has(w) && !words.includes(w))) continue;
    displayWords.push(w);
    length += w.length + 1;
  }
  let whole = 0;
  let position = 0;
  let matched = 0;
  const used: boolean[] = [];
  for (const word of words) {
    let at = displayWords.indexOf(word);
    if (at >= 0) whole++;
    else at = displayWords.findIndex((w) => w.startsWith(word));
    // A word found only in the code (or the other words an entry is indexed by) counts as the last place.
    position += at >= 0 ? at : displayWords.length;
    if (at >= 0 && used[at] !== true) {
      used[at] = true;
      matched++;
    }
  }
  const extra = displayWords.length - matched;
  const first = displayWords[0];
  return [
    exact ? 0 : 1,
    isHeader(row.extra) ? 1 : 0,
    extra === 0 && whole === words.length ? 0 : 1,
    -whole,
    row.usage_rank ?? Infinity,
    first !== undefined && words[0] !== undefined && first.startsWith(words[0]) ? 0 : 1,
    position,
    extra,
    systemIndex,
    Math.max(0, length),
  ];
}

export function compareScores(a: ConceptScore, b: ConceptScore): number {
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return a[i]! < b[i]! ? -1 : 1;
  return 0;
}

/**
 * `rows` best first for `query`. `systems` is the field's list (its order breaks ties between
 * systems); `exactKeys` holds `system\ncode` of the rows the exact code search found. Ties
 * after every rule go to the display, then the code, in byte order: the same answer every time.
 */
export function rankConcepts<R extends ConceptRow>(rows: readonly R[], query: SearchQuery, systems: readonly string[], exactKeys: ReadonlySet<string>): R[] {
  const scored = rows.map((row) => ({ row, score: scoreConcept(row, query, systems.indexOf(row.system), exactKeys.has(conceptKey(row))) }));
  scored.sort((a, b) => compareScores(a.score, b.score) || byteOrder(a.row.display, b.row.display) || byteOrder(a.row.code, b.row.code));
  return scored.map((s) => s.row);
}

export const conceptKey = (row: Pick<ConceptRow, 'system' | 'code'>) => `${row.system}\n${row.code}`;

const byteOrder = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
