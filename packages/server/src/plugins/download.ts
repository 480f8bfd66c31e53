// GET /core/api/v1/plugins/{name}/package/: the installed package's bytes (docs/api.md, "Plugins").
import type { Ctx } from '../context.ts';
import { problem } from '../http/problem.ts';
import { getPluginPackage } from '../storage/plugins-repository.ts';
import { requirePluginScope } from './representation.ts';

export async function downloadPackage(ctx: Ctx, name: string) {
  requirePluginScope(ctx);
  const row = await getPluginPackage(ctx.storage.reader, name);
  if (row === undefined) throw problem('plugin_not_found');
  return row;
}
