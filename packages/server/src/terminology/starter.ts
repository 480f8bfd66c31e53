// The starter set that ships in packages/server/data/starter/: loaded on start when its files
// changed since the last load (their sha256 is kept in settings), never overwriting a concept
// already stored (an operator's imported release wins over the starter set) except to give it
// the usage rank the starter set has for it (release files carry none).
import crypto from 'node:crypto';
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { CodeSystems } from '@charta/api/constants';
import type { Storage } from '../storage/db.ts';
import { getSetting, putSetting } from '../storage/settings-repository.ts';
import { nowMicros } from '../lib/time.ts';
import { storeConcepts } from './store.ts';
import type { ConceptRecord } from './systems.ts';

export const STARTER_DIR = fileURLToPath(new URL('../../data/starter/', import.meta.url));
const SETTING = 'starter_terminology_sha256';

interface StarterFile {
  file: string;
  system: string;
  /** Columns every row must have (non-empty). */
  columns: number;
  /** A TSV row (header removed) as a concept. */
  record(columns: string[]): ConceptRecord;
}

export const STARTER_FILES: readonly StarterFile[] = [
  {
    file: 'icd10cm.tsv',
    system: CodeSystems.ICD10,
    columns: 2,
    // usage_rank: the code's place among the most common primary-care diagnoses (README.md there).
    record: ([code, display, rank]) => ({
      code: code!,
      display: display!,
      active: true,
      extra: { billable: true },
      ...(rank ? { usageRank: usageRank(rank, code!) } : {}),
    }),
  },
  { file: 'hcpcs.tsv', system: CodeSystems.HCPCS, columns: 2, record: ([code, display]) => ({ code: code!, display: display!, active: true }) },
  {
    file: 'rxnorm.tsv',
    system: CodeSystems.RXNORM,
    columns: 2,
    record: ([code, display, tty]) => ({ code: code!, display: display!, active: true, ...(tty ? { extra: { tty } } : {}) }),
  },
  {
    file: 'loinc.tsv',
    system: CodeSystems.LOINC,
    columns: 2,
    record: ([code, display, classType]) => ({
      code: code!,
      display: display!,
      active: true,
      ...(classType ? { extra: { class_type: Number(classType) } } : {}),
    }),
  },
  // Free-text instructions: SNOMED CT is licensed, so instruct's starter options are UNSTRUCTURED.
  { file: 'instructions.tsv', system: CodeSystems.UNSTRUCTURED, columns: 1, record: ([text]) => ({ code: text!, display: text!, active: true }) },
];

/** A usage rank column: a positive integer (1 = the most used). */
function usageRank(cell: string, code: string): number {
  if (!/^[1-9]\d*$/.test(cell)) throw new Error(`usage_rank of ${code} is not a positive integer: ${JSON.stringify(cell)}`);
  return Number(cell);
}

/** The rows of a starter TSV, header dropped, every row checked to have its columns. */
export function readStarterRows(file: string, columns: number): string[][] {
  const text = fs.readFileSync(`${STARTER_DIR}${file}`, 'utf8');
  const lines = text.split(/\r?\n/).filter((line) => line.trim() !== '');
  return lines.slice(1).map((line, i) => {
    const cells = line.split('\t').map((c) => c.trim());
    if (cells.length < columns || cells.slice(0, columns).some((c) => c === ''))
      throw new Error(`${file}: line ${i + 2} has fewer than ${columns} non-empty columns`);
    return cells;
  });
}

function starterHash(): string {
  const hash = crypto.createHash('sha256');
  for (const { file } of STARTER_FILES)
    hash
      .update(file)
      .update('\0')
      .update(fs.readFileSync(`${STARTER_DIR}${file}`))
      .update('\0');
  return hash.digest('hex');
}

/** Loads the starter terminologies if they changed since the last load; returns whether it did. */
export async function loadStarterTerminology(storage: Storage): Promise<boolean> {
  const hash = starterHash();
  if ((await getSetting(storage.db, SETTING)) === hash) return false;
  for (const starter of STARTER_FILES) {
    const rows = readStarterRows(starter.file, starter.columns);
    await storeConcepts(storage, starter.system, rows.map(starter.record), undefined, 'keep');
  }
  await storage.transact((trx) => putSetting(trx, SETTING, hash, nowMicros()));
  return true;
}
