// The rules every command write checks inside its transaction: the note may take commands,
// the caller's preconditions (If-Match, the kind an effect names) hold on the locked row, and
// who edited is remembered.
import type { Kysely } from 'kysely';
import type { Engine } from '../storage/db.ts';
import type { CommandTable, Database } from '../storage/schema.ts';
import { getNoteLocked } from '../storage/clinical-repository.ts';
import { getCommandWithNoteForUpdate, type NoteState } from '../storage/commands-repository.ts';
import { problem } from '../http/problem.ts';
import { etagOf, toView } from './representation.ts';
import { noteTakesCommands } from '@charta/api/constants';

/** 400 `Note has an invalid type or state` unless the note takes commands now. */
export async function assertNoteWritable(trx: Kysely<Database>, engine: Engine, noteUuid: string) {
  const note = await getNoteLocked(trx, engine, noteUuid, false);
  if (note === undefined) throw problem('note_does_not_exist');
  checkNote(note);
  return note;
}

function checkNote(note: NoteState): void {
  if (!noteTakesCommands({ note_type: note.note_type, locked: note.locked !== 0, deleted: note.deleted !== 0 })) throw problem('note_invalid');
}

/** What the caller of a write expects of the stored command, checked on the locked row. */
export interface Preconditions {
  /** The request's If-Match: the command must still have one of these ETags (412). */
  ifMatch?: string;
  /**
   * The kind the caller takes the command to be: an effect names one (`COMMIT_PLAN_COMMAND`
   * commits a plan, docs/plugins.md, "Effects"); a command of another kind is a 400.
   */
  kind?: string;
}

/**
 * Loads and locks the command a write is about with its note (one statement): 404 if absent,
 * 412 if If-Match is stale, 400 if it is of another kind than the caller named, 400 unless its
 * note takes commands now.
 */
export async function loadForWrite(trx: Kysely<Database>, engine: Engine, uuid: string, pre: Preconditions): Promise<CommandTable> {
  const found = await getCommandWithNoteForUpdate(trx, engine, uuid);
  if (found === undefined) throw problem('command_not_found');
  const { row, note } = found;
  if (pre.ifMatch !== undefined && !matches(pre.ifMatch, etagOf(toView(row)))) {
    throw problem('precondition_failed', { detail: `The command has changed: its ETag is now ${etagOf(toView(row))}` });
  }
  if (pre.kind !== undefined && row.schema_key !== pre.kind) {
    throw problem('command_kind_mismatch', { detail: `Command ${uuid} is a ${row.schema_key} command, not ${pre.kind}` });
  }
  checkNote(note);
  return row;
}

/** If-Match uses the strong comparison (RFC 9110 §13.1.1): a weak tag never matches. */
function matches(ifMatch: string, etag: string): boolean {
  return ifMatch
    .split(',')
    .map((t) => t.trim())
    .some((t) => t === '*' || t === etag);
}

/** edited_by with the editor appended once. */
export function withEditor(editedBy: string, staffKey: string): string {
  const list = JSON.parse(editedBy) as string[];
  return JSON.stringify(list.includes(staffKey) ? list : [...list, staffKey]);
}
