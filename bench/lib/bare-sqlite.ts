// The bare-sqlite twins (issue "Speed, second pass"; docs/performance.md, "Bare twins"): for each
// Commands API path measured on SQLite, a route on a bare Fastify app that runs the same SQL
// Charta runs for it (captured with `node --import tsx bench/capture-sql.ts sqlite`) with
// prepared better-sqlite3 statements on the same file, opened with the same pragmas as Charta's
// connections (WAL, the same `synchronous`, page cache, memory map; automatic checkpoints off, as
// Charta's background checkpointer copies the log back for both), and no Charta code: no auth,
// no schemas, no hooks, no Kysely, the row as JSON. Like Charta it writes the audit row of every
// read (one per patient a page shows), without the reader waiting for it, and it batches: the
// writes and read-audit rows that arrive in one turn of the event loop share one transaction
// (BEGIN IMMEDIATE, a savepoint per write, COMMIT), as Charta's group commit does. It runs in the
// Charta server's process, so one CPU meter measures both; Charta's app is idle while a twin runs.
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type BetterSqlite3 from 'better-sqlite3';
import { sqliteConnectionPragmas } from '../../packages/server/src/storage/sqlite-settings.ts';
import { COUNT_CAP, NotFound, NotStaged, commandRead, micros, newPlan, pageAnswer, pageRead, statusOf, writeAudit, type TwinActor } from './bare-twin.ts';

const serverPackage = path.resolve(import.meta.dirname, '../../packages/server/package.json');
const requireServer = createRequire(serverPackage);
const fastifyEntry = requireServer.resolve('fastify');
const { default: Fastify } = (await import(pathToFileURL(fastifyEntry).href)) as typeof import('fastify');
const Sqlite = requireServer('better-sqlite3') as typeof BetterSqlite3;

/** The database file Charta serves, its `synchronous`, and who the writes are attributed to (the bench token's staff user and credential). */
export interface BareSqliteArgs extends TwinActor {
  file: string;
  synchronous: 'normal' | 'full';
}

// The statements Charta runs (bench/capture-sql.ts sqlite), word for word.
const SELECT_BY_UUID = 'select * from "commands" where "uuid" = ?';
const LIST_STATE = 'select * from "commands" where "patient_key" = ? and "state" = ? order by "created_at" asc, "uuid" asc limit ? offset ?';
const COUNT_STATE = 'select count(*) as "n" from (select 1 as "one" from "commands" where "patient_key" = ? and "state" = ? limit ?) as "matching"';
const LIST_CREATED = 'select * from "commands" where "patient_key" = ? and "created_at" >= ? order by "created_at" asc, "uuid" asc limit ? offset ?';
const COUNT_CREATED = 'select count(*) as "n" from (select 1 as "one" from "commands" where "patient_key" = ? and "created_at" >= ? limit ?) as "matching"';
const NOTE = 'select * from "notes" where "uuid" = ?';
export const COMMAND_AND_NOTE =
  'select "commands".*, "notes"."note_type" as "note__note_type", "notes"."locked" as "note__locked", "notes"."deleted" as "note__deleted" from "commands" inner join "notes" on "notes"."uuid" = "commands"."note_uuid" where "commands"."uuid" = ?';
export const INSERT_COMMAND =
  'insert into "commands" ("uuid", "schema_key", "note_uuid", "patient_key", "state", "data", "originated_by", "edited_by", "committed_by", "entered_in_error_by", "created_at", "updated_at") values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)';
export const UPDATE_DATA = 'update "commands" set "data" = ?, "edited_by" = ?, "updated_at" = ? where "uuid" = ?';
export const UPDATE_COMMIT = 'update "commands" set "state" = ?, "committed_by" = ?, "edited_by" = ?, "updated_at" = ? where "uuid" = ?';
export const INSERT_AUDIT =
  'insert into "audit_events" ("occurred_at", "actor", "credential", "action", "entity_type", "entity_id", "before", "after", "request_id", "patient_key", "note_key") values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)';

let running: { close(): Promise<unknown> } | undefined;
let connections: BetterSqlite3.Database[] = [];
/** Transactions the twins committed (the bench's writes figures, lib/writes.ts). */
let batches = 0;
export const bareSqliteBatches = () => batches;

/** Closes the bare app and its connections, if started. */
export async function closeBareSqlite(): Promise<void> {
  await running?.close();
  running = undefined;
  for (const c of connections) c.close();
  connections = [];
}

/** A connection to `file` opened as Charta opens its own (the same pragmas). */
export function openLikeCharta(file: string, synchronous: 'normal' | 'full'): BetterSqlite3.Database {
  const db = new Sqlite(file);
  for (const pragma of sqliteConnectionPragmas(synchronous)) db.pragma(pragma);
  return db;
}

/** Starts the bare app on its own port; answers its URL. */
export async function bareSqlite({ file, synchronous, ...who }: BareSqliteArgs): Promise<string> {
  const { staffKey } = who;
  const reader = openLikeCharta(file, synchronous);
  reader.pragma('query_only = 1');
  const writer = openLikeCharta(file, synchronous);
  writer.pragma('wal_autocheckpoint = 0');
  connections = [reader, writer];
  const r = {
    byUuid: reader.prepare(SELECT_BY_UUID),
    listState: reader.prepare(LIST_STATE),
    countState: reader.prepare(COUNT_STATE),
    listCreated: reader.prepare(LIST_CREATED),
    countCreated: reader.prepare(COUNT_CREATED),
  };
  const w = {
    note: writer.prepare(NOTE),
    commandAndNote: writer.prepare(COMMAND_AND_NOTE),
    insertCommand: writer.prepare(INSERT_COMMAND),
    updateData: writer.prepare(UPDATE_DATA),
    updateCommit: writer.prepare(UPDATE_COMMIT),
    insertAudit: writer.prepare(INSERT_AUDIT),
  };
  const [begin, commit, rollback] = ['BEGIN IMMEDIATE', 'COMMIT', 'ROLLBACK'].map((s) => writer.prepare(s)) as [
    BetterSqlite3.Statement,
    BetterSqlite3.Statement,
    BetterSqlite3.Statement,
  ];

  // One transaction per turn of the event loop for every write and read-audit row that came in it.
  type Job = { work: () => unknown; done: (err: unknown, value?: unknown) => void };
  let jobs: Job[] = [];
  const flush = () => {
    const batch = jobs;
    jobs = [];
    const results: Array<{ ok: boolean; value: unknown }> = [];
    try {
      begin.run();
      batch.forEach((job, i) => {
        const savepoint = `b${i}`;
        writer.exec(`SAVEPOINT ${savepoint}`);
        try {
          results.push({ ok: true, value: job.work() });
        } catch (err) {
          writer.exec(`ROLLBACK TO ${savepoint}`);
          results.push({ ok: false, value: err });
        }
      });
      commit.run();
      batches += 1;
    } catch (err) {
      if (writer.inTransaction) rollback.run();
      for (const job of batch) job.done(err);
      return;
    }
    batch.forEach((job, i) => (results[i]!.ok ? job.done(undefined, results[i]!.value) : job.done(results[i]!.value)));
  };
  const write = <T>(work: () => T): Promise<T> =>
    new Promise((resolve, reject) => {
      jobs.push({ work, done: (err, value) => (err === undefined ? resolve(value as T) : reject(err)) });
      if (jobs.length === 1) setImmediate(flush);
    });
  /** A read's audit row, written in this turn's transaction; the reader does not wait for it. */
  const auditRead = (row: unknown[] | undefined) => {
    if (row !== undefined) void write(() => w.insertAudit.run(row)).catch(() => undefined);
  };

  const app = Fastify({ logger: false });
  app.setErrorHandler((err, _request, reply) => reply.code(statusOf(err)).send({ error: String(err) }));

  app.get('/bare/commands/:uuid', async (request, reply) => {
    const row = r.byUuid.get((request.params as { uuid: string }).uuid) as { uuid: string; patient_key: string; note_uuid: string } | undefined;
    if (row === undefined) return reply.code(404).send({});
    auditRead(commandRead(who, row));
    return row;
  });

  // As bare-pg's: the page with one row more, then, when there is a next page, the count up to the cap.
  app.get('/bare/commands', async (request) => {
    const q = request.query as { patient_key: string; state?: string; created_after?: string; limit?: string };
    const limit = Number(q.limit ?? 20);
    const [list, count] = q.state !== undefined ? [r.listState, r.countState] : [r.listCreated, r.countCreated];
    const params = [q.patient_key, q.state ?? Number(q.created_after)];
    const page = list.all(...params, limit + 1, 0) as Array<{ uuid: string; patient_key: string; note_uuid: string }>;
    const answer = await pageAnswer(page, limit, () => Number((count.get(...params, COUNT_CAP + 1) as { n: number }).n));
    auditRead(pageRead(who, q.patient_key, page));
    return answer;
  });

  app.post('/bare/commands/', async (request, reply) => {
    const body = request.body as { noteKey: string; values: Record<string, unknown> };
    const row = await write(() => {
      const note = w.note.get(body.noteKey) as { uuid: string; patient_key: string } | undefined;
      if (note === undefined) throw new NotFound('note');
      const created = newPlan(who, note, body.values);
      w.insertCommand.run(...Object.values(created));
      w.insertAudit.run(writeAudit(who, 'command.created', created.uuid, null, created, created));
      return created;
    });
    return reply.code(201).send(row);
  });

  const change = (action: 'updated' | 'committed') => async (request: { params: unknown; body: unknown }) => {
    const uuid = (request.params as { uuid: string }).uuid;
    const values = action === 'updated' ? JSON.stringify((request.body as { values: unknown }).values) : undefined;
    return write(() => {
      const found = w.commandAndNote.get(uuid) as Record<string, unknown> | undefined;
      if (found === undefined) throw new NotFound('command');
      const { note__note_type: _type, note__locked: _locked, note__deleted: _deleted, ...before } = found;
      if (before.state !== 'staged') throw new NotStaged(String(before.state));
      const now = micros();
      const editedBy = JSON.stringify([staffKey]);
      const after =
        action === 'updated'
          ? { ...before, data: values, edited_by: editedBy, updated_at: now }
          : { ...before, state: 'committed', committed_by: staffKey, edited_by: editedBy, updated_at: now };
      if (action === 'updated') w.updateData.run(values, editedBy, now, uuid);
      else w.updateCommit.run('committed', staffKey, editedBy, now, uuid);
      w.insertAudit.run(writeAudit(who, `command.${action}`, uuid, before, after, before));
      return after;
    });
  };
  app.patch('/bare/commands/:uuid/', change('updated'));
  app.post('/bare/commands/:uuid/commit/', change('committed'));

  running = app;
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  return `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
}
