// The SQLite write connection's statements, run without Kysely's executor inside a group-commit
// batch (docs/performance.md, "Writes past Kysely's executor"). Kysely runs each query through a
// connection provider, a mutex and a result transformation: about 2 µs of promises a statement,
// and a write runs six of them. Inside a batch the group commit already holds the one write
// connection, and better-sqlite3 runs a statement synchronously, so a compiled statement
// (compiled.ts) and the batch's own BEGIN, SAVEPOINT and COMMIT can run on it directly: the same
// SQL, the same prepared statement, the same result Kysely's SQLite driver gives.
import type BetterSqlite3 from 'better-sqlite3';
import type { Kysely, QueryResult } from 'kysely';
import type { Database } from './schema.ts';

/** Runs one statement on the write connection now, and gives what Kysely's SQLite driver would. */
export type RunStatement = (sql: string, parameters: readonly unknown[]) => QueryResult<unknown>;

/** Runs statements on one connection, prepared by `prepare` (its statement cache). */
export function runOn(prepare: (sql: string) => BetterSqlite3.Statement): RunStatement {
  return (sql, parameters) => {
    const stmt = prepare(sql);
    if (stmt.reader) return { rows: stmt.all(parameters as unknown[]) };
    const { changes, lastInsertRowid } = stmt.run(parameters as unknown[]);
    return { rows: [], numAffectedRows: BigInt(changes), insertId: BigInt(lastInsertRowid) };
  };
}

/** The transactions (a batch's Kysely instance) whose statements may run directly, while their batch runs. */
const direct = new WeakMap<Kysely<Database>, RunStatement>();

/** How `db`'s statements can run without Kysely's executor: only while a group-commit batch holds it. */
export const directRunOf = (db: Kysely<Database>): RunStatement | undefined => direct.get(db);

/** Lets `conn`'s statements run through `run` while `work` runs (the batch holds the connection), and no longer. */
export async function withDirectRun<T>(conn: Kysely<Database>, run: RunStatement, work: () => Promise<T>): Promise<T> {
  direct.set(conn, run);
  try {
    return await work();
  } finally {
    direct.delete(conn);
  }
}

/** `run`'s result as a promise: a statement that throws is a rejection, as through Kysely. */
export function runAsync(run: RunStatement, sql: string, parameters: readonly unknown[]): Promise<QueryResult<unknown>> {
  try {
    return Promise.resolve(run(sql, parameters));
  } catch (error) {
    return Promise.reject(error);
  }
}
