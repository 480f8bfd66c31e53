// POST /core/api/v1/notes/: a new note for an existing patient, titled by its type unless given (docs/api.md, "Notes").
// Written by the note sequencer (write.ts), with its NOTE_PRE_CREATE and NOTE_CREATED events.
import type { Ctx } from '../context.ts';
import { newUuid } from '../lib/ids.ts';
import { problem } from '../http/problem.ts';
import { getPatient, insertNote } from '../storage/clinical-repository.ts';
import type { CreateNote } from '@charta/api';
import { writeNote } from './write.ts';

const DEFAULT_TITLES: Record<string, string> = {
  encounter: 'Office visit',
  review: 'Chart review',
  data_import: 'Data import',
  letter: 'Letter',
  message: 'Message',
  phone_call: 'Phone call',
};

export async function createNote(ctx: Ctx, input: CreateNote) {
  // Chosen outside the write, which may run more than once (storage/transaction.ts, `Writer`).
  const uuid = newUuid();
  return writeNote(ctx, {
    action: 'CREATE',
    prepare: async ({ trx, now }) => {
      if ((await getPatient(trx, input.patientKey)) === undefined) throw problem('patient_does_not_exist');
      const row = {
        uuid,
        patient_key: input.patientKey,
        note_type: input.noteType,
        title: input.title?.trim() || DEFAULT_TITLES[input.noteType]!,
        locked: 0,
        deleted: 0,
        created_at: now,
        updated_at: now,
      };
      return { before: null, after: row };
    },
    write: (trx, row) => insertNote(trx, row),
  });
}
