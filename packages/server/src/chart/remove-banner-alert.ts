// Removes a banner alert from a patient's chart (docs/api.md, "Banner alerts"): one write
// transaction with its audit row `banner_alert.removed`, also when the plugin had no alert of that
// key (removing is asked, and audited, either way). The REMOVE_BANNER_ALERT effect calls it as the
// plugin's own user (docs/plugins.md, "Effects"); an API for it would too.
import type { Ctx } from '../context.ts';
import { invalid } from '../http/problem.ts';
import { actingStaff } from '../auth/acting-staff.ts';
import { writeTransaction, type Idempotency } from '../storage/transaction.ts';
import { removeBannerAlert as removeRow } from '../storage/banner-alerts-repository.ts';
import { assertPatientExists, bannerAlertId, nameProblems, type BannerAlertName } from './banner-alert-rules.ts';

/** Whether there was such an alert: a 400 `validation_failed` naming each bad field, or `patient_does_not_exist`, writes nothing. */
export async function removeBannerAlert(ctx: Ctx, input: BannerAlertName, idempotency?: Idempotency): Promise<boolean> {
  actingStaff(ctx);
  const errors = nameProblems(input);
  if (errors.length > 0) throw invalid(errors);
  const outcome = await writeTransaction<{ removed: boolean }>(ctx, idempotency, async ({ trx, audit }) => {
    await assertPatientExists(trx, input.patient);
    const removed = await removeRow(trx, input.patient, input.plugin, input.key);
    await audit({
      action: 'banner_alert.removed',
      entityType: 'banner_alert',
      entityId: bannerAlertId(input),
      before: null,
      after: null,
      patientKey: input.patient,
    });
    return { status: 200, body: { removed } };
  });
  return outcome.body.removed;
}
