// The one place where a patient changes, as notes/write.ts is for notes: a write of a patient
// runs here, in one transaction with its audit row and its plugin events, in one order:
//   1. the write's `prepare`: what it starts from, and the patient's row before (none for a
//      create) and after;
//   2. the PRE event of the plugin runtime (`PATIENT_PRE_<ACTION>`), held by the transaction
//      (storage/holds.ts): a plugin's validation error is a 400 that rolls everything back
//      (docs/plugins.md, "Delivery and guarantees"). The transaction may run all of this more
//      than once for one write (storage/transaction.ts, `Writer`), so what must not change
//      between runs (a new patient's key) is chosen before;
//   3. write the patient with its audit row (`patient.<done>`), then the POST event's outbox row
//      (`PATIENT_<ACTION>D`); the transaction commits;
//   4. signal `outbox-written` when the POST event's outbox row was written (docs/architecture.md, "Signals").
// The API only creates patients (docs/api.md, "Patients"): nothing updates one yet, so
// PATIENT_PRE_UPDATE and PATIENT_UPDATED have no write that fires them.
import type { Kysely } from 'kysely';
import type { Patient } from '@charta/api';
import type { Ctx } from '../context.ts';
import { nowMicros } from '../lib/time.ts';
import { eventActor } from '../lib/event-actor.ts';
import type { Database, PatientTable } from '../storage/schema.ts';
import { writeTransaction, type Outcome } from '../storage/transaction.ts';
import { actingStaff } from '../auth/acting-staff.ts';
import type { PatientAction, PatientChangeEvent } from './plugin-events.ts';
import { toView } from './representation.ts';

/** One write of a patient: what it does, where it starts (step 1), and the statement that writes it. */
export interface PatientWrite {
  action: PatientAction;
  /** Step 1: answers the patient's row before the write (null for a create) and after it. */
  prepare(step: { trx: Kysely<Database>; now: number }): Promise<{ before: PatientTable | null; after: PatientTable }>;
  /** Writes the row; the audit row is the sequencer's. */
  write(trx: Kysely<Database>, after: PatientTable): Promise<unknown>;
}

/** The audit trail's name of each action (`patient.created`: docs/api.md, "Audit trail"). */
const DONE = { CREATE: 'created', UPDATE: 'updated' } as const satisfies Record<PatientAction, string>;

/** Performs the patient write `t` (see the steps above): 201 with the new patient for a create, else 200. */
export async function writePatient(ctx: Ctx, t: PatientWrite): Promise<Outcome<Patient>> {
  const staffKey = actingStaff(ctx);
  let outboxWritten = false;
  const outcome = await writeTransaction<Patient>(ctx, undefined, async (w) => {
    outboxWritten = false; // a write run again (storage/group-commit.ts) starts over
    const { before, after } = await t.prepare({ trx: w.trx, now: nowMicros() });
    const change: PatientChangeEvent = { action: t.action, patient: toView(after), previous: before === null ? null : toView(before) };
    const actor = eventActor(ctx, staffKey, w.writeId);
    w.hold(ctx.runtime?.prePatient(w.trx, change, actor) ?? Promise.resolve());
    await t.write(w.trx, after);
    await w.audit({
      action: `patient.${DONE[t.action]}`,
      entityType: 'patient',
      entityId: after.key,
      before: change.previous,
      after: change.patient,
      patientKey: after.key,
    });
    outboxWritten = (await ctx.runtime?.postPatient(w.trx, change, actor)) ?? false;
    return { status: before === null ? 201 : 200, body: change.patient };
  });
  if (!outcome.replayed && outboxWritten) ctx.signals?.emit({ type: 'outbox-written' });
  return outcome;
}
