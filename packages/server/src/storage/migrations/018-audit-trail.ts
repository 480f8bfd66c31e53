// The audit trail read by patient and note (docs/operations.md, "Audit trail"): each row names the
// patient and the note it concerns, where it concerns one, so "who saw or changed this patient's
// record" is an indexed query; and indexes for the other filters (action, credential). Rows written
// before this migration get their patient and note from what they name (a command, a note, a
// patient, a patient's metadata or banner alert): a derived column, filled once here with the
// append-only triggers set aside for that one statement, never changing what a row records.
import { sql, type Kysely } from 'kysely';
import type { Engine } from '../db.ts';

export async function up(db: Kysely<unknown>, engine: Engine): Promise<void> {
  await db.schema.alterTable('audit_events').addColumn('patient_key', 'text').execute();
  await db.schema.alterTable('audit_events').addColumn('note_key', 'text').execute();
  const backfill = sql`UPDATE audit_events SET
      patient_key = CASE
        WHEN entity_type = 'patient' THEN entity_id
        WHEN entity_type IN ('patient_metadata', 'banner_alert') THEN substr(entity_id, 1, 32)
        WHEN entity_type = 'note' THEN (SELECT n.patient_key FROM notes n WHERE n.uuid = audit_events.entity_id)
        WHEN entity_type = 'command' THEN (SELECT c.patient_key FROM commands c WHERE c.uuid = audit_events.entity_id)
      END,
      note_key = CASE
        WHEN entity_type = 'note' THEN entity_id
        WHEN entity_type = 'command' THEN (SELECT c.note_uuid FROM commands c WHERE c.uuid = audit_events.entity_id)
      END
    WHERE entity_type IN ('patient', 'patient_metadata', 'banner_alert', 'note', 'command')`;
  if (engine === 'sqlite') {
    await sql`DROP TRIGGER audit_events_no_update`.execute(db);
    await backfill.execute(db);
    await sql`CREATE TRIGGER audit_events_no_update BEFORE UPDATE ON audit_events BEGIN SELECT RAISE(ABORT, 'audit_events is append-only'); END`.execute(db);
  } else {
    await sql`ALTER TABLE audit_events DISABLE TRIGGER audit_events_no_change`.execute(db);
    await backfill.execute(db);
    await sql`ALTER TABLE audit_events ENABLE TRIGGER audit_events_no_change`.execute(db);
  }
  // Newest first within each filter: the first page is the index's last entries.
  for (const [name, column] of [
    ['audit_patient', 'patient_key'],
    ['audit_note', 'note_key'],
    ['audit_action', 'action'],
    ['audit_credential', 'credential'],
  ] as const) {
    await db.schema.createIndex(name).on('audit_events').columns([column, 'id']).execute();
  }
}
