// GET /core/api/v1/admin/<catalogue>/: one page of a catalogue (catalogues.ts), by creation order,
// with the count of all its entries; a nested catalogue's unknown parent is a 404 (docs/api.md,
// "Admin API").
import type { Ctx } from '../context.ts';
import { problem } from '../http/problem.ts';
import { exactList, type List, type Page } from '../http/pagination.ts';
import type { Kysely } from 'kysely';
import type { Database } from '../storage/schema.ts';
import { catalogueCount, catalogueRow, catalogueRows } from '../storage/reference-repository.ts';
import { requireAdmin } from '../auth/admin.ts';
import type { Catalogue } from './catalogues.ts';

export async function listEntries(ctx: Ctx, catalogue: Catalogue, page: Page, parentId?: string): Promise<List<unknown>> {
  requireAdmin(ctx, 'The reference data API');
  return entriesPage(ctx.storage.reader, catalogue, page, parentId);
}

/**
 * The page itself, for whoever may read it: the admin API above, and plugins that declare reading
 * the reference data (runtime/data-reads.ts; docs/plugins.md, "Reading the record").
 */
export async function entriesPage(db: Kysely<Database>, catalogue: Catalogue, page: Page, parentId?: string): Promise<List<unknown>> {
  if (catalogue.parent !== undefined && !(await catalogue.parent.exists(db, parentId ?? ''))) throw problem(catalogue.parent.notFound);
  const [rows, count] = await Promise.all([catalogueRows<unknown>(db, catalogue.table, page, parentId), catalogueCount(db, catalogue.table, parentId)]);
  return exactList(page, count, await catalogue.views(db, rows));
}

/** One entry by its key, as the list shows it; undefined when there is none. */
export async function entryById(db: Kysely<Database>, catalogue: Catalogue, id: string): Promise<unknown> {
  const row = await catalogueRow<unknown>(db, catalogue.table, id);
  return row === undefined ? undefined : (await catalogue.views(db, [row]))[0];
}
