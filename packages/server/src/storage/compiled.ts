// Hot queries built and compiled once per shape (docs/performance.md, "Issue 12: what changed").
// Kysely builds an operation tree and compiles it to SQL on every call, which cost as much as
// the primary-key read itself on a GET. Here a query is built once with placeholders in place of
// its values, compiled, and afterwards only its parameters are filled in: the SQL text is the
// same on every call of that shape, so the SQLite statement cache reuses it, and on PostgreSQL it
// is sent as a named statement (pg-statements.ts).
import { CompiledQuery, type Compilable, type Insertable, type Kysely, type QueryResult, type Updateable } from 'kysely';
import type { Database } from './schema.ts';
import { nameStatement } from './pg-statements.ts';
import { directRunOf, runAsync } from './sqlite-direct.ts';

type Db = Kysely<Database>;

/** Where each compiled parameter comes from: an index into the call's values, or -1 for a constant. */
interface Entry {
  sql: string;
  slots: number[];
  constants: readonly unknown[];
}

const MARK = '\u0000charta-placeholder:';
/** The compiled shapes, per SQL dialect (a transaction's Kysely instance shares its adapter with the database's). */
const cache = new Map<unknown, Map<string, Entry>>();
/**
 * Most shapes kept per dialect. The list's filters make many possible shapes: past this many, a
 * new shape is compiled for each call and not kept, so no caller can make the cache grow without bound.
 */
export const MAX_COMPILED_SHAPES = 2000;

function entryFor(db: Db, shape: string, count: number, build: (placeholders: readonly unknown[]) => Compilable<unknown>): Entry {
  const dialect = db.getExecutor().adapter.constructor;
  let shapes = cache.get(dialect);
  if (shapes === undefined) cache.set(dialect, (shapes = new Map()));
  let entry = shapes.get(shape);
  if (entry === undefined) {
    const compiled = build(Array.from({ length: count }, (_, i) => `${MARK}${i}`)).compile();
    if (compiled.sql.includes(MARK)) throw new Error(`compiled query ${shape}: a value was inlined into the SQL`);
    const slots = compiled.parameters.map((p) => (typeof p === 'string' && p.startsWith(MARK) ? Number(p.slice(MARK.length)) : -1));
    entry = { sql: compiled.sql, slots, constants: compiled.parameters };
    if (shapes.size < MAX_COMPILED_SHAPES) {
      nameStatement(compiled.sql);
      shapes.set(shape, entry);
    }
  }
  return entry;
}

/**
 * Runs the query `build` makes, compiled once per `shape`. `build` receives placeholders in place
 * of `values` and must use each as a value (a parameter), never to decide the query's shape:
 * whatever changes the SQL belongs in `shape`.
 */
export function executeCompiled<R>(
  db: Db,
  shape: string,
  values: readonly unknown[],
  build: (placeholders: readonly unknown[]) => Compilable<R>,
): Promise<QueryResult<R>> {
  const entry = entryFor(db, shape, values.length, build);
  const parameters = entry.slots.map((slot, i) => (slot < 0 ? entry.constants[i] : values[slot]));
  // Inside a SQLite group-commit batch: on the write connection, past Kysely's executor (sqlite-direct.ts).
  const run = directRunOf(db);
  if (run !== undefined) return runAsync(run, entry.sql, parameters) as Promise<QueryResult<R>>;
  return db.executeQuery(CompiledQuery.raw(entry.sql, parameters) as CompiledQuery<R>);
}

/** How many shapes are kept for `db`'s dialect (for tests). */
export const compiledShapeCount = (db: Db): number => cache.get(db.getExecutor().adapter.constructor)?.size ?? 0;

type Table = keyof Database;

/** INSERT of one row, compiled once per table and set of columns. */
export function insertRow<T extends Table>(db: Db, table: T, row: Insertable<Database[T]>): Promise<QueryResult<unknown>> {
  const columns = Object.keys(row).filter((c) => (row as Record<string, unknown>)[c] !== undefined);
  const values = columns.map((c) => (row as Record<string, unknown>)[c]);
  return executeCompiled(db, `insert ${table} ${columns.join()}`, values, (p) =>
    db.insertInto(table).values(Object.fromEntries(columns.map((c, i) => [c, p[i]])) as Insertable<Database[T]>),
  );
}

/** What updateRow uses of Kysely's update builder, without its column typing. */
interface UntypedUpdate {
  set(values: Record<string, unknown>): { where(column: string, op: '=', value: unknown): Compilable<unknown> };
}

/** UPDATE of the row whose `key` column is `id`, compiled once per table, key and set of columns. */
export function updateRow<T extends Table>(db: Db, table: T, key: string, id: unknown, set: Updateable<Database[T]>): Promise<QueryResult<unknown>> {
  const columns = Object.keys(set).filter((c) => (set as Record<string, unknown>)[c] !== undefined);
  const values = [...columns.map((c) => (set as Record<string, unknown>)[c]), id];
  return executeCompiled(db, `update ${table} ${columns.join()} by ${key}`, values, (p) =>
    // Kysely's column typing cannot follow a column name chosen at run time.
    (db.updateTable(table) as unknown as UntypedUpdate).set(Object.fromEntries(columns.map((c, i) => [c, p[i]]))).where(key, '=', p[columns.length]),
  );
}
