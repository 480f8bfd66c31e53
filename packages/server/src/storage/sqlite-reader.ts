// Reads on SQLite go through a second connection: in WAL mode it sees the last committed state
// and never queues behind the write connection, which group-commit batches hold for a while.
// better-sqlite3 is synchronous, so one statement at a time is guaranteed without a mutex.
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

export class SqliteReaderDialect implements Dialect {
  constructor(
    private readonly prepare: (sql: string) => BetterSqlite3.Statement,
    private readonly close: () => void,
  ) {}
  createAdapter = () => new SqliteAdapter();
  createQueryCompiler = () => new SqliteQueryCompiler();
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- Kysely's Dialect interface takes any database
  createIntrospector = (db: Kysely<any>) => new SqliteIntrospector(db);
  createDriver = (): Driver => new ReaderDriver(this.prepare, this.close);
}

class ReaderDriver implements Driver {
  private readonly connection: DatabaseConnection;
  constructor(
    prepare: (sql: string) => BetterSqlite3.Statement,
    private readonly close: () => void,
  ) {
    this.connection = {
      executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
        const stmt = prepare(query.sql);
        if (!stmt.reader) return Promise.reject(new Error('the SQLite reader connection only runs queries that return rows'));
        return Promise.resolve({ rows: stmt.all(query.parameters as unknown[]) as R[] });
      },
      streamQuery() {
        throw new Error('streaming is not supported on the SQLite reader connection');
      },
    };
  }
  async init() {}
  async acquireConnection() {
    return this.connection;
  }
  async beginTransaction(): Promise<void> {
    throw new Error('the SQLite reader connection does not run transactions; use the writer');
  }
  async commitTransaction() {}
  async rollbackTransaction() {}
  async releaseConnection() {}
  async destroy() {
    this.close();
  }
}
