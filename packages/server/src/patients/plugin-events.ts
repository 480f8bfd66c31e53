// What a patient write needs of the plugin runtime (docs/plugins.md, "Events"): the port this
// feature declares and the runtime implements (runtime/types.ts PluginRuntime extends it), as
// commands/plugin-events.ts does for commands, so patients/ imports nothing of the runtime.
import type { Kysely } from 'kysely';
import type { Patient, RecordAction } from '@charta/api';
import type { Database } from '../storage/schema.ts';
import type { EventActor } from '../lib/event-actor.ts';

/**
 * What can happen to a patient, as event names spell it (`PATIENT_PRE_CREATE`, `PATIENT_CREATED`).
 * Only CREATE happens yet: the API has no patient update (docs/plugins.md, "Event names").
 */
export type PatientAction = RecordAction<'patient'>;

/** One patient change, as its events describe it. */
export interface PatientChangeEvent {
  action: PatientAction;
  /** The patient as the API returns it, after the change. */
  patient: Patient;
  /** The patient before the change; null when it is being created. */
  previous: Patient | null;
}

/** The PRE and POST events of a patient write (the sequencer, patients/write.ts, calls them). */
export interface PatientEventHooks {
  /** PRE event of a patient change, inside its write transaction before anything is written (as NoteEventHooks.preNote). */
  prePatient(trx: Kysely<Database>, change: PatientChangeEvent, actor: EventActor): Promise<void>;
  /** POST event of a patient change: its outbox row, in the change's transaction; true when it wrote one. */
  postPatient(trx: Kysely<Database>, change: PatientChangeEvent, actor: EventActor): Promise<boolean>;
}
