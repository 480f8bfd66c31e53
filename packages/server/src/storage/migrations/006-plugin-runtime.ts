// The plugin runtime's tables (docs/plugins.md, "Events"): the secrets an admin set for a plugin,
// the outbox of POST events waiting to be delivered, and the banner alerts plugins show on charts.
import type { Kysely } from 'kysely';
import type { Engine } from '../db.ts';

export async function up(db: Kysely<unknown>, engine: Engine): Promise<void> {
  const sqlite = engine === 'sqlite';
  await db.schema
    .createTable('plugin_secrets')
    .addColumn('plugin_name', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('value', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('plugin_secrets_pk', ['plugin_name', 'name'])
    .execute();
  // One row per POST event, written in the transaction of the change; deleted once delivered.
  await db.schema
    .createTable('plugin_events')
    .addColumn('id', sqlite ? 'integer' : 'bigserial', (c) => (sqlite ? c.primaryKey().autoIncrement() : c.primaryKey()))
    .addColumn('event_id', 'text', (c) => c.notNull().unique())
    .addColumn('command_uuid', 'text', (c) => c.notNull())
    .addColumn('event_type', 'text', (c) => c.notNull())
    /** The event as handlers get it (JSON). */
    .addColumn('payload', 'text', (c) => c.notNull())
    .addColumn('depth', 'integer', (c) => c.notNull())
    .addColumn('request_id', 'text')
    .addColumn('claimed_by', 'text')
    .addColumn('claimed_until', 'bigint')
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('plugin_events_command').on('plugin_events').columns(['command_uuid', 'id']).execute();
  await db.schema
    .createTable('banner_alerts')
    .addColumn('patient_key', 'text', (c) => c.notNull().references('patients.key'))
    .addColumn('plugin_name', 'text', (c) => c.notNull())
    .addColumn('key', 'text', (c) => c.notNull())
    .addColumn('narrative', 'text', (c) => c.notNull())
    /** JSON list of placements. */
    .addColumn('placement', 'text', (c) => c.notNull())
    .addColumn('intent', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('banner_alerts_pk', ['patient_key', 'plugin_name', 'key'])
    .execute();
}
