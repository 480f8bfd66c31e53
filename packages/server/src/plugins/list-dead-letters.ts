// GET /core/api/v1/plugins/{name}/dead-letters/: the plugin's dead letters, newest first, one page
// at a time (docs/api.md, "Dead letters").
import type { Ctx } from '../context.ts';
import { exactList, type List, type Page } from '../http/pagination.ts';
import { problem } from '../http/problem.ts';
import { getPlugin } from '../storage/plugins-repository.ts';
import { listDeadLetters as queryDeadLetters } from '../storage/plugin-dead-letters-repository.ts';
import { requirePluginScope } from './representation.ts';
import { toDeadLetterView, type DeadLetterView } from './dead-letters.ts';

export async function listDeadLetters(ctx: Ctx, name: string, page: Page): Promise<List<DeadLetterView>> {
  requirePluginScope(ctx);
  const db = ctx.storage.reader;
  if ((await getPlugin(db, name)) === undefined) throw problem('plugin_not_found');
  const { rows, count } = await queryDeadLetters(db, name, page.limit, page.offset);
  return exactList(page, count, rows.map(toDeadLetterView));
}
