// Writing concepts: records from an importer or the starter set, normalised for the three
// searches and upserted in batches, each batch one transaction (a crash keeps what was
// committed; running the same file again changes nothing).
import type { Storage } from '../storage/db.ts';
import { upsertConcepts, type NewConcept } from '../storage/concepts-repository.ts';
import { nowMicros } from '../lib/time.ts';
import { codeKey, normalizeText } from './normalize.ts';
import type { ConceptRecord } from './systems.ts';

const BATCH = 500;

export function toRow(system: string, record: ConceptRecord, now: number): NewConcept {
  const display = record.display;
  const displayKey = normalizeText(display);
  return {
    system,
    code: record.code,
    code_key: codeKey(record.code),
    display,
    display_key: displayKey,
    search_text: `${normalizeText(record.code)} ${displayKey}`.trim(),
    active: record.active ? 1 : 0,
    extra: record.extra === undefined || Object.keys(record.extra).length === 0 ? null : JSON.stringify(record.extra),
    usage_rank: record.usageRank ?? null,
    updated_at: now,
  };
}

/**
 * Stores every record of `records` under `system`; `progress` is told the count after each batch.
 * `existing: 'keep'` leaves concepts already stored as they are (the starter set).
 */
export async function storeConcepts(
  storage: Storage,
  system: string,
  records: AsyncIterable<ConceptRecord> | Iterable<ConceptRecord>,
  progress: (stored: number) => void = () => undefined,
  existing: 'update' | 'keep' = 'update',
): Promise<number> {
  // Keyed by code: a code twice in one batch would be one upsert touching a row twice.
  let batch = new Map<string, NewConcept>();
  let stored = 0;
  const flush = async () => {
    if (batch.size === 0) return;
    const rows = [...batch.values()];
    batch = new Map();
    await storage.transact((trx) => upsertConcepts(trx, rows, existing));
    stored += rows.length;
    progress(stored);
  };
  const now = nowMicros();
  for await (const record of records) {
    batch.set(record.code, toRow(system, record, now));
    if (batch.size >= BATCH) await flush();
  }
  await flush();
  return stored;
}
