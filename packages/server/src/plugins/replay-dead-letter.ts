// POST /core/api/v1/plugins/{name}/dead-letters/{id}/replay/: the letter's event goes back into the
// outbox aimed at its one handler, with the event's own id (so an effect applied before is not
// applied again), in one transaction with its audit row; the letter leaves the list (docs/api.md,
// "Dead letters"; docs/plugins.md, "Delivery and guarantees").
import type { Ctx } from '../context.ts';
import { nowMicros } from '../lib/time.ts';
import { problem } from '../http/problem.ts';
import { writeTransaction } from '../storage/transaction.ts';
import { getPluginForUpdate } from '../storage/plugins-repository.ts';
import { getDeadLetterForUpdate, replayDeadLetter as requeue } from '../storage/plugin-dead-letters-repository.ts';
import { logDeadLetter } from './log-lines.ts';
import { requirePluginScope } from './representation.ts';
import { toDeadLetterView, type DeadLetterView } from './dead-letters.ts';

export async function replayDeadLetter(ctx: Ctx, name: string, id: number): Promise<DeadLetterView> {
  requirePluginScope(ctx);
  const outcome = await writeTransaction<DeadLetterView>(ctx, undefined, async ({ trx, audit }) => {
    const plugin = await getPluginForUpdate(trx, ctx.storage.engine, name);
    if (plugin === undefined) throw problem('plugin_not_found');
    const letter = await getDeadLetterForUpdate(trx, ctx.storage.engine, name, id);
    if (letter === undefined) throw problem('dead_letter_not_found');
    // A disabled plugin's handlers are given no event: the replay would be dropped.
    if (plugin.is_enabled === 0) throw problem('plugin_disabled');
    const eventId = await requeue(trx, letter, nowMicros());
    const view = toDeadLetterView(letter);
    await audit({
      action: 'plugin.dead_letter_replayed',
      entityType: 'plugin_dead_letter',
      entityId: String(id),
      before: view,
      after: { outbox_event_id: eventId },
    });
    return { status: 202, body: view };
  });
  logDeadLetter(ctx, 'replayed', outcome.body); // log stream: after the commit
  ctx.signals?.emit({ type: 'outbox-written' }); // a process delivers it at once (docs/architecture.md, "Signals")
  return outcome.body;
}
