// Dead letters (docs/plugins.md, "Delivery and guarantees"): a POST event whose handler still
// failed after its last attempt, kept with the event's payload until it is replayed or discarded.
import type { Insertable, Kysely, Selectable } from 'kysely';
import type { Engine } from './db.ts';
import type { Database, PluginDeadLetterTable } from './schema.ts';
import { deliveryTarget, insertPluginEvent } from './plugin-events-repository.ts';

type Db = Kysely<Database>;

export type DeadLetterRow = Selectable<PluginDeadLetterTable>;

/** bigint and bigserial columns come back from pg as text. */
const numbers = (row: DeadLetterRow): DeadLetterRow => ({
  ...row,
  id: Number(row.id),
  depth: Number(row.depth),
  attempts: Number(row.attempts),
  created_at: Number(row.created_at),
  failed_at: Number(row.failed_at),
});

/** Stores one dead letter; answers its id. */
export async function insertDeadLetter(db: Db, row: Insertable<PluginDeadLetterTable>): Promise<number> {
  const inserted = await db.insertInto('plugin_dead_letters').values(row).returning('id').executeTakeFirstOrThrow();
  return Number(inserted.id);
}

/** A plugin's dead letters, newest first, one page, and how many it has. */
export async function listDeadLetters(db: Db, plugin: string, limit: number, offset: number) {
  const [rows, total] = await Promise.all([
    db.selectFrom('plugin_dead_letters').selectAll().where('plugin_name', '=', plugin).orderBy('id', 'desc').limit(limit).offset(offset).execute(),
    db
      .selectFrom('plugin_dead_letters')
      .select((eb) => eb.fn.countAll().as('n'))
      .where('plugin_name', '=', plugin)
      .executeTakeFirstOrThrow(),
  ]);
  return { rows: rows.map(numbers), count: Number(total.n) };
}

/** One dead letter of the plugin, read inside a write transaction (its row locked on PostgreSQL). */
export async function getDeadLetterForUpdate(db: Db, engine: Engine, plugin: string, id: number): Promise<DeadLetterRow | undefined> {
  const row = await db
    .selectFrom('plugin_dead_letters')
    .selectAll()
    .where('plugin_name', '=', plugin)
    .where('id', '=', id)
    .$if(engine === 'postgres', (q) => q.forUpdate())
    .executeTakeFirst();
  return row === undefined ? undefined : numbers(row);
}

export const deleteDeadLetter = (db: Db, plugin: string, id: number) =>
  db.deleteFrom('plugin_dead_letters').where('plugin_name', '=', plugin).where('id', '=', id).execute();

/**
 * Replays a dead letter: its event back into the outbox, aimed at its one handler (`only_handler`),
 * with the payload as it was (so the event keeps its id and its effects their idempotency keys),
 * and the letter deleted. The outbox row's own `event_id` is unique, so it is derived from the
 * event's id and the letter's; answers it.
 */
export async function replayDeadLetter(db: Db, letter: DeadLetterRow, now: number): Promise<string> {
  const eventId = `${letter.event_id}:replay:${letter.id}`;
  await insertPluginEvent(db, {
    event_id: eventId,
    target_type: letter.target_type,
    target_id: letter.target_id,
    event_type: letter.event_type,
    payload: letter.payload,
    depth: letter.depth,
    request_id: letter.request_id,
    root_id: letter.root_id,
    created_at: now,
    only_handler: deliveryTarget(letter.plugin_name, letter.handler),
  });
  await db.deleteFrom('plugin_dead_letters').where('id', '=', letter.id).execute();
  return eventId;
}

/** A deleted plugin's dead letters go with it. */
export const deletePluginDeadLetters = (db: Db, plugin: string) => db.deleteFrom('plugin_dead_letters').where('plugin_name', '=', plugin).execute();
