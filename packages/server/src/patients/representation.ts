// A patient row as the API shows it (docs/api.md, "Patients").
import { isoMicros } from '../lib/time.ts';
import type { PatientTable } from '../storage/schema.ts';
import type { Patient } from '@charta/api';

export const toView = (row: PatientTable): Patient => ({
  key: row.key,
  first_name: row.first_name,
  last_name: row.last_name,
  birth_date: row.birth_date,
  created_at: isoMicros(row.created_at),
});
