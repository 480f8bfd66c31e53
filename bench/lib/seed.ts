// Fills a fresh database with the benchmark's clinical data straight through the server's
// storage (its Kysely instance), in multi-row inserts inside transactions: 100k commands take
// seconds, not the minutes the API would need. Rows have the shape commands/create.ts writes.
import crypto from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import type { Engine } from '../../packages/server/src/storage/db.ts';
import type { CommandTable, Database, NoteTable, PatientTable } from '../../packages/server/src/storage/schema.ts';
import { commandKinds } from '../../packages/server/src/commands/kinds/index.ts';
import type { CommandKind, FieldDef } from '../../packages/server/src/commands/kinds/types.ts';
import { mulberry32 } from './random.ts';

export interface SeedPlan {
  patients: number;
  notes: number;
  /** The "database of N commands" the read scenarios run over: random kinds, mixed states. */
  commands: number;
  /** Staged plan commands for PATCH (rotated, each PATCHed many times). */
  patchFixtures: number;
  /** Staged plan commands with every field filled, one per commit request. */
  commitFixtures: number;
  /** The staff user the bench's token acts for (used as originator of most rows). */
  staffKey: string;
  /** SQLite: run ANALYZE after seeding (the server itself never does). */
  analyzeSqlite?: boolean;
}

export interface Seeded {
  patientKeys: string[];
  /** Unlocked notes that take commands: targets of create. */
  writableNotes: string[];
  /** A random sample of seeded command uuids, for GET. */
  sampleUuids: string[];
  patchUuids: string[];
  commitUuids: string[];
  /** Timestamp for the created_at__gte list scenario (about a quarter of the rows are newer). */
  createdAfter: number;
  seconds: { base: number; fixtures: number; analyze: number };
}

const DAY = 86_400_000_000;
const ROWS_PER_INSERT = 1_000;
const ROWS_PER_TRANSACTION = 10_000;

const newKey = () => crypto.randomBytes(16).toString('hex');

const WORDS =
  'patient reports improved sleep and appetite follow up in two weeks continue current regimen review labs at next visit blood pressure stable'.split(' ');
function text(rnd: () => number, words: number, maxLength = 10_000): string {
  const out: string[] = [];
  for (let i = 0; i < words; i++) out.push(WORDS[Math.floor(rnd() * WORDS.length)]!);
  return out.join(' ').slice(0, maxLength);
}

/** A value for every field of the kind, in the normalised form check-values.ts stores. */
export function fullValues(kind: CommandKind, rnd: () => number): Record<string, unknown> {
  const data: Record<string, unknown> = {};
  for (const field of kind.fields) data[field.name] = sampleValue(field, rnd);
  return data;
}

function sampleValue(field: FieldDef, rnd: () => number): unknown {
  const option = () => {
    const code = String(100000 + Math.floor(rnd() * 900000));
    return { text: `Option ${code}`, value: code, disabled: false, description: null, annotations: null, extra: null };
  };
  switch (field.type) {
    case 'MultiLineTextField':
      return text(rnd, 20, field.maxLength);
    case 'TextField':
      return text(rnd, 4, field.maxLength);
    case 'ChoiceField':
      return field.choices![Math.floor(rnd() * field.choices!.length)]!.value;
    case 'MultipleChoiceField':
      return [field.choices![0]!.value];
    case 'DateField':
      return '2026-03-14';
    case 'ApproximateDateField':
      return '2025-06';
    case 'IntegerField':
      return Math.max(field.min ?? 1, Math.min(field.max ?? 30, 30));
    case 'DecimalField':
      return '1.5';
    case 'CheckboxField':
      return rnd() < 0.5;
    case 'AutocompleteField':
      return field.multiple ? [option()] : option();
  }
}

async function insertInBatches<T extends keyof Database>(db: Kysely<Database>, table: T, rows: Array<Record<string, unknown>>): Promise<void> {
  for (let start = 0; start < rows.length; start += ROWS_PER_TRANSACTION) {
    const chunk = rows.slice(start, start + ROWS_PER_TRANSACTION);
    await db.transaction().execute(async (trx) => {
      for (let i = 0; i < chunk.length; i += ROWS_PER_INSERT) {
        await trx
          .insertInto(table)
          .values(chunk.slice(i, i + ROWS_PER_INSERT) as any)
          .execute();
      }
    });
  }
}

export async function seed(db: Kysely<Database>, engine: Engine, plan: SeedPlan): Promise<Seeded> {
  const rnd = mulberry32(20_26);
  const pick = <V>(items: readonly V[]): V => items[Math.floor(rnd() * items.length)]!;
  const started = performance.now();
  const now = Date.now() * 1000;

  const otherStaff = Array.from({ length: 4 }, newKey);
  await db
    .insertInto('staff')
    .values(otherStaff.map((key, i) => ({ key, name: `Bench clinician ${i + 1}`, created_at: now - 400 * DAY })))
    .execute();
  const staff = [plan.staffKey, plan.staffKey, plan.staffKey, ...otherStaff];

  const patients: PatientTable[] = Array.from({ length: plan.patients }, (_, i) => ({
    key: newKey(),
    first_name: `Bench${i}`,
    last_name: 'Patient',
    birth_date: '1970-01-01',
    created_at: now - 400 * DAY,
  }));
  // Notes over the last year (up to a month ago); one in ten is locked.
  const notes: NoteTable[] = Array.from({ length: plan.notes }, (_, i) => {
    const created = now - 365 * DAY + Math.floor(rnd() * 335 * DAY);
    const r = rnd();
    return {
      uuid: crypto.randomUUID(),
      patient_key: patients[i % patients.length]!.key,
      note_type: r < 0.85 ? 'encounter' : r < 0.95 ? 'review' : 'data_import',
      title: 'Bench note',
      locked: rnd() < 0.1 ? 1 : 0,
      deleted: 0,
      created_at: created,
      updated_at: created,
    };
  });
  await insertInBatches(db, 'patients', patients as never);
  await insertInBatches(db, 'notes', notes as never);

  // A few value variants per kind, serialised once.
  const kinds = [...commandKinds.values()];
  const variants = new Map(kinds.map((k) => [k.key, Array.from({ length: 8 }, () => JSON.stringify(fullValues(k, rnd)))]));
  const createdAts: number[] = [];
  const commands: CommandTable[] = [];
  for (let i = 0; i < plan.commands; i++) {
    const note = pick(notes);
    const kind = pick(kinds);
    const originator = pick(staff);
    const created = note.created_at + Math.floor(rnd() * DAY);
    const r = rnd();
    const state = r < 0.55 ? 'committed' : r < 0.9 ? 'staged' : 'entered_in_error';
    const committer = state === 'staged' ? null : pick(staff);
    const editors = [...new Set([originator, ...(committer ? [committer] : [])])];
    createdAts.push(created);
    commands.push({
      uuid: crypto.randomUUID(),
      schema_key: kind.key,
      note_uuid: note.uuid,
      patient_key: note.patient_key,
      state,
      data: pick(variants.get(kind.key)!),
      originated_by: originator,
      edited_by: JSON.stringify(editors),
      committed_by: committer,
      entered_in_error_by: state === 'entered_in_error' ? committer : null,
      created_at: created,
      updated_at: created + Math.floor(rnd() * 3_600_000_000),
    });
  }
  await insertInBatches(db, 'commands', commands as never);
  const baseDone = performance.now();

  // Fixtures for the write scenarios: staged plans in unlocked notes.
  const writable = notes.filter((n) => n.locked === 0);
  const staged = (count: number): CommandTable[] =>
    Array.from({ length: count }, () => {
      const note = pick(writable);
      const created = now - Math.floor(rnd() * 7 * DAY);
      return {
        uuid: crypto.randomUUID(),
        schema_key: 'plan',
        note_uuid: note.uuid,
        patient_key: note.patient_key,
        state: 'staged',
        data: JSON.stringify({ narrative: text(rnd, 20) }),
        originated_by: plan.staffKey,
        edited_by: JSON.stringify([plan.staffKey]),
        committed_by: null,
        entered_in_error_by: null,
        created_at: created,
        updated_at: created,
      };
    });
  const patch = staged(plan.patchFixtures);
  const commit = staged(plan.commitFixtures);
  await insertInBatches(db, 'commands', [...patch, ...commit] as never);
  const fixturesDone = performance.now();

  // PostgreSQL: what autovacuum would have done by the time a database is this size, done now so
  // it does not happen in the middle of a measurement. SQLite: left as the server leaves it (no
  // planner statistics) unless asked.
  if (engine === 'postgres') await sql`VACUUM ANALYZE`.execute(db);
  else if (plan.analyzeSqlite) await sql`ANALYZE`.execute(db);
  const analyzed = performance.now();

  const sorted = [...createdAts].sort((a, b) => a - b);
  const sample = Array.from({ length: Math.min(5_000, commands.length) }, () => pick(commands).uuid);
  return {
    patientKeys: patients.map((p) => p.key),
    writableNotes: writable.map((n) => n.uuid),
    sampleUuids: sample,
    patchUuids: patch.map((c) => c.uuid),
    commitUuids: commit.map((c) => c.uuid),
    createdAfter: sorted[Math.floor(sorted.length * 0.75)] ?? now,
    seconds: {
      base: (baseDone - started) / 1000,
      fixtures: (fixturesDone - baseDone) / 1000,
      analyze: (analyzed - fixturesDone) / 1000,
    },
  };
}
