// GET /core/api/v1/patients/{key}/banner-alerts/: the banner alerts plugins added to the patient's
// chart, oldest first, paginated like the chart reads (docs/api.md, "Banner alerts").
import type { Ctx } from '../context.ts';
import { KEY_RE } from '../lib/ids.ts';
import { isoMicros } from '../lib/time.ts';
import { problem } from '../http/problem.ts';
import { exactList, type List, type Page } from '../http/pagination.ts';
import { actingStaff } from '../auth/acting-staff.ts';
import { getPatient as findPatient } from '../storage/clinical-repository.ts';
import { listBannerAlerts as listRows, type BannerAlertRow } from '../storage/banner-alerts-repository.ts';
import type { BannerAlert } from '@charta/api';

function view(row: BannerAlertRow): BannerAlert {
  let placement: unknown;
  try {
    placement = JSON.parse(row.placement);
  } catch {
    placement = [];
  }
  return {
    plugin: row.plugin_name,
    key: row.key,
    narrative: row.narrative,
    placement: Array.isArray(placement) ? placement.filter((p): p is string => typeof p === 'string') : [],
    intent: row.intent,
    created_at: isoMicros(row.created_at),
    updated_at: isoMicros(row.updated_at),
  };
}

export async function listBannerAlerts(ctx: Ctx, patientKey: string, page: Page): Promise<List<BannerAlert>> {
  actingStaff(ctx);
  if (!KEY_RE.test(patientKey) || (await findPatient(ctx.storage.reader, patientKey)) === undefined) throw problem('patient_not_found');
  const { rows, count } = await listRows(ctx.storage.reader, patientKey, page.limit, page.offset);
  return exactList(page, count, rows.map(view));
}
