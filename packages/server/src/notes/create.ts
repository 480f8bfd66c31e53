// POST /core/api/v1/notes/: a new note for an existing patient, titled by its type unless given (docs/api.md, "Notes").
import type { Ctx } from '../context.ts';
import { newUuid } from '../lib/ids.ts';
import { nowMicros } from '../lib/time.ts';
import { problem } from '../http/problem.ts';
import { getPatient, insertNote } from '../storage/clinical-repository.ts';
import { writeTransaction } from '../storage/transaction.ts';
import type { CreateNote, Note } from '@charta/api';
import { actingStaff } from '../auth/acting-staff.ts';
import { toView } from './representation.ts';

const DEFAULT_TITLES: Record<string, string> = {
  encounter: 'Office visit',
  review: 'Chart review',
  data_import: 'Data import',
  letter: 'Letter',
  message: 'Message',
  phone_call: 'Phone call',
};

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
