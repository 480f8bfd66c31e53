// Named (server-side prepared) statements on PostgreSQL, as docs/performance.md describes
// ("Issue 12: what changed"): the hot queries compiled once per shape (compiled.ts) are given a
// name, so each connection parses them once and afterwards only binds and executes them, and PostgreSQL may
// keep a generic plan for them. Only those: a search whose best plan depends on its values
// (autocomplete's text queries) is planned for its values every time, unnamed. Statements without
// parameters (BEGIN, COMMIT, ROLLBACK) stay on the simple protocol.
import type { PostgresPool, PostgresPoolClient } from 'kysely';
import type pg from 'pg';
import { isConnectionError } from './errors.ts';

/**
 * At most this many distinct statement texts get a name; any further text is sent unnamed. It
 * bounds what each connection keeps prepared (the compiled shapes are a few dozen).
 */
export const MAX_NAMED_STATEMENTS = 1000;

/** One name per text, shared by every pool of the process: a name always means the same text. */
const names = new Map<string, string>();

/** Sends `text` as a named statement from now on (until the cap is reached). */
export function nameStatement(text: string): void {
  if (!names.has(text) && names.size < MAX_NAMED_STATEMENTS) names.set(text, `charta_${names.size}`);
}

/** The statement name of `text`, if it has one. */
export const statementName = (text: string): string | undefined => names.get(text);

/** Told how long each connection was waited for, in seconds, when set (the metrics: storage/db.ts `observe`). */
export interface ConnectionWaits {
  waited: ((seconds: number) => void) | undefined;
}

/** Kysely's view of `pool`, sending parameterised statements as named ones. */
export function namedStatementPool(pool: pg.Pool, waits: ConnectionWaits = { waited: undefined }): PostgresPool {
  return {
    connect: async (): Promise<PostgresPoolClient> => {
      const waited = waits.waited;
      const started = waited === undefined ? 0 : performance.now();
      const client = await pool.connect();
      if (waited !== undefined) waited((performance.now() - started) / 1000);
      // A statement that failed because the connection broke marks the client broken: released,
      // it is discarded. The pool would see it close only when the socket's end is read, after the
      // statement's FATAL answer; until then it would hand the dead client to the next checkout.
      let broken = false;
      const failed = (err: unknown) => {
        if (isConnectionError(err)) broken = true;
        throw err;
      };
      const query = (text: unknown, values?: readonly unknown[]) => {
        // A submittable (a cursor) is returned as it is: it is not a promise.
        if (typeof text !== 'string') return client.query(text as string, values as unknown[]);
        if (values === undefined || values.length === 0) return client.query(text, values as unknown[]).catch(failed);
        const name = statementName(text);
        return client.query(name === undefined ? { text, values: values as unknown[] } : { name, text, values: values as unknown[] }).catch(failed);
      };
      return { query: query as unknown as PostgresPoolClient['query'], release: () => client.release(broken) };
    },
    end: () => pool.end(),
  };
}
