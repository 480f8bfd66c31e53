// DELETE /core/api/v1/commands/{uuid}/: remove a staged command (kept only in the audit trail).
import type { Ctx } from '../context.ts';
import { problem } from '../http/problem.ts';
import { deleteCommand as removeCommand } from '../storage/commands-repository.ts';
import { writeTransaction } from '../storage/transaction.ts';
import { assertNoteWritable, loadForWrite } from './rules.ts';
import { toView } from './representation.ts';
import { actingStaff } from '../auth/acting-staff.ts';
import { logCommandDeleted } from '../logs/events.ts';

export async function deleteCommand(ctx: Ctx, uuid: string, ifMatch?: string) {
  actingStaff(ctx);
  const outcome = await writeTransaction<null>(ctx, undefined, async ({ trx, audit }) => {
    const row = await loadForWrite(trx, ctx.storage.engine, uuid, ifMatch);
    await assertNoteWritable(trx, ctx.storage.engine, row.note_uuid);
    if (row.state !== 'staged') throw problem('command_not_staged');
    await removeCommand(trx, uuid);
    await audit({ action: 'command.deleted', entityType: 'command', entityId: uuid, before: toView(row), after: null });
    return { status: 200, body: null };
  });
  logCommandDeleted(ctx, uuid, outcome); // log stream: after the commit
  return outcome;
}
