// GET /core/api/v1/plugins/{name}/ (docs/api.md, "Plugins").
import type { Ctx } from '../context.ts';
import { problem } from '../http/problem.ts';
import { getPlugin as findPlugin } from '../storage/plugins-repository.ts';
import { requirePluginScope, toView, answered, lastTicksOf, type PluginView } from './representation.ts';

export async function getPlugin(ctx: Ctx, baseUrl: string, name: string): Promise<PluginView> {
  requirePluginScope(ctx);
  const row = await findPlugin(ctx.storage.reader, name);
  if (row === undefined) throw problem('plugin_not_found');
  const ticks = await lastTicksOf(ctx, [row]);
  return answered(ctx, toView(row, baseUrl, ticks.get(row.name)));
}
