// Patient metadata (docs/plugins.md, "Patient metadata"; docs/api.md, "Patient metadata"): the
// key/value pairs plugins keep on a patient, one per patient, namespace (the plugin's name) and
// key, written by the UPSERT_PATIENT_METADATA and DELETE_PATIENT_METADATA effects. The primary key
// leads with the patient and the namespace: the list of a patient reads it in its order
// (namespace, key), and the count of a plugin's keys on a patient (at most 100) is a range of it.
// Namespace and key compare byte by byte on both engines (PostgreSQL's `COLLATE "C"`, SQLite's
// own order), so the list's order does not depend on the database's locale.
// The rows are the patient's record, not the plugin's state: deleting the plugin keeps them.
// Numbered 010: 009 is another change's.
import { sql, type Kysely } from 'kysely';
import type { Engine } from '../db.ts';

export async function up(db: Kysely<unknown>, engine: Engine): Promise<void> {
  const sqlite = engine === 'sqlite';
  await db.schema
    .createTable('patient_metadata')
    .addColumn('patient_key', 'text', (c) => c.notNull().references('patients.key'))
    .addColumn('namespace', 'text', (c) => (sqlite ? c.notNull() : c.notNull().modifyEnd(sql`COLLATE "C"`)))
    .addColumn('key', 'text', (c) => (sqlite ? c.notNull() : c.notNull().modifyEnd(sql`COLLATE "C"`)))
    .addColumn('value', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    /** The user who wrote the value last: `plugin:<name>`. */
    .addColumn('updated_by', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('patient_metadata_pk', ['patient_key', 'namespace', 'key'])
    .execute();
}
