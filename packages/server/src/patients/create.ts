// POST /core/api/v1/patients/: a patient, just enough to chart against (docs/api.md, "Patients").
import type { Ctx } from '../context.ts';
import { newKey } from '../lib/ids.ts';
import { nowMicros, parseDateMicros } from '../lib/time.ts';
import { invalid } from '../http/problem.ts';
import { insertPatient } from '../storage/clinical-repository.ts';
import { writeTransaction } from '../storage/transaction.ts';
import type { CreatePatient, Patient } from '@charta/api';
import { actingStaff } from '../auth/acting-staff.ts';
import { toView } from './representation.ts';

export async function createPatient(ctx: Ctx, input: CreatePatient) {
  actingStaff(ctx);
  if (input.birthDate !== undefined) {
    const at = parseDateMicros(input.birthDate);
    if (at === undefined || at > nowMicros()) throw invalid([{ field: 'birthDate', message: 'must be a real date (YYYY-MM-DD), not in the future' }]);
  }
  return writeTransaction<Patient>(ctx, undefined, async ({ trx, audit }) => {
    const row = {
      key: newKey(),
      first_name: input.firstName.trim(),
      last_name: input.lastName.trim(),
      birth_date: input.birthDate ?? null,
      created_at: nowMicros(),
    };
    await insertPatient(trx, row);
    const view = toView(row);
    await audit({ action: 'patient.created', entityType: 'patient', entityId: row.key, before: null, after: view });
    return { status: 201, body: view };
  });
}
