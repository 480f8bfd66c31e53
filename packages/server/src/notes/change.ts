// POST /core/api/v1/notes/{uuid}/lock/, POST …/unlock/ and DELETE /core/api/v1/notes/{uuid}/:
// one state change of a note, checked on the locked row and written by the note sequencer
// (write.ts) with its audit row and its NOTE_PRE_… and NOTE_…ED events (docs/api.md, "Notes").
import type { Ctx } from '../context.ts';
import { problem } from '../http/problem.ts';
import { getNoteLocked, updateNote } from '../storage/clinical-repository.ts';
import { actingStaff } from '../auth/acting-staff.ts';
import type { NoteAction } from './plugin-events.ts';
import { noteUuid } from './representation.ts';
import { writeNote } from './write.ts';

const ACTIONS = { lock: 'LOCK', unlock: 'UNLOCK', delete: 'DELETE' } as const satisfies Record<string, NoteAction>;

/** lock / unlock / delete: one state change of a note. */
export async function changeNote(ctx: Ctx, uuid: string, change: 'lock' | 'unlock' | 'delete') {
  actingStaff(ctx); // a caller who may not write is told so before a path that names no note
  const id = noteUuid(uuid);
  return writeNote(ctx, {
    action: ACTIONS[change],
    prepare: async ({ trx, engine, now }) => {
      const row = await getNoteLocked(trx, engine, id, true);
      if (row === undefined) throw problem('note_not_found');
      if (row.deleted !== 0) throw problem('note_deleted');
      const set = { ...(change === 'delete' ? { deleted: 1 } : { locked: change === 'lock' ? 1 : 0 }), updated_at: now };
      return { before: row, after: { ...row, ...set } };
    },
    write: (trx, { locked, deleted, updated_at }) => updateNote(trx, id, { locked, deleted, updated_at }),
  });
}
