// GET /core/api/v1/notes: filtered by patient and deleted flag, paginated (docs/api.md, "Notes").
import type { Ctx } from '../context.ts';
import { KEY_RE } from '../lib/ids.ts';
import { invalid, type FieldProblem } from '../http/problem.ts';
import type { List, Page } from '../http/pagination.ts';
import { listNotes as queryNotes } from '../storage/clinical-repository.ts';
import type { ListNotesQuery, Note } from '@charta/api';
import type { Static } from '@sinclair/typebox';
import { actingStaff } from '../auth/acting-staff.ts';
import { toView } from './representation.ts';

export type NoteList = List<Note>;

export async function listNotes(ctx: Ctx, query: Static<typeof ListNotesQuery>, page: Page, countCap: number): Promise<NoteList> {
  actingStaff(ctx);
  const errors: FieldProblem[] = [];
  if (query.patient_key !== undefined && !KEY_RE.test(query.patient_key))
    errors.push({ field: 'patient_key', message: 'must be 32 lowercase hexadecimal characters' });
  const deleted = query.deleted === undefined ? undefined : ({ true: true, false: false } as Record<string, boolean>)[query.deleted];
  if (query.deleted !== undefined && deleted === undefined) errors.push({ field: 'deleted', message: 'must be true or false' });
  if (errors.length > 0) throw invalid(errors);
  const list = await queryNotes(ctx.storage.reader, { patientKey: query.patient_key, deleted }, page.limit, page.offset, countCap);
  return { page, hasNext: list.hasNext, count: list.count, countIsEstimate: list.countIsEstimate, results: list.rows.map(toView) };
}
