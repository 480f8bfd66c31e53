// Commands: rows in, rows out, and the indexed list query.
import type { Kysely } from 'kysely';
import type { Engine } from './db.ts';
import type { CommandTable, Database } from './schema.ts';

type Db = Kysely<Database>;

export const insertCommand = (db: Db, row: CommandTable) => db.insertInto('commands').values(row).execute();

export const getCommand = (db: Db, uuid: string) => db.selectFrom('commands').selectAll().where('uuid', '=', uuid).executeTakeFirst();

/** Reads a command inside a write transaction, locking its row on PostgreSQL. */
export const getCommandForUpdate = (db: Db, engine: Engine, uuid: string) =>
  db
    .selectFrom('commands')
    .selectAll()
    .where('uuid', '=', uuid)
    .$if(engine === 'postgres', (q) => q.forUpdate())
    .executeTakeFirst();

export const updateCommand = (db: Db, uuid: string, set: Partial<Omit<CommandTable, 'uuid'>>) =>
  db.updateTable('commands').set(set).where('uuid', '=', uuid).execute();

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
