// DELETE /core/api/v1/plugins/{name}/: remove a disabled plugin (an enabled one with ?force=true),
// its secrets, its dead letters, its cache and its schedules' ticks, in one transaction with its audit row (docs/api.md, "Plugins").
import type { Ctx } from '../context.ts';
import { problem } from '../http/problem.ts';
import { writeTransaction } from '../storage/transaction.ts';
import { deletePlugin as removePlugin, getPluginForUpdate } from '../storage/plugins-repository.ts';
import { removeAllPluginSecrets } from '../storage/plugin-secrets-repository.ts';
import { deletePluginDeadLetters } from '../storage/plugin-dead-letters-repository.ts';
import { deletePluginCache } from '../storage/plugin-cache-repository.ts';
import { deletePluginTicks } from '../storage/plugin-ticks-repository.ts';
import { requirePluginScope, toView } from './representation.ts';
import { logPlugin } from './log-lines.ts';
import { signalPluginWrite } from './signal.ts';

export async function deletePlugin(ctx: Ctx, baseUrl: string, name: string, force: boolean) {
  requirePluginScope(ctx);
  const outcome = await writeTransaction<null>(ctx, undefined, async ({ trx, audit }) => {
    const before = await getPluginForUpdate(trx, ctx.storage.engine, name);
    if (before === undefined) throw problem('plugin_not_found');
    if (before.is_enabled !== 0 && !force) throw problem('plugin_enabled');
    await removePlugin(trx, name);
    await removeAllPluginSecrets(trx, name); // its secrets go with it (docs/plugins.md, "Secrets")
    await deletePluginDeadLetters(trx, name); // and its dead letters (docs/api.md, "Dead letters")
    await deletePluginCache(trx, name); // and its cache (docs/plugins.md, "Cache")
    await deletePluginTicks(trx, name); // and its schedules' ticks (docs/plugins.md, "Scheduled tasks")
    await audit({ action: 'plugin.deleted', entityType: 'plugin', entityId: name, before: toView(before, baseUrl), after: null });
    return { status: 204, body: null };
  });
  logPlugin(ctx, 'deleted', name); // log stream: after the commit
  signalPluginWrite(ctx, name, { plugin: true, secrets: true }); // the runtimes of every process
  return outcome;
}
