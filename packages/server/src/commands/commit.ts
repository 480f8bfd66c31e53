// POST /core/api/v1/commands/{uuid}/commit/: staged → committed, once every required field is there.
import type { Ctx } from '../context.ts';
import { nowMicros } from '../lib/time.ts';
import { problem } from '../http/problem.ts';
import { updateCommand } from '../storage/commands-repository.ts';
import { writeTransaction, type Idempotency } from '../storage/transaction.ts';
import { getKind } from './kinds/index.ts';
import { missingRequired } from './check-values.ts';
import { assertNoteWritable, loadForWrite, withEditor } from './rules.ts';
import { toView, type CommandView } from './representation.ts';
import { actingStaff } from '../auth/acting-staff.ts';
import { logCommand } from '../logs/events.ts';
import { writeChart } from '../chart/writer.ts';

export async function commitCommand(ctx: Ctx, uuid: string, ifMatch?: string, idempotency?: Idempotency) {
  const staffKey = actingStaff(ctx);
  const outcome = await writeTransaction<CommandView>(ctx, idempotency, async ({ trx, audit }) => {
    const row = await loadForWrite(trx, ctx.storage.engine, uuid, ifMatch);
    await assertNoteWritable(trx, ctx.storage.engine, row.note_uuid);
    if (row.state !== 'staged') throw problem('command_not_staged');
    const kind = getKind(row.schema_key)!;
    const missing = missingRequired(kind, JSON.parse(row.data) as Record<string, unknown>);
    if (missing.length > 0) {
      const names = missing.map((m) => m.field.replace(/^values\./, ''));
      throw problem('required_field_missing', {
        detail: `Required to commit: ${names.map((n) => `'${n}'`).join(', ')}`,
        errors: missing,
      });
    }
    const changed = { ...row, state: 'committed', committed_by: staffKey, edited_by: withEditor(row.edited_by, staffKey), updated_at: nowMicros() };
    if (kind.onCommit !== undefined)
      await writeChart(trx, ctx.storage.engine, { ...row, data: JSON.parse(row.data) as Record<string, unknown> }, changed.updated_at, kind.onCommit);
    await updateCommand(trx, uuid, { state: changed.state, committed_by: staffKey, edited_by: changed.edited_by, updated_at: changed.updated_at });
    const view = toView(changed);
    await audit({ action: 'command.committed', entityType: 'command', entityId: uuid, before: toView(row), after: view });
    return { status: 200, body: view };
  });
  logCommand(ctx, 'committed', outcome); // log stream: after the commit
  return outcome;
}
