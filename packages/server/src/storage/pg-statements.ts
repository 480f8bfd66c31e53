// Named (server-side prepared) statements on PostgreSQL (docs/performance.md, "Issue 12: what
// changed"): every parameterised statement Kysely sends is given a name derived from its text, so
// each connection parses and plans it once and afterwards only binds and executes it. Statements
// without parameters (BEGIN, COMMIT, ROLLBACK) stay on the simple protocol.
import type { PostgresPool, PostgresPoolClient } from 'kysely';
import type pg from 'pg';

/**
 * At most this many distinct statement texts get a name; any further text is sent unnamed. It
 * bounds what each connection keeps prepared (Charta sends a few dozen texts; only IN lists of
 * varying length and ad-hoc maintenance queries make more).
 */
export const MAX_NAMED_STATEMENTS = 1000;

/** One name per text, shared by every pool of the process: a name always means the same text. */
const names = new Map<string, string>();

/** The statement name for `text`, or undefined once the cap is reached. */
export function statementName(text: string): string | undefined {
  let name = names.get(text);
  if (name === undefined && names.size < MAX_NAMED_STATEMENTS) {
    name = `charta_${names.size}`;
    names.set(text, name);
  }
  return name;
}

/** Kysely's view of `pool`, sending parameterised statements as named ones. */
export function namedStatementPool(pool: pg.Pool): PostgresPool {
  return {
    connect: async (): Promise<PostgresPoolClient> => {
      const client = await pool.connect();
      const query = (text: unknown, values?: readonly unknown[]) => {
        if (typeof text !== 'string' || values === undefined || values.length === 0) return client.query(text as string, values as unknown[]);
        const name = statementName(text);
        return client.query(name === undefined ? { text, values: values as unknown[] } : { name, text, values: values as unknown[] });
      };
      return { query: query as unknown as PostgresPoolClient['query'], release: () => client.release() };
    },
    end: () => pool.end(),
  };
}
