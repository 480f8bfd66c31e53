// GET /core/api/v1/patients/{key}/banner-alerts/: the banner alerts plugins added to the patient's
// chart, oldest first, paginated like the chart reads (docs/api.md, "Banner alerts").
import type { Ctx } from '../context.ts';
import { KEY_RE } from '../lib/ids.ts';
import { problem } from '../http/problem.ts';
import { exactList, type List, type Page } from '../http/pagination.ts';
import { actingStaff } from '../auth/acting-staff.ts';
import { getPatient as findPatient } from '../storage/clinical-repository.ts';
import { listBannerAlerts as listRows } from '../storage/banner-alerts-repository.ts';
import type { BannerAlert } from '@charta/api';
import { bannerAlertView } from './representation.ts';

export async function listBannerAlerts(ctx: Ctx, patientKey: string, page: Page): Promise<List<BannerAlert>> {
  actingStaff(ctx);
  if (!KEY_RE.test(patientKey) || (await findPatient(ctx.storage.reader, patientKey)) === undefined) throw problem('patient_not_found');
  const { rows, count } = await listRows(ctx.storage.reader, patientKey, page.limit, page.offset);
  return exactList(page, count, rows.map(bannerAlertView));
}
