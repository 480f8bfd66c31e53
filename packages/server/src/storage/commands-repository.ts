// Commands: rows in, rows out, and the indexed list query.
import type { Insertable, Kysely, QueryCreator, Selectable } from 'kysely';
import type { Engine } from './db.ts';
import type { AuditEventTable, CommandTable, Database } from './schema.ts';
import { executeCompiled, insertRow, updateRow } from './compiled.ts';
import { cappedList, countOf, countQuery } from './capped-list.ts';
import type { NewPluginEvent } from './plugin-events-repository.ts';

type Db = Kysely<Database>;

type Row = Selectable<CommandTable>;

/** A write's audit row, inserted with it. */
type AuditRow = Insertable<AuditEventTable>;

const columnsOf = (row: object) => Object.keys(row).filter((c) => (row as Record<string, unknown>)[c] !== undefined);
const valuesOf = (row: object, columns: string[]) => columns.map((c) => (row as Record<string, unknown>)[c]);
const rowOf = (columns: string[], placeholders: readonly unknown[], from: number) => Object.fromEntries(columns.map((c, i) => [c, placeholders[from + i]]));

/**
 * What a command write inserts besides the command: its audit row and, when a plugin handler
 * listens, its POST event's outbox row (runtime/outbox.ts). On PostgreSQL all of it is one
 * statement, the command's write and the outbox row as data-modifying WITHs: one round trip, each
 * of which costs this machine a system call and PostgreSQL a statement (docs/performance.md,
 * "Commits with plugins enabled").
 */
export interface WrittenWith {
  audit: AuditRow;
  outbox?: NewPluginEvent;
}

/** SQLite, in process: the audit row and the outbox row after the command's own statement. */
async function insertAlongside(db: Db, { audit, outbox }: WrittenWith): Promise<void> {
  await insertRow(db, 'audit_events', audit);
  if (outbox !== undefined) await insertRow(db, 'plugin_events', outbox);
}

/**
 * PostgreSQL: the statement that writes `written` (a WITH naming the command's insert or update)
 * and then the audit row, and the outbox row when there is one, from the placeholders `p` after `from`.
 */
function statementWith(written: QueryCreator<Database>, p: readonly unknown[], from: number, shape: { audit: string[]; outbox: string[] }) {
  const outboxFrom = from + shape.audit.length;
  // Nothing reads the outbox WITH: PostgreSQL runs a data-modifying WITH whether or not it is read.
  const creator =
    shape.outbox.length === 0
      ? written
      : (written.with('outbox', (w) =>
          w
            .insertInto('plugin_events')
            .values(rowOf(shape.outbox, p, outboxFrom) as unknown as NewPluginEvent)
            .returning('id'),
        ) as unknown as QueryCreator<Database>);
  return creator.insertInto('audit_events').values(rowOf(shape.audit, p, from) as unknown as AuditRow);
}

/** The columns of the audit and outbox rows, as a statement's shape names them, and their values in order. */
function alongside({ audit, outbox }: WrittenWith) {
  const shape = { audit: columnsOf(audit), outbox: outbox === undefined ? [] : columnsOf(outbox) };
  const name = `with audit ${shape.audit.join()}${outbox === undefined ? '' : ` and outbox ${shape.outbox.join()}`}`;
  return { shape, name, values: [...valuesOf(audit, shape.audit), ...(outbox === undefined ? [] : valuesOf(outbox, shape.outbox))] };
}

/**
 * Inserts a command with its audit row (and its outbox row): one statement on PostgreSQL, one
 * round trip (WrittenWith); SQLite, in process, runs them one after another.
 */
export async function insertCommandWithAudit(db: Db, engine: Engine, row: CommandTable, with_: WrittenWith): Promise<void> {
  if (engine === 'sqlite') {
    await insertRow(db, 'commands', row);
    await insertAlongside(db, with_);
    return;
  }
  const columns = columnsOf(row);
  const rest = alongside(with_);
  await executeCompiled(db, `insert commands ${columns.join()} ${rest.name}`, [...valuesOf(row, columns), ...rest.values], (p) =>
    statementWith(
      db.with('written', (w) =>
        w
          .insertInto('commands')
          .values(rowOf(columns, p, 0) as unknown as CommandTable)
          .returning('uuid'),
      ) as unknown as QueryCreator<Database>,
      p,
      columns.length,
      rest.shape,
    ),
  );
}

/** Changes a command and inserts its audit row (and its outbox row), as insertCommandWithAudit. */
export async function updateCommandWithAudit(
  db: Db,
  engine: Engine,
  uuid: string,
  set: Partial<Omit<CommandTable, 'uuid'>>,
  with_: WrittenWith,
): Promise<void> {
  if (engine === 'sqlite') {
    await updateRow(db, 'commands', 'uuid', uuid, set);
    await insertAlongside(db, with_);
    return;
  }
  const columns = columnsOf(set);
  const rest = alongside(with_);
  await executeCompiled(db, `update commands ${columns.join()} ${rest.name}`, [...valuesOf(set, columns), uuid, ...rest.values], (p) =>
    statementWith(
      db.with('written', (w) =>
        w
          .updateTable('commands')
          .set(rowOf(columns, p, 0))
          .where('uuid', '=', p[columns.length] as string)
          .returning('uuid'),
      ) as unknown as QueryCreator<Database>,
      p,
      columns.length + 1,
      rest.shape,
    ),
  );
}

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

/**
 * The list's count, up to `max` rows: separate so tests can EXPLAIN it. With no filter at all it
 * walks the page's ordering index rather than the table: PostgreSQL otherwise counts the first
 * `max` rows of a sequential scan, thousands of wide table pages that stop being cached as the
 * table grows.
 */
export function commandCountQuery(db: Db, filter: CommandFilter, order: CommandOrder, max: number) {
  const matching = filtered(db, filter);
  const unfiltered = filter.times.length === 0 && FILTER_COLUMNS.every((c) => filter[c] === undefined);
  return countQuery(db, unfiltered ? matching.orderBy(order.column) : matching, max);
}

/**
 * A page of the list and its count, exact up to `offset + countCap` matching rows (capped-list.ts).
 * Both queries are compiled once per shape of the filter and the ordering (compiled.ts).
 */
export function listCommands(db: Db, filter: CommandFilter, order: CommandOrder, limit: number, offset: number, countCap: number) {
  const shape = filterShape(filter);
  const n = shape.values.length;
  return cappedList(
    {
      page: async (rows, from) =>
        (
          await executeCompiled(db, `command page ${shape.key} by ${order.column} ${order.direction}`, [...shape.values, rows, from], (p) =>
            commandPageQuery(db, shape.withValues(p), order, p[n] as number, p[n + 1] as number),
          )
        ).rows as Row[],
      count: async (max) =>
        countOf(
          (
            await executeCompiled(db, `command count ${shape.key} by ${order.column}`, [...shape.values, max], (p) =>
              commandCountQuery(db, shape.withValues(p), order, p[n] as number),
            )
          ).rows,
        ),
    },
    limit,
    offset,
    countCap,
  );
}

const FILTER_COLUMNS = ['patient_key', 'note_uuid', 'originated_by', 'committed_by', 'schema_key', 'state'] as const;

/** Which conditions a filter has (`key`), their values in order, and the same filter made of other values (placeholders). */
function filterShape(filter: CommandFilter) {
  const columns = FILTER_COLUMNS.filter((c) => filter[c] !== undefined);
  return {
    key: [...columns, ...filter.times.map((t) => `${t.column}${t.op}`)].join(' '),
    values: [...columns.map((c) => filter[c]), ...filter.times.map((t) => t.value)],
    withValues: (p: readonly unknown[]): CommandFilter => ({
      ...Object.fromEntries(columns.map((c, i) => [c, p[i]])),
      times: filter.times.map((t, i) => ({ ...t, value: p[columns.length + i] as number })),
    }),
  };
}

function filtered(db: Db, filter: CommandFilter) {
  let base = db.selectFrom('commands');
  for (const column of FILTER_COLUMNS) {
    const value = filter[column];
    if (value !== undefined) base = base.where(column, '=', value);
  }
  for (const t of filter.times) base = base.where(t.column, t.op, t.value);
  return base;
}
