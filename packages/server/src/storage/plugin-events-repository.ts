// The outbox of POST events (docs/plugins.md, "Delivery and guarantees"): written in the
// transaction of the change, claimed by one process at a time, put back with a back-off when a
// handler's call failed in a way worth trying again, deleted once every handler is done.
import { sql, type Kysely } from 'kysely';
import type { Engine } from './db.ts';
import type { Database, PluginEventTable } from './schema.ts';
import { insertRow } from './compiled.ts';

type Db = Kysely<Database>;

/** How `done_handlers` and `only_handler` name a handler: `<plugin>/<entry>:<class>`. */
export const deliveryTarget = (plugin: string, handler: string): string => `${plugin}/${handler}`;

export type NewPluginEvent = Omit<
  PluginEventTable,
  'id' | 'attempts' | 'claimed_by' | 'claimed_until' | 'next_attempt_at' | 'done_handlers' | 'last_error' | 'only_handler'
> &
  Partial<Pick<PluginEventTable, 'only_handler'>>;

/** Writes a POST event's outbox row (a command write writes its own with the command: commands-repository.ts). */
export const insertPluginEvent = (db: Db, row: NewPluginEvent) => insertRow(db, 'plugin_events', row);

/**
 * Claims up to `limit` events for `claimer` until `until` (microseconds), counting an attempt: the
 * oldest unclaimed (or whose claim expired) events out of their back-off that have no earlier event
 * of the same target (a command, a note, a patient) waiting, so the events of one target are
 * delivered in order (an event in back-off holds the later ones). On PostgreSQL the rows are locked with SKIP LOCKED, so two
 * processes never claim one event; SQLite runs one write at a time.
 */
export async function claimPluginEvents(db: Db, engine: Engine, claimer: string, now: number, until: number, limit: number) {
  const lock = engine === 'postgres' ? sql`FOR UPDATE OF e SKIP LOCKED` : sql``;
  const result = await sql<PluginEventTable>`
    UPDATE plugin_events SET claimed_by = ${claimer}, claimed_until = ${until}, attempts = attempts + 1
    WHERE id IN (
      SELECT e.id FROM plugin_events e
      WHERE (e.claimed_until IS NULL OR e.claimed_until < ${now})
        AND (e.next_attempt_at IS NULL OR e.next_attempt_at <= ${now})
        AND NOT EXISTS (SELECT 1 FROM plugin_events p WHERE p.target_id = e.target_id AND p.target_type = e.target_type AND p.id < e.id)
      ORDER BY e.id LIMIT ${limit} ${lock}
    )
    RETURNING *`.execute(db);
  return result.rows
    .map((r) => ({ ...r, id: Number(r.id), depth: Number(r.depth), attempts: Number(r.attempts), created_at: Number(r.created_at) }))
    .sort((a, b) => a.id - b.id);
}

export type ClaimedPluginEvent = Awaited<ReturnType<typeof claimPluginEvents>>[number];

/**
 * An attempt failed for some handlers: the event waits until `nextAttemptAt` (microseconds),
 * remembering the handlers already done, and leaves the claim (only the process that holds it).
 */
export const deferPluginEvent = (db: Db, id: number, claimer: string, state: { nextAttemptAt: number; doneHandlers: string[]; lastError: string }) =>
  db
    .updateTable('plugin_events')
    .set({
      claimed_by: null,
      claimed_until: null,
      next_attempt_at: state.nextAttemptAt,
      done_handlers: JSON.stringify(state.doneHandlers),
      last_error: state.lastError,
    })
    .where('id', '=', id)
    .where('claimed_by', '=', claimer)
    .execute();

/** Claimed but not delivered (the process is stopping): free again at once, the attempt not counted. */
export const releasePluginEvents = (db: Db, ids: number[], claimer: string) =>
  db
    .updateTable('plugin_events')
    .set((eb) => ({ claimed_by: null, claimed_until: null, attempts: eb('attempts', '-', 1) }))
    .where('id', 'in', ids)
    .where('claimed_by', '=', claimer)
    .execute();

/** Delivered: the events leave the outbox (only by the process that holds their claim); how many left. */
export async function deletePluginEvents(db: Db, ids: number[], claimer: string): Promise<number> {
  const result = await db.deleteFrom('plugin_events').where('id', 'in', ids).where('claimed_by', '=', claimer).executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** Events still waiting (for the health of the delivery and for tests). */
export async function countPluginEvents(db: Db): Promise<number> {
  const row = await db
    .selectFrom('plugin_events')
    .select((eb) => eb.fn.countAll().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/**
 * The outbox's backlog, read at a metrics scrape (docs/operations.md, "Monitoring"): the events
 * waiting, counted up to `cap` (a stuck outbox is not scanned whole every scrape), and when the
 * oldest was written (microseconds; null when none waits), found by the primary key.
 */
export async function outboxBacklog(db: Db, cap: number): Promise<{ events: number; oldestCreatedAt: number | null }> {
  const counted = await sql<{ n: number | string }>`SELECT count(*) AS n FROM (SELECT 1 FROM plugin_events LIMIT ${cap}) AS waiting`.execute(db);
  const oldest = await db.selectFrom('plugin_events').select('created_at').orderBy('id').limit(1).executeTakeFirst();
  return { events: Number(counted.rows[0]?.n ?? 0), oldestCreatedAt: oldest === undefined ? null : Number(oldest.created_at) };
}
