// GET /core/api/v1/patients/{key}/metadata/: the key/value pairs plugins keep on the patient, by
// namespace then key, paginated like the chart reads (docs/api.md, "Patient metadata").
import type { Ctx } from '../context.ts';
import { KEY_RE } from '../lib/ids.ts';
import { problem } from '../http/problem.ts';
import { exactList, type List, type Page } from '../http/pagination.ts';
import { actingStaff } from '../auth/acting-staff.ts';
import { getPatient as findPatient } from '../storage/clinical-repository.ts';
import { listPatientMetadata as listRows } from '../storage/patient-metadata-repository.ts';
import type { PatientMetadata } from '@charta/api';
import { metadataView } from './representation.ts';

export async function listPatientMetadata(ctx: Ctx, patientKey: string, page: Page): Promise<List<PatientMetadata>> {
  actingStaff(ctx);
  if (!KEY_RE.test(patientKey) || (await findPatient(ctx.storage.reader, patientKey)) === undefined) throw problem('patient_not_found');
  const { rows, count } = await listRows(ctx.storage.reader, patientKey, page.limit, page.offset);
  return exactList(page, count, rows.map(metadataView));
}
