// Events of notes and patients (docs/plugins.md, "Event names"): the outbox and the dead letters
// were about commands only (`command_uuid`); a POST event may now be about a note or a patient
// too. Each row says what its event is about, as the event's `target` does: `target_type`
// (`command`, `note`, `patient`; the rows already there are commands') and `target_id` (the
// command's or note's uuid, the patient's key: `command_uuid`, renamed). The outbox's order index
// follows: one target's events are delivered in order (storage/plugin-events-repository.ts).
// A process of an earlier version writes `command_uuid`: stop every process before migrating.
import type { Kysely } from 'kysely';
import type { Engine } from '../db.ts';

export async function up(db: Kysely<unknown>, _engine: Engine): Promise<void> {
  for (const table of ['plugin_events', 'plugin_dead_letters']) {
    await db.schema
      .alterTable(table)
      .addColumn('target_type', 'text', (c) => c.notNull().defaultTo('command'))
      .execute();
    await db.schema.alterTable(table).renameColumn('command_uuid', 'target_id').execute();
  }
  await db.schema.dropIndex('plugin_events_command').execute();
  await db.schema.createIndex('plugin_events_target').on('plugin_events').columns(['target_id', 'id']).execute();
}
