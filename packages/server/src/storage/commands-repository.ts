// Commands: rows in, rows out, and the indexed list query.
import type { Kysely, Selectable } from 'kysely';
import type { Engine } from './db.ts';
import type { CommandTable, Database } from './schema.ts';
import { executeCompiled, insertRow, updateRow } from './compiled.ts';
import { cappedList, countQuery } from './capped-list.ts';

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

/** Reads a command inside a write transaction, locking its row on PostgreSQL. */
export const getCommandForUpdate = async (db: Db, engine: Engine, uuid: string): Promise<Row | undefined> =>
  (
    await executeCompiled(db, 'command by uuid for update', [uuid], ([id]) =>
      db
        .selectFrom('commands')
        .selectAll()
        .where('uuid', '=', id as string)
        .$if(engine === 'postgres', (q) => q.forUpdate()),
    )
  ).rows[0];

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

/** The list's count, up to `max` rows: separate so tests can EXPLAIN it. */
export const commandCountQuery = (db: Db, filter: CommandFilter, max: number) => countQuery(db, filtered(db, filter), max);

/** A page of the list and its count, exact up to `offset + countCap` matching rows (capped-list.ts). */
export const listCommands = (db: Db, filter: CommandFilter, order: CommandOrder, limit: number, offset: number, countCap: number) =>
  cappedList(db, { page: (n, from) => commandPageQuery(db, filter, order, n, from).execute(), matching: filtered(db, filter) }, limit, offset, countCap);

function filtered(db: Db, filter: CommandFilter) {
  let base = db.selectFrom('commands');
  for (const column of ['patient_key', 'note_uuid', 'originated_by', 'committed_by', 'schema_key', 'state'] as const) {
    const value = filter[column];
    if (value !== undefined) base = base.where(column, '=', value);
  }
  for (const t of filter.times) base = base.where(t.column, t.op, t.value);
  return base;
}
