// Patients and notes.
import { sql, type Kysely, type Selectable } from 'kysely';
import { executeCompiled } from './compiled.ts';
import { cappedList, countOf, countQuery } from './capped-list.ts';
import type { Engine } from './db.ts';
import type { Database, NoteTable, PatientTable } from './schema.ts';

type Db = Kysely<Database>;

export const insertPatient = (db: Db, row: PatientTable) => db.insertInto('patients').values(row).execute();
export const getPatient = (db: Db, key: string) => db.selectFrom('patients').selectAll().where('key', '=', key).executeTakeFirst();

/**
 * A page of patients whose name holds every one of `words` (already lower-cased), each anywhere in
 * "first last" ignoring case, ordered by last name, first name and key; counted like the notes
 * (capped-list.ts). `%`, `_` and `\\` in a word are matched as themselves.
 */
export function listPatients(db: Db, words: readonly string[], limit: number, offset: number, countCap: number) {
  const name = sql<string>`lower(first_name || ' ' || last_name)`;
  let base = db.selectFrom('patients');
  for (const word of words) base = base.where(sql<boolean>`${name} like ${`%${escapeLike(word)}%`} escape '\\'`);
  return cappedList(
    {
      page: (n, from) => base.selectAll().orderBy('last_name').orderBy('first_name').orderBy('key').limit(n).offset(from).execute(),
      count: async (max) => countOf(await countQuery(db, base, max).execute()),
    },
    limit,
    offset,
    countCap,
  );
}

const escapeLike = (text: string) => text.replace(/[\\%_]/g, (c) => `\\${c}`);

/** PostgreSQL: locks the patient's row for the transaction, so changes to one patient's chart run one at a time. */
export async function lockPatient(db: Db, key: string): Promise<void> {
  await db.selectFrom('patients').select('key').where('key', '=', key).forUpdate().execute();
}

export const insertNote = (db: Db, row: NoteTable) => db.insertInto('notes').values(row).execute();
export const getNote = (db: Db, uuid: string) => db.selectFrom('notes').selectAll().where('uuid', '=', uuid).executeTakeFirst();

/**
 * Reads a note inside a write transaction. On PostgreSQL the row is locked: `exclusive` for
 * changes to the note itself, shared for command writes, so a command cannot be committed into
 * a note that is being locked at the same moment. SQLite transactions are already serial.
 */
export const getNoteLocked = async (db: Db, engine: Engine, uuid: string, exclusive: boolean): Promise<Selectable<NoteTable> | undefined> =>
  (
    await executeCompiled(db, `note by uuid ${exclusive ? 'for update' : 'for share'}`, [uuid], ([id]) =>
      db
        .selectFrom('notes')
        .selectAll()
        .where('uuid', '=', id as string)
        .$if(engine === 'postgres', (q) => (exclusive ? q.forUpdate() : q.forShare())),
    )
  ).rows[0];

export const updateNote = (db: Db, uuid: string, set: Partial<Pick<NoteTable, 'locked' | 'deleted' | 'updated_at'>>) =>
  db.updateTable('notes').set(set).where('uuid', '=', uuid).execute();

/** A page of notes and its count, exact up to `offset + countCap` matching rows (capped-list.ts). */
export function listNotes(db: Db, filter: { patientKey?: string; deleted?: boolean }, limit: number, offset: number, countCap: number) {
  const base = db
    .selectFrom('notes')
    .$if(filter.patientKey !== undefined, (q) => q.where('patient_key', '=', filter.patientKey!))
    .$if(filter.deleted !== undefined, (q) => q.where('deleted', '=', filter.deleted ? 1 : 0));
  return cappedList(
    {
      page: (n, from) => base.selectAll().orderBy('created_at').orderBy('uuid').limit(n).offset(from).execute(),
      count: async (max) => countOf(await countQuery(db, base, max).execute()),
    },
    limit,
    offset,
    countCap,
  );
}
