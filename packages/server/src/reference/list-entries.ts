// GET /core/api/v1/admin/<catalogue>/: one page of a catalogue (catalogues.ts), by creation order,
// with the count of all its entries; a nested catalogue's unknown parent is a 404 (docs/api.md,
// "Admin API").
import type { Ctx } from '../context.ts';
import { problem } from '../http/problem.ts';
import { exactList, type List, type Page } from '../http/pagination.ts';
import { catalogueCount, catalogueRows } from '../storage/reference-repository.ts';
import { requireAdmin } from './admin.ts';
import type { Catalogue } from './catalogues.ts';

export async function listEntries(ctx: Ctx, catalogue: Catalogue, page: Page, parentId?: string): Promise<List<unknown>> {
  requireAdmin(ctx);
  const db = ctx.storage.reader;
  if (catalogue.parent !== undefined && !(await catalogue.parent.exists(db, parentId ?? ''))) throw problem(catalogue.parent.notFound);
  const [rows, count] = await Promise.all([catalogueRows<unknown>(db, catalogue.table, page, parentId), catalogueCount(db, catalogue.table, parentId)]);
  return exactList(page, count, await catalogue.views(db, rows));
}
