// GET /core/api/v1/admin/lab-partners/{id}/tests/: a lab partner's tests, one page at a time; an
// unknown partner is a 404 (docs/api.md, "Admin API").
import type { Ctx } from '../context.ts';
import { problem } from '../http/problem.ts';
import type { Page } from '../http/pagination.ts';
import { countLabTests, labPartnerById, listLabTests as queryLabTests } from '../storage/reference-repository.ts';
import { listEntries, requireAdmin } from './admin-operation.ts';
import { labTestView } from './representation.ts';

export async function listLabTests(ctx: Ctx, partnerId: string, page: Page) {
  requireAdmin(ctx);
  if ((await labPartnerById(ctx.storage.reader, partnerId)) === undefined) throw problem('lab_partner_not_found');
  return listEntries(
    ctx,
    page,
    (db, w) => queryLabTests(db, partnerId, w),
    (db) => countLabTests(db, partnerId),
    labTestView,
  );
}
