// The bare-pg baseline (issue 12): for each Commands API path measured on PostgreSQL, a route on a
// bare Fastify app that sends the same SQL Charta sends for it (captured from Charta's own pg
// client with bench/capture-sql.ts) through Charta's own pg pool, with no Charta code: no auth,
// no schemas, no hooks, no Kysely, the row as JSON. It runs in the Charta server's process, so
// the same pool, the same process and the same CPU meter measure both; Charta's app is idle while
// a twin is measured. Each twin's ratio, Charta req/s ÷ twin req/s, is what issue 12 asks to
// bring to 0.6, and issue "Speed, second pass" to 0.7 (docs/performance.md, "Bare twins"). Like
// Charta, it writes the audit row of every read (one per patient a page shows) without the reader
// waiting for it: the rows of one turn of the event loop in one transaction.
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Pool, PoolClient } from 'pg';
import { COUNT_CAP, NotFound, NotStaged, commandRead, micros, newPlan, pageAnswer, pageRead, statusOf, writeAudit, type TwinActor } from './bare-twin.ts';

const serverPackage = path.resolve(import.meta.dirname, '../../packages/server/package.json');
const fastifyEntry = createRequire(serverPackage).resolve('fastify');
const { default: Fastify } = (await import(pathToFileURL(fastifyEntry).href)) as typeof import('fastify');

/** Who the writes are attributed to: the bench token's staff user and credential, as Charta writes them. */
export type BarePgArgs = TwinActor;

const SELECT_BY_UUID = 'select * from "commands" where "uuid" = $1';
const LIST_STATE = 'select * from "commands" where "patient_key" = $1 and "state" = $2 order by "created_at" asc, "uuid" asc limit $3 offset $4';
const COUNT_STATE = 'select count(*) as "n" from (select 1 as "one" from "commands" where "patient_key" = $1 and "state" = $2 limit $3) as "matching"';
const LIST_CREATED = 'select * from "commands" where "patient_key" = $1 and "created_at" >= $2 order by "created_at" asc, "uuid" asc limit $3 offset $4';
const COUNT_CREATED = 'select count(*) as "n" from (select 1 as "one" from "commands" where "patient_key" = $1 and "created_at" >= $2 limit $3) as "matching"';
const NOTE_FOR_SHARE = 'select * from "notes" where "uuid" = $1 for share';
const COMMAND_AND_NOTE_FOR_UPDATE =
  'select "commands".*, "notes"."note_type" as "note__note_type", "notes"."locked" as "note__locked", "notes"."deleted" as "note__deleted" from "commands" inner join "notes" on "notes"."uuid" = "commands"."note_uuid" where "commands"."uuid" = $1 for update of "commands" for share of "notes"';
const INSERT_COMMAND =
  'insert into "commands" ("uuid", "schema_key", "note_uuid", "patient_key", "state", "data", "originated_by", "edited_by", "committed_by", "entered_in_error_by", "created_at", "updated_at") values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)';
const UPDATE_DATA = 'update "commands" set "data" = $1, "edited_by" = $2, "updated_at" = $3 where "uuid" = $4';
const UPDATE_COMMIT = 'update "commands" set "state" = $1, "committed_by" = $2, "edited_by" = $3, "updated_at" = $4 where "uuid" = $5';
/**
 * A write and its audit row in one statement, as Charta sends them: the write as a data-modifying
 * WITH, the audit row's values after the write's, its patient and note last (the columns Charta
 * fills since migration 018, each leading an index).
 */
const withAudit = (write: string, params: number) =>
  `with "written" as (${write} returning "uuid") insert into "audit_events" ("occurred_at", "actor", "credential", "action", "entity_type", "entity_id", "before", "after", "request_id", "patient_key", "note_key") values (${Array.from({ length: 11 }, (_, i) => `$${params + i + 1}`).join(', ')})`;
const CREATE_WITH_AUDIT = withAudit(INSERT_COMMAND, 12);
/** A read's audit row, as Charta's read audit writes it (audit/reads.ts). */
const INSERT_READ_AUDIT =
  'insert into "audit_events" ("occurred_at", "actor", "credential", "action", "entity_type", "entity_id", "before", "after", "request_id", "patient_key", "note_key") values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)';
const UPDATE_DATA_WITH_AUDIT = withAudit(UPDATE_DATA, 4);
const UPDATE_COMMIT_WITH_AUDIT = withAudit(UPDATE_COMMIT, 5);
// Charta notifies its other processes of each write after the commit: its record-changed signal
// (and its log line, but only while another process listens: logs/pg-relay.ts; in the bench it
// runs alone); the twin sends one such statement per write on a channel nobody listens to, so
// Charta's idle app gets no work from it.
const NOTIFY = 'SELECT pg_notify($1, payload) FROM unnest($2::text[]) AS payload';
const CHANNEL = 'charta_bench_bare';

// Named (prepared) statements, as Charta sends them since issue 12 (storage/pg-statements.ts).
const statementNames = new Map<string, string>();
const prepared = (text: string, values: unknown[]) => {
  let name = statementNames.get(text);
  if (name === undefined) statementNames.set(text, (name = `bare_${statementNames.size}`));
  return { name, text, values };
};

/** BEGIN, `work`, COMMIT (ROLLBACK on error) on one client, then the log notification (if any), as Charta does. */
async function write<T>(pool: Pool, work: (client: PoolClient) => Promise<T>, log?: (result: T) => string): Promise<T> {
  const client = await pool.connect();
  let result: T;
  try {
    await client.query('BEGIN');
    try {
      result = await work(client);
      await client.query('COMMIT');
    } catch (err) {
      await client.query('ROLLBACK');
      throw err;
    }
  } finally {
    client.release();
  }
  if (log === undefined) return result;
  await pool.query(prepared(NOTIFY, [CHANNEL, [JSON.stringify({ event: log(result), level: 'info', timestamp: new Date().toISOString(), source: 'server' })]]));
  return result;
}

let running: { close(): Promise<unknown> } | undefined;

/** Closes the bare app, if started. */
export async function closeBarePg(): Promise<void> {
  await running?.close();
  running = undefined;
}

/** Starts the bare app on its own port; answers its URL. */
export async function barePg(pool: Pool, who: BarePgArgs): Promise<string> {
  const { staffKey } = who;
  const app = Fastify({ logger: false });
  // The read-audit rows of one turn of the event loop: one transaction, the readers not waiting.
  let reads: unknown[][] = [];
  const flushReads = async () => {
    const rows = reads;
    reads = [];
    await write(pool, async (client) => {
      for (const row of rows) await client.query(prepared(INSERT_READ_AUDIT, row));
    });
  };
  const auditRead = (row: unknown[] | undefined) => {
    if (row === undefined) return;
    reads.push(row);
    if (reads.length === 1) setImmediate(() => void flushReads().catch(() => undefined));
  };
  app.setErrorHandler((err, _request, reply) => reply.code(statusOf(err)).send({ error: String(err) }));

  app.get('/bare/commands/:uuid', async (request, reply) => {
    const { rows } = await pool.query(prepared(SELECT_BY_UUID, [(request.params as { uuid: string }).uuid]));
    const row = rows[0];
    if (row === undefined) return reply.code(404).send({});
    auditRead(commandRead(who, row));
    return row;
  });

  // ?patient_key=…&state=…&limit=20 or ?patient_key=…&created_after=<µs>&limit=20: the page with one row more, then, when there
  // is a next page, the count up to the cap, as Charta's repository runs them.
  app.get('/bare/commands', async (request) => {
    const q = request.query as { patient_key: string; state?: string; created_after?: string; limit?: string };
    const limit = Number(q.limit ?? 20);
    const [list, count] = q.state !== undefined ? [LIST_STATE, COUNT_STATE] : [LIST_CREATED, COUNT_CREATED];
    const params = [q.patient_key, q.state ?? Number(q.created_after)];
    const page = (await pool.query(prepared(list, [...params, limit + 1, 0]))).rows;
    const answer = await pageAnswer(page, limit, async () => Number((await pool.query(prepared(count, [...params, COUNT_CAP + 1]))).rows[0].n));
    auditRead(pageRead(who, q.patient_key, page));
    return answer;
  });

  app.post('/bare/commands/', async (request, reply) => {
    const body = request.body as { noteKey: string; values: Record<string, unknown> };
    const row = await write(
      pool,
      async (client) => {
        const note = (await client.query(prepared(NOTE_FOR_SHARE, [body.noteKey]))).rows[0];
        if (note === undefined) throw new NotFound('note');
        const created = newPlan(who, note, body.values);
        await client.query(
          prepared(CREATE_WITH_AUDIT, [...Object.values(created), ...writeAudit(who, 'command.created', created.uuid, null, created, created)]),
        );
        return created;
      },
      (c) => `command ${c.uuid} (plan) created in note ${c.note_uuid}`,
    );
    return reply.code(201).send(row);
  });

  const change = (action: 'updated' | 'committed') => async (request: { params: unknown; body: unknown }) => {
    const uuid = (request.params as { uuid: string }).uuid;
    return write(
      pool,
      async (client) => {
        const found = (await client.query(prepared(COMMAND_AND_NOTE_FOR_UPDATE, [uuid]))).rows[0];
        if (found === undefined) throw new NotFound('command');
        const { note__note_type: _type, note__locked: _locked, note__deleted: _deleted, ...before } = found;
        if (before.state !== 'staged') throw new NotStaged(before.state);
        const now = micros();
        const editedBy = JSON.stringify([staffKey]);
        const after =
          action === 'updated'
            ? { ...before, data: JSON.stringify((request.body as { values: unknown }).values), edited_by: editedBy, updated_at: now }
            : { ...before, state: 'committed', committed_by: staffKey, edited_by: editedBy, updated_at: now };
        const audit = writeAudit(who, `command.${action}`, uuid, before, after, before);
        if (action === 'updated') await client.query(prepared(UPDATE_DATA_WITH_AUDIT, [after.data, editedBy, now, uuid, ...audit]));
        else await client.query(prepared(UPDATE_COMMIT_WITH_AUDIT, ['committed', staffKey, editedBy, now, uuid, ...audit]));
        return after;
      },
      (c) => `command ${c.uuid} (plan) ${action} in note ${c.note_uuid}`,
    );
  };
  app.patch('/bare/commands/:uuid/', change('updated'));
  app.post('/bare/commands/:uuid/commit/', change('committed'));

  running = app;
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  return `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
}
