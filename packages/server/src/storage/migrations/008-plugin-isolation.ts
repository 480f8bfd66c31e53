// What keeps plugins from hurting each other or the record (docs/plugins.md, "Effects" and
// "Delivery and guarantees"): the grants an administrator gave a plugin, the state of a POST
// event's delivery (its chain's root, retries with back-off, the handlers already done, a replay
// aimed at one handler), the events whose handler kept failing (dead letters), and the effects
// each chain of changes has spent.
import type { Kysely } from 'kysely';
import type { Engine } from '../db.ts';

export async function up(db: Kysely<unknown>, engine: Engine): Promise<void> {
  const sqlite = engine === 'sqlite';
  /** JSON list of grant names (`effects:any-command`, `effects:instance`). */
  await db.schema
    .alterTable('plugins')
    .addColumn('grants', 'text', (c) => c.notNull().defaultTo('[]'))
    .execute();
  for (const [column, type] of [
    /** The event id at the root of the chain of changes this event belongs to (its own id at depth 0). */
    ['root_id', 'text'],
    /** Not claimed before this time (microseconds): the back-off after a failed attempt. */
    ['next_attempt_at', 'bigint'],
    /** JSON list of `<plugin>/<entry>:<class>` whose delivery of this event is done. */
    ['done_handlers', 'text'],
    ['last_error', 'text'],
    /** A replayed dead letter: the one `<plugin>/<entry>:<class>` it goes to. */
    ['only_handler', 'text'],
  ] as const) {
    await db.schema.alterTable('plugin_events').addColumn(column, type).execute();
  }
  await db.schema
    .createTable('plugin_dead_letters')
    .addColumn('id', sqlite ? 'integer' : 'bigserial', (c) => (sqlite ? c.primaryKey().autoIncrement() : c.primaryKey()))
    .addColumn('plugin_name', 'text', (c) => c.notNull())
    /** `<entry>:<class>`. */
    .addColumn('handler', 'text', (c) => c.notNull())
    .addColumn('event_id', 'text', (c) => c.notNull())
    .addColumn('event_type', 'text', (c) => c.notNull())
    .addColumn('command_uuid', 'text', (c) => c.notNull())
    .addColumn('payload', 'text', (c) => c.notNull())
    .addColumn('depth', 'integer', (c) => c.notNull())
    .addColumn('request_id', 'text')
    .addColumn('root_id', 'text')
    .addColumn('attempts', 'integer', (c) => c.notNull())
    .addColumn('last_error', 'text', (c) => c.notNull())
    /** When the event was written. */
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    /** When its last attempt failed. */
    .addColumn('failed_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('plugin_dead_letters_plugin').on('plugin_dead_letters').columns(['plugin_name', 'id']).execute();
  await db.schema
    .createTable('plugin_effect_budgets')
    .addColumn('root_id', 'text', (c) => c.primaryKey())
    .addColumn('used', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('plugin_effect_budgets_created').on('plugin_effect_budgets').column('created_at').execute();
}
