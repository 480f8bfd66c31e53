// POST /core/api/v1/patients/: a patient, just enough to chart against (docs/api.md, "Patients").
// Written by the patient sequencer (write.ts), with its PATIENT_PRE_CREATE and PATIENT_CREATED events.
import type { Ctx } from '../context.ts';
import { newKey } from '../lib/ids.ts';
import { nowMicros, parseDateMicros } from '../lib/time.ts';
import { invalid } from '../http/problem.ts';
import { insertPatient } from '../storage/clinical-repository.ts';
import type { CreatePatient } from '@charta/api';
import { actingStaff } from '../auth/acting-staff.ts';
import { writePatient } from './write.ts';

export async function createPatient(ctx: Ctx, input: CreatePatient) {
  actingStaff(ctx);
  if (input.birthDate !== undefined) {
    const at = parseDateMicros(input.birthDate);
    if (at === undefined || at > nowMicros()) throw invalid([{ field: 'birthDate', message: 'must be a real date (YYYY-MM-DD), not in the future' }]);
  }
  // Chosen outside the write, which may run more than once (storage/transaction.ts, `Writer`).
  const key = newKey();
  return writePatient(ctx, {
    action: 'CREATE',
    prepare: async ({ now }) => ({
      before: null,
      after: {
        key,
        first_name: input.firstName.trim(),
        last_name: input.lastName.trim(),
        birth_date: input.birthDate ?? null,
        sex_at_birth: input.sexAtBirth ?? null,
        created_at: now,
      },
    }),
    write: (trx, row) => insertPatient(trx, row),
  });
}
