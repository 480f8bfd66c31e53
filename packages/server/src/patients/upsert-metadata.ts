// Writes a key/value pair on a patient in a namespace, or replaces the value of the same key
// (docs/api.md, "Patient metadata"): one write transaction with its audit row
// `patient_metadata.upserted` (the pair before, or null, and after). The UPSERT_PATIENT_METADATA
// effect calls it as the plugin's own user, with the plugin's name as the namespace
// (docs/plugins.md, "Patient metadata"); an API for it would too.
import type { Ctx } from '../context.ts';
import { nowMicros } from '../lib/time.ts';
import { invalid } from '../http/problem.ts';
import { actingStaff } from '../auth/acting-staff.ts';
import { writeTransaction, type Idempotency } from '../storage/transaction.ts';
import { countPatientMetadata, getPatientMetadata, upsertPatientMetadata as upsertRow } from '../storage/patient-metadata-repository.ts';
import { PATIENT_METADATA_KEYS_MAX, lockMetadataPatient, nameProblems, patientMetadataId, valueProblems, type PatientMetadataName } from './metadata-rules.ts';
import { metadataView } from './representation.ts';
import type { PatientMetadata } from '@charta/api';

export interface UpsertPatientMetadata extends PatientMetadataName {
  value: string;
}

/**
 * The pair as stored. A 400 `validation_failed` naming each bad field (a new key past the
 * namespace's 100 on the patient names `key`), or `patient_does_not_exist`, writes nothing.
 */
export async function upsertPatientMetadata(ctx: Ctx, input: UpsertPatientMetadata, idempotency?: Idempotency): Promise<PatientMetadata> {
  const actor = actingStaff(ctx);
  const errors = [...nameProblems(input), ...valueProblems(input.value)];
  if (errors.length > 0) throw invalid(errors);
  const outcome = await writeTransaction<PatientMetadata>(ctx, idempotency, async ({ trx, audit }) => {
    await lockMetadataPatient(trx, ctx.storage.engine, input.patient);
    const before = await getPatientMetadata(trx, input.patient, input.namespace, input.key);
    // Counted in the write, the patient locked: a new key past the limit is refused whole.
    if (before === undefined && (await countPatientMetadata(trx, input.patient, input.namespace)) >= PATIENT_METADATA_KEYS_MAX) {
      throw invalid([
        {
          field: 'key',
          message: `is a new key, and ${input.namespace} keeps ${PATIENT_METADATA_KEYS_MAX} keys on this patient already (the most one namespace may): delete one first`,
        },
      ]);
    }
    const stored = await upsertRow(trx, {
      patient_key: input.patient,
      namespace: input.namespace,
      key: input.key,
      value: input.value,
      updated_at: nowMicros(),
      updated_by: actor,
    });
    const after = metadataView(stored);
    await audit({
      action: 'patient_metadata.upserted',
      entityType: 'patient_metadata',
      entityId: patientMetadataId(input),
      patientKey: input.patient,
      before: before === undefined ? null : metadataView(before),
      after,
    });
    return { status: 200, body: after };
  });
  return outcome.body;
}
