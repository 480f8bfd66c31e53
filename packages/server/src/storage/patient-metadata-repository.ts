// Patient metadata (docs/plugins.md, "Patient metadata"): the key/value pairs plugins keep on a
// patient, one per patient, namespace and key; writing a key again replaces its value.
import type { Kysely } from 'kysely';
import type { Database, PatientMetadataTable } from './schema.ts';

type Db = Kysely<Database>;

export type PatientMetadataRow = PatientMetadataTable;

/** One pair, if it is there. */
export function getPatientMetadata(db: Db, patientKey: string, namespace: string, key: string): Promise<PatientMetadataRow | undefined> {
  return db
    .selectFrom('patient_metadata')
    .selectAll()
    .where('patient_key', '=', patientKey)
    .where('namespace', '=', namespace)
    .where('key', '=', key)
    .executeTakeFirst();
}

/** How many keys a namespace keeps on a patient. */
export async function countPatientMetadata(db: Db, patientKey: string, namespace: string): Promise<number> {
  const { n } = await db
    .selectFrom('patient_metadata')
    .select((eb) => eb.fn.countAll().as('n'))
    .where('patient_key', '=', patientKey)
    .where('namespace', '=', namespace)
    .executeTakeFirstOrThrow();
  return Number(n);
}

/** Writes the pair, or replaces the value of the same patient, namespace and key; answers the pair as stored. */
export function upsertPatientMetadata(db: Db, row: PatientMetadataRow): Promise<PatientMetadataRow> {
  return db
    .insertInto('patient_metadata')
    .values(row)
    .onConflict((oc) =>
      oc.columns(['patient_key', 'namespace', 'key']).doUpdateSet({ value: row.value, updated_at: row.updated_at, updated_by: row.updated_by }),
    )
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** Removes one pair; answers it as it was, if there was one. */
export function deletePatientMetadata(db: Db, patientKey: string, namespace: string, key: string): Promise<PatientMetadataRow | undefined> {
  return db
    .deleteFrom('patient_metadata')
    .where('patient_key', '=', patientKey)
    .where('namespace', '=', namespace)
    .where('key', '=', key)
    .returningAll()
    .executeTakeFirst();
}

/** One page of a patient's pairs, by namespace then key, and how many there are in all. */
export async function listPatientMetadata(db: Db, patientKey: string, limit: number, offset: number): Promise<{ rows: PatientMetadataRow[]; count: number }> {
  const [rows, total] = await Promise.all([
    db
      .selectFrom('patient_metadata')
      .selectAll()
      .where('patient_key', '=', patientKey)
      .orderBy('namespace')
      .orderBy('key')
      .limit(limit)
      .offset(offset)
      .execute(),
    db
      .selectFrom('patient_metadata')
      .select((eb) => eb.fn.countAll().as('n'))
      .where('patient_key', '=', patientKey)
      .executeTakeFirstOrThrow(),
  ]);
  return { rows, count: Number(total.n) };
}
