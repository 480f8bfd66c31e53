// Notes: create, read, list per patient, lock, unlock, soft delete.
import type { Ctx } from '../lib/context.ts';
import { KEY_RE, newUuid, UUID_RE } from '../lib/ids.ts';
import { isoMicros, nowMicros } from '../lib/time.ts';
import { invalid, problem, type FieldProblem } from '../http/problem.ts';
import { parsePage, type Page } from '../http/pagination.ts';
import { getNote as findNote, getNoteLocked, getPatient, insertNote, listNotes as queryNotes, updateNote } from '../storage/clinical-repository.ts';
import type { NoteTable } from '../storage/schema.ts';
import { writeTransaction } from '../storage/transaction.ts';
import type { CreateNote, Note } from './schemas.ts';
import { actingStaff } from '../commands/actor.ts';

const DEFAULT_TITLES: Record<string, string> = {
  encounter: 'Office visit',
  review: 'Chart review',
  data_import: 'Data import',
  letter: 'Letter',
  message: 'Message',
  phone_call: 'Phone call',
};

const toView = (row: NoteTable): Note => ({
  uuid: row.uuid,
  patient_key: row.patient_key,
  note_type: row.note_type as Note['note_type'],
  title: row.title,
  locked: row.locked !== 0,
  deleted: row.deleted !== 0,
  created_at: isoMicros(row.created_at),
  updated_at: isoMicros(row.updated_at),
});

export async function createNote(ctx: Ctx, input: CreateNote) {
  actingStaff(ctx);
  return writeTransaction<Note>(ctx, undefined, async ({ trx, audit }) => {
    if ((await getPatient(trx, input.patientKey)) === undefined) throw problem('patient_does_not_exist');
    const now = nowMicros();
    const row = {
      uuid: newUuid(),
      patient_key: input.patientKey,
      note_type: input.noteType,
      title: input.title?.trim() || DEFAULT_TITLES[input.noteType]!,
      locked: 0,
      deleted: 0,
      created_at: now,
      updated_at: now,
    };
    await insertNote(trx, row);
    const view = toView(row);
    await audit({ action: 'note.created', entityType: 'note', entityId: row.uuid, before: null, after: view });
    return { status: 201, body: view };
  });
}

function noteUuid(raw: string): string {
  const uuid = raw.toLowerCase();
  if (!UUID_RE.test(uuid)) throw problem('note_not_found');
  return uuid;
}

export async function getNote(ctx: Ctx, uuid: string): Promise<Note> {
  actingStaff(ctx);
  const row = await findNote(ctx.storage.reader, noteUuid(uuid));
  if (row === undefined) throw problem('note_not_found');
  return toView(row);
}

export async function listNotes(ctx: Ctx, query: Partial<Record<string, string>>): Promise<{ page: Page; count: number; results: Note[] }> {
  actingStaff(ctx);
  const errors: FieldProblem[] = [];
  if (query.patient_key !== undefined && !KEY_RE.test(query.patient_key))
    errors.push({ field: 'patient_key', message: 'must be 32 lowercase hexadecimal characters' });
  const page = parsePage(query, errors);
  const deleted = query.deleted === undefined ? undefined : ({ true: true, false: false } as Record<string, boolean>)[query.deleted];
  if (query.deleted !== undefined && deleted === undefined) errors.push({ field: 'deleted', message: 'must be true or false' });
  if (errors.length > 0) throw invalid(errors);
  const { rows, count } = await queryNotes(ctx.storage.reader, { patientKey: query.patient_key, deleted }, page.limit, page.offset);
  return { page, count, results: rows.map(toView) };
}

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
