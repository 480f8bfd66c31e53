// What a note write needs of the plugin runtime (docs/plugins.md, "Events"): the port this
// feature declares and the runtime implements (runtime/types.ts PluginRuntime extends it), as
// commands/plugin-events.ts does for commands, so notes/ imports nothing of the runtime.
import type { Kysely } from 'kysely';
import type { Note, RecordAction } from '@charta/api';
import type { Database } from '../storage/schema.ts';
import type { EventActor } from '../lib/event-actor.ts';

/** What the API can do to a note, as event names spell it (`NOTE_PRE_LOCK`, `NOTE_LOCKED`). */
export type NoteAction = RecordAction<'note'>;

/** One note change, as its events describe it. */
export interface NoteChangeEvent {
  action: NoteAction;
  /** The note as the API returns it, after the change (a deleted note is shown deleted). */
  note: Note;
  /** The note before the change; null when it is being created. */
  previous: Note | null;
}

/** The PRE and POST events of a note write (the sequencer, notes/write.ts, calls them). */
export interface NoteEventHooks {
  /**
   * PRE event of a note change, inside its write transaction before anything is written, as a
   * command's (CommandEventHooks.pre): a handler's validation error refuses the change (400
   * `plugin_validation_failed`); a handler that cannot answer follows its `on_failure`.
   */
  preNote(trx: Kysely<Database>, change: NoteChangeEvent, actor: EventActor): Promise<void>;
  /** POST event of a note change: its outbox row, in the change's transaction; true when it wrote one. */
  postNote(trx: Kysely<Database>, change: NoteChangeEvent, actor: EventActor): Promise<boolean>;
}
