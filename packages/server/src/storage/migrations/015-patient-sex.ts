// A patient's sex at birth (docs/api.md, "Patients"): `female`, `male`, `other` or `unknown`, the
// values of FHIR's administrative gender; null when not given (every patient made before this).
import type { Kysely } from 'kysely';
import type { Engine } from '../db.ts';

export async function up(db: Kysely<unknown>, _engine: Engine): Promise<void> {
  await db.schema.alterTable('patients').addColumn('sex_at_birth', 'text').execute();
}
