// PATCH /core/api/v1/commands/{uuid}/: replace the named field values of a staged command.
import type { Ctx } from '../lib/context.ts';
import { nowMicros } from '../lib/time.ts';
import { invalid, problem } from '../http/problem.ts';
import { updateCommand as saveCommand } from '../storage/commands-repository.ts';
import { writeTransaction } from '../storage/transaction.ts';
import { getKind } from './kinds/index.ts';
import { validateValues } from './values.ts';
import { resolveOptions } from '../options/index.ts';
import { assertNoteWritable, loadForWrite, withEditor } from './rules.ts';
import { toView, type CommandView } from './representation.ts';
import { actingStaff } from './actor.ts';
import { logCommand } from '../logs/events.ts';

export async function updateCommand(ctx: Ctx, uuid: string, values: unknown, ifMatch?: string) {
  const staffKey = actingStaff(ctx);
  const outcome = await writeTransaction<CommandView>(ctx, undefined, async ({ trx, audit }) => {
    const row = await loadForWrite(trx, ctx.storage.engine, uuid, ifMatch);
    await assertNoteWritable(trx, ctx.storage.engine, row.note_uuid);
    if (row.state !== 'staged') throw problem('command_not_staged');
    const kind = getKind(row.schema_key)!;
    const checked = validateValues(kind, values ?? {});
    if (!checked.ok) throw invalid(checked.errors);
    const data = { ...(JSON.parse(row.data) as Record<string, unknown>) };
    const given: Record<string, unknown> = {};
    for (const [name, value] of Object.entries(checked.values)) {
      if (value === null) delete data[name];
      else given[name] = value;
    }
    const resolved = await resolveOptions(kind, given, { db: trx, engine: ctx.storage.engine, patientKey: row.patient_key, data: { ...data, ...given } });
    if (!resolved.ok) throw invalid(resolved.errors);
    Object.assign(data, resolved.values);
    const changed = { ...row, data: JSON.stringify(data), edited_by: withEditor(row.edited_by, staffKey), updated_at: nowMicros() };
    await saveCommand(trx, uuid, { data: changed.data, edited_by: changed.edited_by, updated_at: changed.updated_at });
    const view = toView(changed);
    await audit({ action: 'command.updated', entityType: 'command', entityId: uuid, before: toView(row), after: view });
    return { status: 200, body: view };
  });
  logCommand(ctx, 'updated', outcome); // log stream: after the commit
  return outcome;
}
