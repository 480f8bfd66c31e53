// DELETE /core/api/v1/plugins/{name}/dead-letters/{id}/: the letter is dropped for good, in one
// transaction with its audit row (docs/api.md, "Dead letters").
import type { Ctx } from '../context.ts';
import { problem } from '../http/problem.ts';
import { writeTransaction } from '../storage/transaction.ts';
import { getPluginForUpdate } from '../storage/plugins-repository.ts';
import { deleteDeadLetter, getDeadLetterForUpdate } from '../storage/plugin-dead-letters-repository.ts';
import { logDeadLetter } from './log-lines.ts';
import { requirePluginScope } from './representation.ts';
import { toDeadLetterView, type DeadLetterView } from './dead-letters.ts';

export async function discardDeadLetter(ctx: Ctx, name: string, id: number): Promise<void> {
  requirePluginScope(ctx);
  const outcome = await writeTransaction<DeadLetterView>(ctx, undefined, async ({ trx, audit }) => {
    if ((await getPluginForUpdate(trx, ctx.storage.engine, name)) === undefined) throw problem('plugin_not_found');
    const letter = await getDeadLetterForUpdate(trx, ctx.storage.engine, name, id);
    if (letter === undefined) throw problem('dead_letter_not_found');
    await deleteDeadLetter(trx, name, id);
    const view = toDeadLetterView(letter);
    await audit({ action: 'plugin.dead_letter_discarded', entityType: 'plugin_dead_letter', entityId: String(id), before: view, after: null });
    return { status: 204, body: view };
  });
  logDeadLetter(ctx, 'discarded', outcome.body); // log stream: after the commit
}
