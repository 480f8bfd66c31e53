// The search index of the reference data: each searchable entry is a row of `concepts` under a
// namespace system (systems.ts) with the entry's id as its code, written in the same transaction
// as the entry, so the terminology search (exact code, display start, words anywhere — each an
// index lookup on both engines) finds reference data too. `code_key` holds the entry's own code
// (order code, NCPDP id, NPI…) so typing it ranks the entry first.
import type { Kysely } from 'kysely';
import type { Engine } from '../storage/db.ts';
import type { Database } from '../storage/schema.ts';
import { firstConcepts, upsertConcepts, type NewConcept } from '../storage/concepts-repository.ts';
import { searchConcepts } from '../terminology/search.ts';
import { codeKey, normalizeText, parseSearchTerm } from '../terminology/normalize.ts';
import { nowMicros } from '../lib/time.ts';

export interface IndexEntry {
  system: string;
  /** The entry's id: what a search answers. */
  id: string;
  /** What the display-start search compares (the option's text). */
  display: string;
  /** The entry's own code, matched exactly ('' when it has none). */
  code?: string;
  /** More words the entry is found by (codes, address, abstract…). */
  words?: string[];
  active?: boolean;
}

export function toIndexRow(entry: IndexEntry, now = nowMicros()): NewConcept {
  const displayKey = normalizeText(entry.display);
  const words = [entry.code ?? '', displayKey, ...(entry.words ?? [])].map(normalizeText).filter(Boolean);
  return {
    system: entry.system,
    code: entry.id,
    code_key: codeKey(entry.code ?? ''),
    display: entry.display,
    display_key: displayKey,
    search_text: [...new Set(words.join(' ').split(' '))].join(' '),
    active: entry.active === false ? 0 : 1,
    extra: null,
    usage_rank: null,
    updated_at: now,
  };
}

/** Writes (or rewrites) index entries; call inside the transaction that writes the entries. */
export async function indexEntries(trx: Kysely<Database>, entries: IndexEntry[]): Promise<void> {
  const now = nowMicros();
  await upsertConcepts(
    trx,
    entries.map((e) => toIndexRow(e, now)),
  );
}

/**
 * Ids of the entries of `systems` matching `term`, best first. An empty term gives the first
 * entries in display order: reference lists are short, and a dropdown shows them before any
 * typing (docs/api.md, "Autocomplete").
 */
export async function searchIds(db: Kysely<Database>, engine: Engine, systems: readonly string[], term: string, limit: number): Promise<string[]> {
  const rows = isEmptyTerm(term) ? await firstConcepts(db, systems, limit) : await searchConcepts(db, engine, systems, term, limit);
  return rows.map((c) => c.code);
}

/** A term with nothing to search by: no word and no code. */
export function isEmptyTerm(term: string): boolean {
  const { words, code } = parseSearchTerm(term);
  return words.length === 0 && code === '';
}

/** `rows` in the order of `ids` (rows missing for an id are skipped). */
export function inOrder<R>(ids: string[], rows: R[], idOf: (row: R) => string): R[] {
  const byId = new Map(rows.map((r) => [idOf(r), r]));
  return ids.flatMap((id) => {
    const row = byId.get(id);
    return row === undefined ? [] : [row];
  });
}
