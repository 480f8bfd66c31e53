// PATCH /core/api/v1/commands/{uuid}/: replace the named field values of a staged command.
import type { Ctx } from '../context.ts';
import { nowMicros } from '../lib/time.ts';
import { problem } from '../http/problem.ts';
import { updateCommand as saveCommand } from '../storage/commands-repository.ts';
import { writeTransaction } from '../storage/transaction.ts';
import { getKind } from './kinds/index.ts';
import { applyValues } from './apply-values-patch.ts';
import { assertNoteWritable, loadForWrite, withEditor } from './rules.ts';
import { toView, type CommandView } from './representation.ts';
import { actingStaff } from '../auth/acting-staff.ts';
import { logCommand } from '../logs/events.ts';

export async function updateCommand(ctx: Ctx, uuid: string, values: unknown, ifMatch?: string) {
  const staffKey = actingStaff(ctx);
  const outcome = await writeTransaction<CommandView>(ctx, undefined, async ({ trx, audit }) => {
    const row = await loadForWrite(trx, ctx.storage.engine, uuid, ifMatch);
    await assertNoteWritable(trx, ctx.storage.engine, row.note_uuid);
    if (row.state !== 'staged') throw problem('command_not_staged');
    const current = JSON.parse(row.data) as Record<string, unknown>;
    const data = await applyValues({ db: trx, engine: ctx.storage.engine, patientKey: row.patient_key }, getKind(row.schema_key)!, current, values ?? {});
    const changed = { ...row, data: JSON.stringify(data), edited_by: withEditor(row.edited_by, staffKey), updated_at: nowMicros() };
    await saveCommand(trx, uuid, { data: changed.data, edited_by: changed.edited_by, updated_at: changed.updated_at });
    const view = toView(changed);
    await audit({ action: 'command.updated', entityType: 'command', entityId: uuid, before: toView(row), after: view });
    return { status: 200, body: view };
  });
  logCommand(ctx, 'updated', outcome); // log stream: after the commit
  return outcome;
}
