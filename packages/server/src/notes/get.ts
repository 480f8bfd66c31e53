// GET /core/api/v1/notes/{uuid} (docs/api.md, "Notes").
import type { Ctx } from '../context.ts';
import { problem } from '../http/problem.ts';
import { getNote as findNote } from '../storage/clinical-repository.ts';
import type { Note } from '@charta/api';
import { actingStaff } from '../auth/acting-staff.ts';
import { noteUuid, toView } from './representation.ts';

export async function getNote(ctx: Ctx, uuid: string): Promise<Note> {
  actingStaff(ctx);
  const row = await findNote(ctx.storage.reader, noteUuid(uuid));
  if (row === undefined) throw problem('note_not_found');
  return toView(row);
}
