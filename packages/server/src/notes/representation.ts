// A note row as the API shows it (docs/api.md, "Notes"), and a note's uuid from a path.
import { UUID_RE } from '../lib/ids.ts';
import { isoMicros } from '../lib/time.ts';
import { problem } from '../http/problem.ts';
import type { NoteTable } from '../storage/schema.ts';
import type { Note } from '@charta/api';
import { noteTakesCommands } from '@charta/api/constants';

export function toView(row: NoteTable): Note {
  const shown = { note_type: row.note_type as Note['note_type'], locked: row.locked !== 0, deleted: row.deleted !== 0 };
  return {
    uuid: row.uuid,
    patient_key: row.patient_key,
    ...shown,
    title: row.title,
    takes_commands: noteTakesCommands(shown),
    created_at: isoMicros(row.created_at),
    updated_at: isoMicros(row.updated_at),
  };
}

/** The uuid of a path, lowercased; one that cannot be a uuid is a note that does not exist. */
export function noteUuid(raw: string): string {
  const uuid = raw.toLowerCase();
  if (!UUID_RE.test(uuid)) throw problem('note_not_found');
  return uuid;
}
