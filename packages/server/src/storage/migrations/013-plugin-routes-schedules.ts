// What a plugin serves and runs on a clock (docs/plugins.md, "HTTP routes", "Scheduled tasks"):
// its routes and schedules as the install check found them in its classes, kept beside the plugin
// so its answers show them without loading the package (`[]` for those installed before this
// migration, until their next package); and one row per tick of a schedule that a process
// claimed, so that each tick runs once across every process sharing the database (the primary
// key is the claim: the insert that wins runs the tick).
import type { Kysely } from 'kysely';
import type { Engine } from '../db.ts';

export async function up(db: Kysely<unknown>, _engine: Engine): Promise<void> {
  await db.schema
    .alterTable('plugins')
    .addColumn('routes', 'text', (c) => c.notNull().defaultTo('[]'))
    .execute();
  await db.schema
    .alterTable('plugins')
    .addColumn('schedules', 'text', (c) => c.notNull().defaultTo('[]'))
    .execute();
  await db.schema
    .createTable('plugin_ticks')
    .addColumn('plugin_name', 'text', (c) => c.notNull())
    /** `<entry>:<class>` */
    .addColumn('handler', 'text', (c) => c.notNull())
    /** The tick's time, microseconds since the epoch. */
    .addColumn('tick', 'bigint', (c) => c.notNull())
    /** Who claimed it (a process's id) and when (microseconds). */
    .addColumn('claimed_by', 'text', (c) => c.notNull())
    .addColumn('claimed_at', 'bigint', (c) => c.notNull())
    /** null while it runs; then 'ok' or the fault (threw, timeout, effect…). */
    .addColumn('outcome', 'text')
    .addColumn('finished_at', 'bigint')
    .addPrimaryKeyConstraint('plugin_ticks_pk', ['plugin_name', 'handler', 'tick'])
    .execute();
}
