// A patient row, and a patient metadata pair, as the API shows them (docs/api.md, "Patients" and
// "Patient metadata").
import { isoMicros } from '../lib/time.ts';
import type { PatientTable } from '../storage/schema.ts';
import type { PatientMetadataRow } from '../storage/patient-metadata-repository.ts';
import type { Patient, PatientMetadata } from '@charta/api';

export const toView = (row: PatientTable): Patient => ({
  key: row.key,
  first_name: row.first_name,
  last_name: row.last_name,
  birth_date: row.birth_date,
  sex_at_birth: row.sex_at_birth as Patient['sex_at_birth'],
  created_at: isoMicros(row.created_at),
});

/** A patient metadata pair as the API shows it (docs/api.md, "Patient metadata"); its patient is the path's. */
export const metadataView = (row: PatientMetadataRow): PatientMetadata => ({
  namespace: row.namespace,
  key: row.key,
  value: row.value,
  updated_at: isoMicros(row.updated_at),
  updated_by: row.updated_by,
});
