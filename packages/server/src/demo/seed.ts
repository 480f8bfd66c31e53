// Demo data for a first start: a patient and one note of each kind a newcomer needs to try
// every rule (writable encounter/review/data import notes, a locked, a deleted, a letter).
import type { Storage } from '../storage/db.ts';
import { insertNote, insertPatient } from '../storage/clinical-repository.ts';
import { newKey, newUuid } from '../lib/ids.ts';
import { nowMicros } from '../lib/time.ts';
import { loadDemoReference, type ReferenceCounts } from '../reference/starter.ts';

export interface DemoData {
  patientKey: string;
  notes: Record<'encounter' | 'review' | 'data_import' | 'locked_encounter' | 'deleted_encounter' | 'letter', string>;
  /** Demo reference data added (data/starter/reference.json); entries already there are skipped. */
  reference?: ReferenceCounts;
}

export async function seedDemo(storage: Storage): Promise<DemoData> {
  const demo = await seedPatientAndNotes(storage);
  return { ...demo, reference: await loadDemoReference(storage) };
}

function seedPatientAndNotes(storage: Storage): Promise<DemoData> {
  return storage.db.transaction().execute(async (trx) => {
    const patientKey = newKey();
    await insertPatient(trx, {
      key: patientKey,
      first_name: 'Ada',
      last_name: 'Demo',
      birth_date: '1980-04-12',
      sex_at_birth: 'female',
      created_at: nowMicros(),
    });
    const make = async (noteType: string, title: string, locked = 0, deleted = 0) => {
      const uuid = newUuid();
      const now = nowMicros();
      await insertNote(trx, { uuid, patient_key: patientKey, note_type: noteType, title, locked, deleted, created_at: now, updated_at: now });
      return uuid;
    };
    const notes = {
      encounter: await make('encounter', 'Office visit (demo)'),
      review: await make('review', 'Chart review (demo)'),
      data_import: await make('data_import', 'Data import (demo)'),
      locked_encounter: await make('encounter', 'Locked visit (demo)', 1),
      deleted_encounter: await make('encounter', 'Deleted visit (demo)', 0, 1),
      letter: await make('letter', 'Referral letter (demo)'),
    };
    return { patientKey, notes };
  });
}
