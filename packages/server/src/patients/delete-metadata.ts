// Deletes a key/value pair of a patient's namespace (docs/api.md, "Patient metadata"): one write
// transaction with its audit row `patient_metadata.deleted` (the pair before, or null), also when
// there was no such key (deleting is asked, and audited, either way, as a banner's removal is).
// The DELETE_PATIENT_METADATA effect calls it as the plugin's own user, with the plugin's name as
// the namespace (docs/plugins.md, "Patient metadata"); an API for it would too.
import type { Ctx } from '../context.ts';
import { invalid } from '../http/problem.ts';
import { actingStaff } from '../auth/acting-staff.ts';
import { writeTransaction, type Idempotency } from '../storage/transaction.ts';
import { deletePatientMetadata as deleteRow } from '../storage/patient-metadata-repository.ts';
import { lockMetadataPatient, nameProblems, patientMetadataId, type PatientMetadataName } from './metadata-rules.ts';
import { metadataView } from './representation.ts';

/** Whether there was such a pair: a 400 `validation_failed` naming each bad field, or `patient_does_not_exist`, writes nothing. */
export async function deletePatientMetadata(ctx: Ctx, input: PatientMetadataName, idempotency?: Idempotency): Promise<boolean> {
  actingStaff(ctx);
  const errors = nameProblems(input);
  if (errors.length > 0) throw invalid(errors);
  const outcome = await writeTransaction<{ deleted: boolean }>(ctx, idempotency, async ({ trx, audit }) => {
    await lockMetadataPatient(trx, ctx.storage.engine, input.patient);
    const before = await deleteRow(trx, input.patient, input.namespace, input.key);
    await audit({
      action: 'patient_metadata.deleted',
      entityType: 'patient_metadata',
      entityId: patientMetadataId(input),
      patientKey: input.patient,
      before: before === undefined ? null : metadataView(before),
      after: null,
    });
    return { status: 200, body: { deleted: before !== undefined } };
  });
  return outcome.body.deleted;
}
