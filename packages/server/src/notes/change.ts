// POST /core/api/v1/notes/{uuid}/lock/, POST …/unlock/ and DELETE /core/api/v1/notes/{uuid}/:
// one operation, a state change of a note, checked and audited in its transaction (docs/api.md, "Notes").
import type { Ctx } from '../context.ts';
import { nowMicros } from '../lib/time.ts';
import { problem } from '../http/problem.ts';
import { getNoteLocked, updateNote } from '../storage/clinical-repository.ts';
import { writeTransaction } from '../storage/transaction.ts';
import type { Note } from '@charta/api';
import { actingStaff } from '../auth/acting-staff.ts';
import { noteUuid, toView } from './representation.ts';

/** lock / unlock / delete: one state change of a note, checked and audited in its transaction. */
export async function changeNote(ctx: Ctx, uuid: string, change: 'lock' | 'unlock' | 'delete') {
  actingStaff(ctx);
  const id = noteUuid(uuid);
  return writeTransaction<Note>(ctx, undefined, async ({ trx, audit }) => {
    const row = await getNoteLocked(trx, ctx.storage.engine, id, true);
    if (row === undefined) throw problem('note_not_found');
    if (row.deleted !== 0) throw problem('note_deleted');
    const set = { ...(change === 'delete' ? { deleted: 1 } : { locked: change === 'lock' ? 1 : 0 }), updated_at: nowMicros() };
    await updateNote(trx, id, set);
    const after = toView({ ...row, ...set });
    await audit({
      action: `note.${change === 'delete' ? 'deleted' : change === 'lock' ? 'locked' : 'unlocked'}`,
      entityType: 'note',
      entityId: id,
      before: toView(row),
      after,
    });
    return { status: 200, body: after };
  });
}
