// The one place where a note changes, as commands/transition.ts is for commands: every write of a
// note (create, lock, unlock, delete: docs/api.md, "Notes") runs here, in one transaction with its
// audit row and its plugin events, in one order:
//   1. where it starts (the write's `prepare`): the note loaded and locked (404 `note_not_found`;
//      a deleted note, 400 `note_deleted`), or, for a create, its patient checked (400
//      `patient_does_not_exist`); it gives the note's row before (none for a create) and after;
//   2. the PRE event of the plugin runtime (`NOTE_PRE_<ACTION>`), held by the transaction
//      (storage/holds.ts): the write goes on while the plugins run, and commits only once they
//      have answered; a plugin's validation error is a 400 that rolls everything back
//      (docs/plugins.md, "Delivery and guarantees"). The transaction may run all of this more
//      than once for one write (storage/transaction.ts, `Writer`), so what must not change
//      between runs (a new note's uuid) is chosen before;
//   3. write the note with its audit row (`note.<done>`), then the POST event's outbox row
//      (`NOTE_<ACTION>ED`); the transaction commits;
//   4. signal `outbox-written` when the POST event's outbox row was written (docs/architecture.md,
//      "Signals": the delivery, here or on another process, wakes).
import type { Kysely } from 'kysely';
import type { Note } from '@charta/api';
import type { Ctx } from '../context.ts';
import { nowMicros } from '../lib/time.ts';
import { eventActor } from '../lib/event-actor.ts';
import type { Engine } from '../storage/db.ts';
import type { Database, NoteTable } from '../storage/schema.ts';
import { writeTransaction, type Outcome } from '../storage/transaction.ts';
import { actingStaff } from '../auth/acting-staff.ts';
import type { NoteAction, NoteChangeEvent } from './plugin-events.ts';
import { toView } from './representation.ts';

/** What a write's `prepare` gets: its transaction, and the time of the change. */
export interface NoteStep {
  trx: Kysely<Database>;
  engine: Engine;
  now: number;
}

/** One write of a note: what it does, where it starts (step 1), and the statement that writes it. */
export interface NoteWrite {
  action: NoteAction;
  /** Step 1: loads and checks what the write starts from; answers the note's row before it (null for a create) and after it. */
  prepare(step: NoteStep): Promise<{ before: NoteTable | null; after: NoteTable }>;
  /** Writes the row (an insert, or an update of the note `prepare` locked); the audit row is the sequencer's. */
  write(trx: Kysely<Database>, after: NoteTable): Promise<unknown>;
}

/** The audit trail's name of each action (`note.locked`: docs/api.md, "Audit trail"). */
const DONE = { CREATE: 'created', LOCK: 'locked', UNLOCK: 'unlocked', DELETE: 'deleted' } as const satisfies Record<NoteAction, string>;

/** Performs the note write `t` (see the steps above): 201 with the new note for a create, else 200 with the note changed. */
export async function writeNote(ctx: Ctx, t: NoteWrite): Promise<Outcome<Note>> {
  const staffKey = actingStaff(ctx);
  let outboxWritten = false;
  const outcome = await writeTransaction<Note>(ctx, undefined, async (w) => {
    outboxWritten = false; // a write run again (storage/group-commit.ts) starts over
    const { before, after } = await t.prepare({ trx: w.trx, engine: ctx.storage.engine, now: nowMicros() });
    const change: NoteChangeEvent = { action: t.action, note: toView(after), previous: before === null ? null : toView(before) };
    const actor = eventActor(ctx, staffKey, w.writeId);
    w.hold(ctx.runtime?.preNote(w.trx, change, actor) ?? Promise.resolve());
    await t.write(w.trx, after);
    await w.audit({
      action: `note.${DONE[t.action]}`,
      entityType: 'note',
      entityId: after.uuid,
      before: change.previous,
      after: change.note,
      patientKey: change.note.patient_key,
      noteKey: after.uuid,
    });
    outboxWritten = (await ctx.runtime?.postNote(w.trx, change, actor)) ?? false;
    return { status: before === null ? 201 : 200, body: change.note };
  });
  if (!outcome.replayed && outboxWritten) ctx.signals?.emit({ type: 'outbox-written' });
  // The change stream (docs/api.md, "Change stream").
  if (!outcome.replayed) {
    const note = outcome.body;
    ctx.signals?.emit({
      type: 'record-changed',
      patient: note.patient_key,
      note: note.uuid,
      target: { type: 'note', id: note.uuid },
      action: DONE[t.action],
      actor: staffKey,
    });
  }
  return outcome;
}
