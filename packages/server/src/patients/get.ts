// GET /core/api/v1/patients/{key} (docs/api.md, "Patients").
import type { Ctx } from '../context.ts';
import { KEY_RE } from '../lib/ids.ts';
import { problem } from '../http/problem.ts';
import { getPatient as findPatient } from '../storage/clinical-repository.ts';
import type { Patient } from '@charta/api';
import { actingStaff } from '../auth/acting-staff.ts';
import { toView } from './representation.ts';

export async function getPatient(ctx: Ctx, key: string): Promise<Patient> {
  actingStaff(ctx);
  const row = KEY_RE.test(key) ? await findPatient(ctx.storage.reader, key) : undefined;
  if (row === undefined) throw problem('patient_not_found');
  return toView(row);
}
