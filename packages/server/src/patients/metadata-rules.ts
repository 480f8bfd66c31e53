// What a patient metadata pair must be (docs/plugins.md, "Patient metadata";
// docs/api.md, "Patient metadata"), shared by the operations that write and delete one and by the runtime's reading of
// the UPSERT_PATIENT_METADATA and DELETE_PATIENT_METADATA effects: which pair (patient, namespace,
// key), its value, the checks of each (their limits are the wire's, @charta/api), its id in the
// audit trail, and its patient, read and locked in the write.
import type { Kysely } from 'kysely';
import type { Database } from '../storage/schema.ts';
import type { Engine } from '../storage/db.ts';
import { problem, type FieldProblem } from '../http/problem.ts';
import { getPatient, lockPatient } from '../storage/clinical-repository.ts';
import {
  PATIENT_METADATA_KEY_MAX,
  PATIENT_METADATA_KEY_PATTERN,
  PATIENT_METADATA_KEYS_MAX,
  PATIENT_METADATA_VALUE_MAX,
  isPatientMetadataKey,
  isPatientMetadataValue,
} from '@charta/api/constants';

export { PATIENT_METADATA_KEYS_MAX };
/** The longest patient key or namespace a pair is named by (as a banner alert's, chart/banner-alert-rules.ts). */
export const METADATA_NAME_MAX = 200;

/** Which pair: one per patient, namespace and key. */
export interface PatientMetadataName {
  patient: string;
  /** The plugin that owns it (its name): a plugin writes only its own namespace. */
  namespace: string;
  key: string;
}

const isText = (value: unknown, max: number): value is string => typeof value === 'string' && value.length > 0 && value.length <= max;

export const KEY_RULE = `must be 1 to ${PATIENT_METADATA_KEY_MAX} characters of a-z, 0-9, _, . and -, starting with a letter or a digit (${PATIENT_METADATA_KEY_PATTERN})`;
export const VALUE_RULE = `must be a string of at most ${PATIENT_METADATA_VALUE_MAX} characters, without U+0000`;

/** The problems of a pair's name (none when it is well formed). */
export function nameProblems(name: PatientMetadataName): FieldProblem[] {
  const errors: FieldProblem[] = [];
  for (const field of ['patient', 'namespace'] as const) {
    if (!isText(name[field], METADATA_NAME_MAX)) errors.push({ field, message: `must be a non-empty string of at most ${METADATA_NAME_MAX} characters` });
  }
  if (!isPatientMetadataKey(name.key)) errors.push({ field: 'key', message: KEY_RULE });
  return errors;
}

/** The problems of a value (none when it may be stored). */
export function valueProblems(value: unknown): FieldProblem[] {
  return isPatientMetadataValue(value) ? [] : [{ field: 'value', message: VALUE_RULE }];
}

/** The pair's id in the audit trail (`entity_id` of `patient_metadata.upserted` and `.deleted`). */
export const patientMetadataId = (name: PatientMetadataName): string => `${name.patient}/${name.namespace}/${name.key}`;

/**
 * 400 `patient_does_not_exist` unless the pair's patient exists, read in the write's transaction.
 * On PostgreSQL the patient's row is locked for the transaction (as a chart change locks it), so
 * two writes of one patient's metadata count a namespace's keys one after the other and the limit
 * of 100 holds; SQLite's writes are serial already.
 */
export async function lockMetadataPatient(trx: Kysely<Database>, engine: Engine, patient: string): Promise<void> {
  if (engine === 'postgres') await lockPatient(trx, patient);
  if ((await getPatient(trx, patient)) === undefined) throw problem('patient_does_not_exist', { detail: `Patient ${patient} does not exist` });
}
