// Fills a migrated database with the benchmark's clinical data in bulk, not through the API and
// not through the server: 100k commands take seconds, 10M a few minutes. The server is not
// running meanwhile (charta-server.ts starts it afterwards), so the load has the database to
// itself:
// - SQLite: its own better-sqlite3 connection, locking_mode EXCLUSIVE, journal_mode MEMORY and
//   synchronous OFF for the load (WAL again at the end), a 2 GiB page cache for the primary-key
//   index, one prepared INSERT per row in transactions of 100k rows;
// - PostgreSQL: COPY FROM STDIN (pg-copy-streams) in one transaction, foreign-key triggers off
//   (session_replication_role = replica: the rows are consistent by construction), then VACUUM
//   ANALYZE as autovacuum would have done by the time a database is this size.
// On both, the commands table's secondary indexes (and on PostgreSQL its primary key) are dropped
// before the load and recreated from their own definitions after it: sorting once is much faster
// than 10M random inserts into nine B-trees. Rows have the shape commands/create.ts writes, in
// the order a real database receives them (by creation time).
import crypto from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type BetterSqlite3 from 'better-sqlite3';
import type { Client } from 'pg';
import type { Engine } from '../../packages/server/src/storage/db.ts';
import { commandKinds } from '../../packages/server/src/commands/kinds/index.ts';
import type { CommandKind, FieldDef } from '../../packages/server/src/commands/kinds/types.ts';
import { mulberry32 } from './random.ts';

const serverPackage = path.resolve(import.meta.dirname, '../../packages/server/package.json');
const requireServer = createRequire(serverPackage);
const Sqlite = requireServer('better-sqlite3') as typeof BetterSqlite3;
const pg = requireServer('pg') as typeof import('pg');
const { from: copyFrom } = createRequire(import.meta.url)('pg-copy-streams') as typeof import('pg-copy-streams');

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
  seconds: SeedSeconds;
}

export interface SeedSeconds {
  /** Staff, patients, notes and the commands the read scenarios run over (indexes dropped). */
  base: number;
  /** The write scenarios' staged plans. */
  fixtures: number;
  /** Recreating the commands table's indexes. */
  indexes: number;
  /** PostgreSQL: VACUUM ANALYZE; SQLite: ANALYZE when asked (BENCH_SQLITE_ANALYZE=1). */
  analyze: number;
}

/**
 * How many patients and notes a database of `commands` commands has: 400 commands per patient
 * and 100 per note (4 notes a patient), never fewer than at 100k (250 patients, 1,000 notes),
 * the shape the bench has always had at its default size.
 */
export function seedShape(commands: number): { patients: number; notes: number } {
  return { patients: Math.max(250, Math.round(commands / 400)), notes: Math.max(1_000, Math.round(commands / 100)) };
}

const DAY = 86_400_000_000;
const ROWS_PER_TRANSACTION = 100_000;
const SAMPLE = 5_000;
/** The low bits of a command's sort key hold its number (up to 268M commands); the rest its millisecond. */
const INDEX_BITS = 28n;
const INDEX_MASK = (1n << INDEX_BITS) - 1n;

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

type Value = string | number | null;

const STAFF_COLUMNS = ['key', 'name', 'created_at'];
const PATIENT_COLUMNS = ['key', 'first_name', 'last_name', 'birth_date', 'created_at'];
const NOTE_COLUMNS = ['uuid', 'patient_key', 'note_type', 'title', 'locked', 'deleted', 'created_at', 'updated_at'];
const COMMAND_COLUMNS = [
  'uuid',
  'schema_key',
  'note_uuid',
  'patient_key',
  'state',
  'data',
  'originated_by',
  'edited_by',
  'committed_by',
  'entered_in_error_by',
  'created_at',
  'updated_at',
];

/** Where the rows go: one implementation per engine, each with the database to itself. */
interface BulkWriter {
  /** Drops the commands table's indexes (their definitions kept for `restoreIndexes`). */
  dropIndexes(): Promise<void>;
  rows(table: string, columns: string[], rows: Iterable<Value[]>): Promise<void>;
  restoreIndexes(): Promise<void>;
  analyze(): Promise<void>;
  close(): Promise<void>;
}

export async function seed(url: string, engine: Engine, plan: SeedPlan): Promise<Seeded> {
  const writer = engine === 'sqlite' ? sqliteWriter(url.slice('sqlite:'.length), plan.analyzeSqlite === true) : await postgresWriter(url);
  try {
    return await fill(writer, plan);
  } finally {
    await writer.close();
  }
}

async function fill(writer: BulkWriter, plan: SeedPlan): Promise<Seeded> {
  const rnd = mulberry32(20_26);
  const pick = <V>(items: readonly V[]): V => items[Math.floor(rnd() * items.length)]!;
  const started = performance.now();
  const now = Date.now() * 1000;

  const otherStaff = Array.from({ length: 4 }, newKey);
  await writer.rows(
    'staff',
    STAFF_COLUMNS,
    otherStaff.map((key, i) => [key, `Bench clinician ${i + 1}`, now - 400 * DAY]),
  );
  const staff = [plan.staffKey, plan.staffKey, plan.staffKey, ...otherStaff];

  const patients = Array.from({ length: plan.patients }, (_, i) => ({ key: newKey(), name: `Bench${i}` }));
  // Notes over the last year (up to a month ago); one in ten is locked. Stored in creation order.
  const notes = Array.from({ length: plan.notes }, (_, i) => {
    const r = rnd();
    return {
      uuid: crypto.randomUUID(),
      patientKey: patients[i % patients.length]!.key,
      noteType: r < 0.85 ? 'encounter' : r < 0.95 ? 'review' : 'data_import',
      locked: rnd() < 0.1 ? 1 : 0,
      created: now - 365 * DAY + Math.floor(rnd() * 335 * DAY),
    };
  }).sort((a, b) => a.created - b.created);
  await writer.rows(
    'patients',
    PATIENT_COLUMNS,
    patients.map((p) => [p.key, p.name, 'Patient', '1970-01-01', now - 400 * DAY]),
  );
  await writer.rows(
    'notes',
    NOTE_COLUMNS,
    notes.map((n) => [n.uuid, n.patientKey, n.noteType, 'Bench note', n.locked, 0, n.created, n.created]),
  );

  await writer.dropIndexes();
  // Each command belongs to a random note and is created within a day of it. The table is filled
  // in creation order, as a real one is: a note's commands lie among the other notes' of that
  // day, not side by side (which would flatter every read of a patient's or a note's commands).
  // The order is a native sort of 64-bit keys: the millisecond since the first note, then the
  // command's number.
  const noteOf = new Uint32Array(plan.commands);
  const createdAts = new Float64Array(plan.commands);
  const order = new BigUint64Array(plan.commands);
  const origin = notes.length > 0 ? notes[0]!.created : now;
  for (let i = 0; i < plan.commands; i++) {
    const j = Math.floor(rnd() * notes.length);
    const created = notes[j]!.created + Math.floor(rnd() * DAY);
    noteOf[i] = j;
    createdAts[i] = created;
    order[i] = (BigInt(Math.floor((created - origin) / 1000)) << INDEX_BITS) | BigInt(i);
  }
  order.sort();
  // A few value variants per kind, serialised once; editor lists likewise.
  const kinds = [...commandKinds.values()];
  const variants = new Map(kinds.map((k) => [k.key, Array.from({ length: 8 }, () => JSON.stringify(fullValues(k, rnd)))]));
  const editorLists = new Map<string, string>();
  const editors = (originator: string, committer: string | null) => {
    const id = `${originator}|${committer}`;
    let list = editorLists.get(id);
    if (list === undefined) editorLists.set(id, (list = JSON.stringify([...new Set([originator, ...(committer ? [committer] : [])])])));
    return list;
  };
  const sample: string[] = [];
  function* commands(): Generator<Value[]> {
    for (let seen = 0; seen < plan.commands; seen++) {
      const i = Number(order[seen]! & INDEX_MASK);
      const note = notes[noteOf[i]!]!;
      const created = createdAts[i]!;
      const kind = pick(kinds);
      const originator = pick(staff);
      const r = rnd();
      const state = r < 0.55 ? 'committed' : r < 0.9 ? 'staged' : 'entered_in_error';
      const committer = state === 'staged' ? null : pick(staff);
      const uuid = crypto.randomUUID();
      // Reservoir sampling: every seeded command equally likely to be in the GET sample.
      if (seen < SAMPLE) sample.push(uuid);
      else {
        const at = Math.floor(rnd() * (seen + 1));
        if (at < SAMPLE) sample[at] = uuid;
      }
      yield [
        uuid,
        kind.key,
        note.uuid,
        note.patientKey,
        state,
        pick(variants.get(kind.key)!),
        originator,
        editors(originator, committer),
        committer,
        state === 'entered_in_error' ? committer : null,
        created,
        created + Math.floor(rnd() * 3_600_000_000),
      ];
    }
  }
  await writer.rows('commands', COMMAND_COLUMNS, commands());
  const baseDone = performance.now();

  // Fixtures for the write scenarios: staged plans in unlocked notes, created in the last week.
  const writable = notes.filter((n) => n.locked === 0);
  const staged = (count: number) =>
    Array.from({ length: count }, (): Value[] => {
      const note = pick(writable);
      const created = now - Math.floor(rnd() * 7 * DAY);
      const narrative = JSON.stringify({ narrative: text(rnd, 20) });
      return [
        crypto.randomUUID(),
        'plan',
        note.uuid,
        note.patientKey,
        'staged',
        narrative,
        plan.staffKey,
        editors(plan.staffKey, null),
        null,
        null,
        created,
        created,
      ];
    });
  const patch = staged(plan.patchFixtures);
  const commit = staged(plan.commitFixtures);
  await writer.rows('commands', COMMAND_COLUMNS, [...patch, ...commit]);
  const fixturesDone = performance.now();
  await writer.restoreIndexes();
  const indexed = performance.now();
  await writer.analyze();
  const analyzed = performance.now();

  return {
    patientKeys: patients.map((p) => p.key),
    writableNotes: writable.map((n) => n.uuid),
    sampleUuids: sample,
    patchUuids: patch.map((c) => c[0] as string),
    commitUuids: commit.map((c) => c[0] as string),
    createdAfter: plan.commands > 0 ? createdAts[Number(order[Math.floor(plan.commands * 0.75)]! & INDEX_MASK)]! : now,
    seconds: {
      base: (baseDone - started) / 1000,
      fixtures: (fixturesDone - baseDone) / 1000,
      indexes: (indexed - fixturesDone) / 1000,
      analyze: (analyzed - indexed) / 1000,
    },
  };
}

/**
 * The SQLite file opened for a bulk fill, its server closed: nobody else has the file. Out of WAL
 * mode (every page would be written twice, to the log and back) into a rollback journal kept in
 * memory (better-sqlite3's defensive mode refuses OFF); the caller gives WAL back at the end.
 */
export function openForBulkWrites(file: string): BetterSqlite3.Database {
  const db = new Sqlite(file);
  db.pragma('locking_mode = EXCLUSIVE');
  db.pragma('journal_mode = DELETE');
  db.pragma('journal_mode = MEMORY');
  db.pragma('synchronous = OFF');
  db.pragma('cache_size = -2097152');
  db.pragma('temp_store = FILE');
  return db;
}

function sqliteWriter(file: string, analyze: boolean): BulkWriter {
  const db = openForBulkWrites(file);
  let dropped: string[] = [];
  return {
    async dropIndexes() {
      const indexes = db.prepare("SELECT name, sql FROM sqlite_schema WHERE type = 'index' AND tbl_name = 'commands' AND sql IS NOT NULL").all() as Array<{
        name: string;
        sql: string;
      }>;
      for (const i of indexes) db.exec(`DROP INDEX "${i.name}"`);
      dropped = indexes.map((i) => i.sql);
    },
    async rows(table, columns, rows) {
      const insert = db.prepare(`INSERT INTO ${table} (${columns.join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`);
      let open = false;
      let n = 0;
      try {
        for (const row of rows) {
          if (!open) {
            db.exec('BEGIN');
            open = true;
          }
          insert.run(row);
          if (++n % ROWS_PER_TRANSACTION === 0) {
            db.exec('COMMIT');
            open = false;
          }
        }
        if (open) db.exec('COMMIT');
      } catch (err) {
        if (db.inTransaction) db.exec('ROLLBACK');
        throw err;
      }
    },
    async restoreIndexes() {
      for (const text of dropped) db.exec(text);
      dropped = [];
    },
    async analyze() {
      if (analyze) db.exec('ANALYZE');
    },
    async close() {
      db.pragma('journal_mode = WAL');
      db.close();
      // In exclusive locking mode the rollback journal is kept between transactions, emptied, not
      // deleted: every transaction has committed, so what is left is only an empty file.
      fs.rmSync(`${file}-journal`, { force: true });
    },
  };
}

/** COPY's text format: tab-separated, \N for null, backslash, tab and line breaks escaped. */
function copyField(v: Value): string {
  if (v === null) return '\\N';
  if (typeof v === 'number') return String(v);
  return /[\\\t\n\r]/.test(v) ? v.replace(/[\\\t\n\r]/g, (c) => ({ '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' })[c]!) : v;
}

async function postgresWriter(url: string): Promise<BulkWriter> {
  const client: Client = new pg.Client({ connectionString: url });
  await client.connect();
  // Index builds sort in memory rather than in temporary files.
  await client.query("SET maintenance_work_mem = '512MB'");
  await client.query('BEGIN');
  // Foreign-key triggers off for this session's load (the rows are consistent by construction).
  await client.query('SET LOCAL session_replication_role = replica');
  let indexes: string[] = [];
  let primaryKey: { name: string; definition: string } | undefined;
  return {
    async dropIndexes() {
      const pk = await client.query<{ name: string; definition: string }>(
        "SELECT conname AS name, pg_get_constraintdef(oid) AS definition FROM pg_constraint WHERE conrelid = 'commands'::regclass AND contype = 'p'",
      );
      primaryKey = pk.rows[0];
      const { rows } = await client.query<{ name: string; definition: string }>(
        "SELECT indexname AS name, indexdef AS definition FROM pg_indexes WHERE schemaname = current_schema() AND tablename = 'commands' AND indexname <> $1",
        [primaryKey?.name ?? ''],
      );
      for (const r of rows) await client.query(`DROP INDEX "${r.name}"`);
      if (primaryKey !== undefined) await client.query(`ALTER TABLE commands DROP CONSTRAINT "${primaryKey.name}"`);
      indexes = rows.map((r) => r.definition);
    },
    async rows(table, columns, rows) {
      const stream = client.query(copyFrom(`COPY ${table} (${columns.join(', ')}) FROM STDIN`));
      const done = new Promise<void>((resolve, reject) => {
        stream.on('finish', resolve);
        stream.on('error', reject);
      });
      let chunk = '';
      let n = 0;
      for (const row of rows) {
        chunk += row.map(copyField).join('\t') + '\n';
        if (++n % 2_000 === 0) {
          if (!stream.write(chunk)) await new Promise((resolve) => stream.once('drain', resolve));
          chunk = '';
        }
      }
      stream.end(chunk);
      await done;
    },
    async restoreIndexes() {
      if (primaryKey !== undefined) await client.query(`ALTER TABLE commands ADD CONSTRAINT "${primaryKey.name}" ${primaryKey.definition}`);
      for (const definition of indexes) await client.query(definition);
      await client.query('COMMIT');
      indexes = [];
      primaryKey = undefined;
    },
    async analyze() {
      // What autovacuum would have done by the time a database is this size, done now so it does
      // not happen in the middle of a measurement (it also sets the visibility map that
      // index-only scans rely on).
      await client.query('VACUUM ANALYZE');
    },
    async close() {
      await client.end();
    },
  };
}
