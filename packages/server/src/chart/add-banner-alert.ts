// Adds a banner alert to a patient's chart, or replaces the one its plugin added with the same
// key, keeping its created_at (docs/api.md, "Banner alerts"): one write transaction with its audit
// row `banner_alert.added`. The ADD_BANNER_ALERT effect calls it as the plugin's own user
// (docs/plugins.md, "Effects"); an API for it would too.
import type { Ctx } from '../context.ts';
import { nowMicros } from '../lib/time.ts';
import { invalid } from '../http/problem.ts';
import { actingStaff } from '../auth/acting-staff.ts';
import { writeTransaction, type Idempotency } from '../storage/transaction.ts';
import { upsertBannerAlert } from '../storage/banner-alerts-repository.ts';
import { assertPatientExists, bannerAlertId, contentProblems, nameProblems, type BannerAlertContent, type BannerAlertName } from './banner-alert-rules.ts';
import { bannerAlertView } from './representation.ts';
import type { BannerAlert } from '@charta/api';

export type AddBannerAlert = BannerAlertName & BannerAlertContent;

/** The alert as stored: a 400 `validation_failed` naming each bad field, or `patient_does_not_exist`, writes nothing. */
export async function addBannerAlert(ctx: Ctx, input: AddBannerAlert, idempotency?: Idempotency): Promise<BannerAlert> {
  actingStaff(ctx);
  const errors = [...nameProblems(input), ...contentProblems(input)];
  if (errors.length > 0) throw invalid(errors);
  const placement = [...new Set(input.placement)];
  const outcome = await writeTransaction<BannerAlert>(ctx, idempotency, async ({ trx, audit }) => {
    await assertPatientExists(trx, input.patient);
    const now = nowMicros();
    const row = {
      patient_key: input.patient,
      plugin_name: input.plugin,
      key: input.key,
      narrative: input.narrative,
      placement: JSON.stringify(placement),
      intent: input.intent,
      created_at: now,
      updated_at: now,
    };
    const stored = await upsertBannerAlert(trx, row);
    await audit({
      action: 'banner_alert.added',
      entityType: 'banner_alert',
      entityId: bannerAlertId(input),
      before: null,
      after: { ...row, placement },
      patientKey: input.patient,
    });
    return { status: 200, body: bannerAlertView(stored) };
  });
  return outcome.body;
}
