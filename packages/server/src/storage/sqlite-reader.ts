// Reads on SQLite outside a write go to connections of their own: in WAL mode they see the last
// committed state and never queue behind the write connection, which group-commit batches hold for
// a while. Either one connection on the event loop (`rowsOn`: better-sqlite3 is synchronous, so
// one statement at a time is guaranteed without a mutex) or reader threads
// (sqlite-read-threads.ts); Kysely sees both through this one dialect.
import type BetterSqlite3 from 'better-sqlite3';
import {
  type CompiledQuery,
  SqliteAdapter,
  SqliteIntrospector,
  SqliteQueryCompiler,
  type DatabaseConnection,
  type Dialect,
  type Driver,
  type Kysely,
  type QueryResult,
} from 'kysely';

/** Runs one query that returns rows, and gives its rows. */
export type ReadRows = (sql: string, params: readonly unknown[]) => Promise<unknown[]>;

/** The rows of a query on one connection of the event loop (its statements prepared by `prepare`). */
export function rowsOn(prepare: (sql: string) => BetterSqlite3.Statement): ReadRows {
  return (sql, params) => {
    const stmt = prepare(sql);
    if (!stmt.reader) return Promise.reject(new Error('the SQLite reader connection only runs queries that return rows'));
    return Promise.resolve(stmt.all(params as unknown[]));
  };
}

export class SqliteReaderDialect implements Dialect {
  /** `close` ends the connection when Kysely is destroyed (for threads: nothing, the storage closes them). */
  constructor(
    private readonly read: ReadRows,
    private readonly close: () => void,
  ) {}
  createAdapter = () => new SqliteAdapter();
  createQueryCompiler = () => new SqliteQueryCompiler();
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- Kysely's Dialect interface takes any database
  createIntrospector = (db: Kysely<any>) => new SqliteIntrospector(db);
  createDriver = (): Driver => new ReaderDriver(this.read, this.close);
}

class ReaderDriver implements Driver {
  private readonly connection: DatabaseConnection;
  constructor(
    read: ReadRows,
    private readonly close: () => void,
  ) {
    this.connection = {
      executeQuery: async <R>(query: CompiledQuery): Promise<QueryResult<R>> => ({ rows: (await read(query.sql, query.parameters)) as R[] }),
      streamQuery() {
        throw new Error('streaming is not supported on the SQLite readers');
      },
    };
  }
  async init() {}
  async acquireConnection() {
    return this.connection;
  }
  async beginTransaction(): Promise<void> {
    throw new Error('the SQLite readers do not run transactions; use the writer');
  }
  async commitTransaction() {}
  async rollbackTransaction() {}
  async releaseConnection() {}
  async destroy() {
    this.close();
  }
}
