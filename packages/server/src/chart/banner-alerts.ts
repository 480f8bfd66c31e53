// GET /core/api/v1/patients/{key}/banner-alerts/: the banner alerts plugins added to the patient's
// chart, oldest first, paginated like the chart reads (docs/api.md, "Banner alerts").
import type { Ctx } from '../context.ts';
import { KEY_RE } from '../lib/ids.ts';
import { invalid, problem, type FieldProblem } from '../http/problem.ts';
import { moreAfter, pageLinks, parsePage } from '../http/pagination.ts';
import { actingStaff } from '../auth/acting-staff.ts';
import { getPatient as findPatient } from '../storage/clinical-repository.ts';
import { listBannerAlerts as listRows } from '../storage/banner-alerts-repository.ts';
import type { BannerAlertPage } from './schemas.ts';
import { bannerAlertView } from './representation.ts';

export async function listBannerAlerts(
  ctx: Ctx,
  patientKey: string,
  query: Partial<Record<string, string>>,
  baseUrl: string,
  path: string,
): Promise<BannerAlertPage> {
  actingStaff(ctx);
  const errors: FieldProblem[] = [];
  const page = parsePage(query, errors);
  if (errors.length > 0) throw invalid(errors);
  if (!KEY_RE.test(patientKey) || (await findPatient(ctx.storage.reader, patientKey)) === undefined) throw problem('patient_not_found');
  const { rows, count } = await listRows(ctx.storage.reader, patientKey, page.limit, page.offset);
  return { count, ...pageLinks(baseUrl, path, query, page, moreAfter(page, count)), results: rows.map(bannerAlertView) };
}
