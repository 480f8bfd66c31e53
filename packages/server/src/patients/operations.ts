// Patients: just enough to chart against (create, read).
import type { Ctx } from '../lib/context.ts';
import { KEY_RE, newKey } from '../lib/ids.ts';
import { isoMicros, nowMicros, parseDateMicros } from '../lib/time.ts';
import { invalid, problem } from '../http/problem.ts';
import { getPatient as findPatient, insertPatient } from '../storage/clinical-repository.ts';
import type { PatientTable } from '../storage/schema.ts';
import { writeTransaction } from '../storage/transaction.ts';
import type { CreatePatient, Patient } from './schemas.ts';
import { actingStaff } from '../commands/actor.ts';

const toView = (row: PatientTable): Patient => ({
  key: row.key,
  first_name: row.first_name,
  last_name: row.last_name,
  birth_date: row.birth_date,
  created_at: isoMicros(row.created_at),
});

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

export async function getPatient(ctx: Ctx, key: string): Promise<Patient> {
  actingStaff(ctx);
  const row = KEY_RE.test(key) ? await findPatient(ctx.storage.reader, key) : undefined;
  if (row === undefined) throw problem('patient_not_found');
  return toView(row);
}
