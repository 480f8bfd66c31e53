// Commands: rows in, rows out, and the indexed list query.
import type { Kysely, Selectable } from 'kysely';
import type { Engine } from './db.ts';
import type { CommandTable, Database } from './schema.ts';
import { executeCompiled, insertRow, updateRow } from './compiled.ts';

type Db = Kysely<Database>;

type Row = Selectable<CommandTable>;

export const insertCommand = (db: Db, row: CommandTable) => insertRow(db, 'commands', row);

export const getCommand = async (db: Db, uuid: string): Promise<Row | undefined> =>
  (
    await executeCompiled(db, 'command by uuid', [uuid], ([id]) =>
      db
        .selectFrom('commands')
        .selectAll()
        .where('uuid', '=', id as string),
    )
  ).rows[0];

/** A command's note as a write checks it. */
export interface NoteState {
  note_type: string;
  locked: number;
  deleted: number;
}

/**
 * Reads a command and its note inside a write transaction in one statement: on PostgreSQL the
 * command's row is locked for update and the note's for share (as getNoteLocked does for a
 * note alone), in one round trip.
 */
export const getCommandWithNoteForUpdate = async (db: Db, engine: Engine, uuid: string): Promise<{ row: Row; note: NoteState } | undefined> => {
  const found = (
    await executeCompiled(db, 'command and note by uuid for update', [uuid], ([id]) =>
      db
        .selectFrom('commands')
        .innerJoin('notes', 'notes.uuid', 'commands.note_uuid')
        .selectAll('commands')
        .select(['notes.note_type as note__note_type', 'notes.locked as note__locked', 'notes.deleted as note__deleted'])
        .where('commands.uuid', '=', id as string)
        .$if(engine === 'postgres', (q) => q.forUpdate(['commands']).forShare(['notes'])),
    )
  ).rows[0];
  if (found === undefined) return undefined;
  const { note__note_type, note__locked, note__deleted, ...row } = found;
  return { row, note: { note_type: note__note_type, locked: note__locked, deleted: note__deleted } };
};

export const updateCommand = (db: Db, uuid: string, set: Partial<Omit<CommandTable, 'uuid'>>) => updateRow(db, 'commands', 'uuid', uuid, set);

export const deleteCommand = (db: Db, uuid: string) => db.deleteFrom('commands').where('uuid', '=', uuid).execute();

export interface CommandFilter {
  patient_key?: string;
  note_uuid?: string;
  originated_by?: string;
  committed_by?: string;
  schema_key?: string;
  state?: string;
  /** Range and equality conditions on the timestamps, in microseconds. */
  times: Array<{ column: 'created_at' | 'updated_at'; op: '<' | '<=' | '>' | '>=' | '='; value: number }>;
}

export interface CommandOrder {
  column: 'created_at' | 'updated_at';
  direction: 'asc' | 'desc';
}

/** The page query of a list, separate so tests can EXPLAIN it. */
export function commandPageQuery(db: Db, filter: CommandFilter, order: CommandOrder, limit: number, offset: number) {
  return filtered(db, filter).selectAll().orderBy(order.column, order.direction).orderBy('uuid', order.direction).limit(limit).offset(offset);
}

export async function listCommands(db: Db, filter: CommandFilter, order: CommandOrder, limit: number, offset: number) {
  const [rows, total] = await Promise.all([
    commandPageQuery(db, filter, order, limit, offset).execute(),
    filtered(db, filter)
      .select((eb) => eb.fn.countAll().as('n'))
      .executeTakeFirstOrThrow(),
  ]);
  return { rows, count: Number(total.n) };
}

function filtered(db: Db, filter: CommandFilter) {
  let base = db.selectFrom('commands');
  for (const column of ['patient_key', 'note_uuid', 'originated_by', 'committed_by', 'schema_key', 'state'] as const) {
    const value = filter[column];
    if (value !== undefined) base = base.where(column, '=', value);
  }
  for (const t of filter.times) base = base.where(t.column, t.op, t.value);
  return base;
}
