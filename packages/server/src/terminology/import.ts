// `charta-server import-terminology`: a release file streamed through its parser into the
// concepts of its system, in batches, with a running count for a terminal.
import fs from 'node:fs';
import type { Storage } from '../storage/db.ts';
import { countConcepts } from '../storage/concepts-repository.ts';
import { createParseStats, parseSnomed, parseTerminology, readSnomedInactiveConcepts } from './formats/index.ts';
import { storeConcepts } from './store.ts';
import { TERMINOLOGIES, type TerminologyName } from './systems.ts';

export interface ImportSummary {
  system: string;
  terminology: string;
  file: string;
  /** Data lines read, lines deliberately left out (other sources, modifiers…), malformed lines skipped. */
  read: number;
  ignored: number;
  skipped: number;
  skipped_examples: string[];
  /** Concepts written by this run (new or updated; unchanged ones count too). */
  stored: number;
  /** The system's concepts after the run, and how many of them can be picked. */
  total: number;
  active: number;
  seconds: number;
}

export interface ImportOptions {
  /** SNOMED CT only: the RF2 concept snapshot, whose inactive concepts are stored inactive. */
  concepts?: string;
  progress?: (stored: number, read: number) => void;
}

/** A release file's stream, once it is open (an unreadable file fails here, with its own error). */
async function openStream(file: string): Promise<fs.ReadStream> {
  const input = fs.createReadStream(file);
  await new Promise<void>((resolve, reject) => {
    input.once('open', () => resolve());
    input.once('error', reject);
  });
  return input;
}

export async function importTerminology(storage: Storage, name: TerminologyName, file: string, options: ImportOptions = {}): Promise<ImportSummary> {
  const started = performance.now();
  const { system, label } = TERMINOLOGIES[name];
  const stats = createParseStats();
  const inactiveConcepts = options.concepts === undefined ? undefined : await readSnomedInactiveConcepts(await openStream(options.concepts));
  const input = await openStream(file);
  const records = inactiveConcepts === undefined ? parseTerminology(name, input, stats) : parseSnomed(input, stats, { inactiveConcepts });
  const stored = await storeConcepts(storage, system, records, (n) => options.progress?.(n, stats.read));
  const counts = await countConcepts(storage.db, system);
  return {
    system,
    terminology: label,
    file,
    read: stats.read,
    ignored: stats.ignored,
    skipped: stats.skipped,
    skipped_examples: stats.skippedExamples,
    stored,
    total: counts.total,
    active: counts.active,
    seconds: Math.round((performance.now() - started) / 100) / 10,
  };
}
