// POST /core/api/v1/commands/{uuid}/enter-in-error/: committed → entered_in_error.
import type { Ctx } from '../context.ts';
import { nowMicros } from '../lib/time.ts';
import { problem } from '../http/problem.ts';
import { updateCommand } from '../storage/commands-repository.ts';
import { writeTransaction, type Idempotency } from '../storage/transaction.ts';
import { assertNoteWritable, loadForWrite, withEditor } from './rules.ts';
import { toView, type CommandView } from './representation.ts';
import { actingStaff } from '../auth/acting-staff.ts';
import { logCommand } from '../logs/events.ts';
import { undoInChart } from '../chart/writer.ts';

export async function enterInError(ctx: Ctx, uuid: string, ifMatch?: string, idempotency?: Idempotency) {
  const staffKey = actingStaff(ctx);
  const outcome = await writeTransaction<CommandView>(ctx, idempotency, async ({ trx, audit }) => {
    const row = await loadForWrite(trx, ctx.storage.engine, uuid, ifMatch);
    await assertNoteWritable(trx, ctx.storage.engine, row.note_uuid);
    if (row.state !== 'committed') throw problem('command_not_committed');
    const changed = {
      ...row,
      state: 'entered_in_error',
      entered_in_error_by: staffKey,
      edited_by: withEditor(row.edited_by, staffKey),
      updated_at: nowMicros(),
    };
    await undoInChart(trx, ctx.storage.engine, uuid, changed.updated_at);
    await updateCommand(trx, uuid, { state: changed.state, entered_in_error_by: staffKey, edited_by: changed.edited_by, updated_at: changed.updated_at });
    const view = toView(changed);
    await audit({ action: 'command.entered_in_error', entityType: 'command', entityId: uuid, before: toView(row), after: view });
    return { status: 200, body: view };
  });
  logCommand(ctx, 'entered in error', outcome); // log stream: after the commit
  return outcome;
}
