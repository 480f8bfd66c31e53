// GET /core/api/v1/plugins/: the installed plugins, one page at a time (docs/api.md, "Plugins").
import type { Ctx } from '../context.ts';
import { exactList, type List, type Page } from '../http/pagination.ts';
import { listPlugins as queryPlugins } from '../storage/plugins-repository.ts';
import { requirePluginScope, toView, answered, lastTicksOf, type PluginView } from './representation.ts';

export async function listPlugins(ctx: Ctx, baseUrl: string, page: Page): Promise<List<PluginView>> {
  requirePluginScope(ctx);
  const { rows, count } = await queryPlugins(ctx.storage.reader, page.limit, page.offset);
  const ticks = await lastTicksOf(ctx, rows); // one query for the page
  return exactList(
    page,
    count,
    rows.map((r) => answered(ctx, toView(r, baseUrl, ticks.get(r.name)))),
  );
}
