// Text as the search indexes hold it and as search terms are read: accents stripped
// (NFKD, combining marks removed), lower case, every run of anything but letters and digits
// one space. A search term is only ever turned into such words — never into query syntax —
// so quotes, `*`, `NEAR`, `%` or `_` in it are plain text that matches nothing special.

const NOT_WORD = /[^\p{L}\p{N}]+/gu;
const MARKS = /\p{M}+/gu;

/** "Crème Brûlée, 2-day" → "creme brulee 2 day". */
export function normalizeText(text: string): string {
  return text.normalize('NFKD').replace(MARKS, '').toLowerCase().replace(NOT_WORD, ' ').trim();
}

/** A code as compared for an exact match: upper case, letters and digits only ("e11.9" → "E119"). */
export function codeKey(code: string): string {
  return code.normalize('NFKD').replace(MARKS, '').toUpperCase().replace(NOT_WORD, '');
}

/** Longest search term accepted, in characters. */

/** Words of a search term used; the rest are ignored. */
export const MAX_SEARCH_WORDS = 8;

export interface SearchQuery {
  /** Normalised words, in the order typed, without duplicates; each matches a word prefix. */
  words: string[];
  /** The whole term as a code key, for the exact code match ('' when it has none). */
  code: string;
}

export function parseSearchTerm(term: string): SearchQuery {
  const words = [...new Set(normalizeText(term).split(' ').filter(Boolean))].slice(0, MAX_SEARCH_WORDS);
  return { words, code: codeKey(term) };
}

/** Whether every word of `query` starts a word of `text` (both normalised). */
export function matchesAllWords(normalizedText: string, words: readonly string[]): boolean {
  const padded = ` ${normalizedText}`;
  return words.every((w) => padded.includes(` ${w}`));
}
