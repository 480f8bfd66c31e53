// POST /core/api/v1/commands/: a new staged command in an unlocked note of an allowed type. The
// origination is a transition from nothing to staged (transition.ts orders its PRE event, write,
// audit and POST event like every other); this file says what it checks and what it inserts.
import type { Ctx } from '../context.ts';
import { newUuid, UUID_RE } from '../lib/ids.ts';
import { problem } from '../http/problem.ts';
import { insertCommandWithAudit } from '../storage/commands-repository.ts';
import type { Idempotency } from '../storage/transaction.ts';
import { getKind, kindKeys } from './kinds/index.ts';
import { applyValues, checkValues } from './apply-values-patch.ts';
import { assertNoteWritable } from './rules.ts';
import { actingStaff } from '../auth/acting-staff.ts';
import { transition } from './transition.ts';

export interface CreateInput {
  schemaKey: string;
  noteKey?: unknown;
  values?: unknown;
}

export async function createCommand(ctx: Ctx, input: CreateInput, idempotency?: Idempotency) {
  actingStaff(ctx); // who may write comes before what they sent (403 before 400)
  const kind = getKind(input.schemaKey);
  if (kind === undefined) {
    const shown = input.schemaKey.length > 64 ? `${input.schemaKey.slice(0, 64)}…` : input.schemaKey;
    throw problem('unknown_schema_key', { detail: `Unknown schemaKey '${shown}'; known kinds: ${kindKeys.join(', ')}` });
  }
  const checked = checkValues(kind, input.values ?? {});
  const noteUuid = typeof input.noteKey === 'string' ? input.noteKey.toLowerCase() : undefined;
  if (noteUuid === undefined || !UUID_RE.test(noteUuid)) throw problem('note_does_not_exist');
  // Chosen once: the write may run more than once (storage/transaction.ts, `Writer`), as the same command.
  const uuid = newUuid();
  return transition(
    ctx,
    uuid,
    {
      verb: 'created',
      from: null,
      originate: async ({ trx, engine, staffKey, now }) => {
        const note = await assertNoteWritable(trx, engine, noteUuid);
        const data = await applyValues({ db: trx, engine, patientKey: note.patient_key }, kind, {}, input.values ?? {}, checked);
        return {
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
      },
      insert: ({ trx, auditRow }, row, audit, outbox) => insertCommandWithAudit(trx, ctx.storage.engine, row, { audit: auditRow(audit), ...outbox }),
    },
    undefined,
    idempotency,
  );
}
