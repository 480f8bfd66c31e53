// POST /core/api/v1/commands/: a new staged command in an unlocked note of an allowed type.
import type { Ctx } from '../context.ts';
import { newUuid, UUID_RE } from '../lib/ids.ts';
import { nowMicros } from '../lib/time.ts';
import { problem } from '../http/problem.ts';
import { insertCommandWithAudit } from '../storage/commands-repository.ts';
import type { Idempotency } from '../storage/transaction.ts';
import { getKind, kindKeys } from './kinds/index.ts';
import { applyValues, checkValues } from './apply-values-patch.ts';
import { assertNoteWritable } from './rules.ts';
import { toView } from './representation.ts';
import { actingStaff } from '../auth/acting-staff.ts';
import { commandAudit, commandWrite } from './transition.ts';

export interface CreateInput {
  schemaKey: string;
  noteKey?: unknown;
  values?: unknown;
}

export async function createCommand(ctx: Ctx, input: CreateInput, idempotency?: Idempotency) {
  const staffKey = actingStaff(ctx);
  const kind = getKind(input.schemaKey);
  if (kind === undefined) {
    const shown = input.schemaKey.length > 64 ? `${input.schemaKey.slice(0, 64)}…` : input.schemaKey;
    throw problem('unknown_schema_key', { detail: `Unknown schemaKey '${shown}'; known kinds: ${kindKeys.join(', ')}` });
  }
  const checked = checkValues(kind, input.values ?? {});
  const noteUuid = typeof input.noteKey === 'string' ? input.noteKey.toLowerCase() : undefined;
  if (noteUuid === undefined || !UUID_RE.test(noteUuid)) throw problem('note_does_not_exist');
  const uuid = newUuid();
  return commandWrite(ctx, 'created', uuid, idempotency, async ({ trx, hold, auditRow, events: eventsOf }) => {
    const note = await assertNoteWritable(trx, ctx.storage.engine, noteUuid);
    const data = await applyValues({ db: trx, engine: ctx.storage.engine, patientKey: note.patient_key }, kind, {}, input.values ?? {}, checked);
    const now = nowMicros();
    const row = {
      uuid,
      schema_key: kind.key,
      note_uuid: note.uuid,
      patient_key: note.patient_key,
      state: 'staged',
      data: JSON.stringify(data),
      originated_by: staffKey,
      edited_by: JSON.stringify([staffKey]),
      committed_by: null,
      entered_in_error_by: null,
      created_at: now,
      updated_at: now,
    };
    const view = toView(row);
    const events = eventsOf(staffKey, { action: 'ORIGINATE', command: view, previous: null });
    hold(events.pre(trx));
    await insertCommandWithAudit(trx, ctx.storage.engine, row, auditRow(commandAudit('created', uuid, null, view)));
    await events.post(trx);
    return { status: 201, body: view };
  });
}
