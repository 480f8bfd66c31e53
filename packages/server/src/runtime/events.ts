// The events handlers are given (docs/plugins.md, "Events"): their names, as the original platform
// names them, and their JSON. Only JSON built here crosses into the sandbox.
import crypto from 'node:crypto';
import { commandEvent as commandEventName, searchEvent, type CommandKindKey, type SearchField } from '@charta/plugin-sdk';
import { RECORD_EVENTS, recordEvent, type ChangeTarget } from '@charta/api/constants';
import type { JsonObject } from './sandbox/types.ts';
import type { CommandChangeEvent, EventActor, NoteChangeEvent, PatientChangeEvent } from './types.ts';

/** `PLAN_COMMAND__POST_COMMIT` and its kind-independent twin `POST_COMMAND_COMMIT`. */
export function commandEventNames(schemaKey: string, when: 'PRE' | 'POST', action: CommandChangeEvent['action']): [string, string] {
  return [commandEventName(schemaKey as CommandKindKey, when, action), `${when}_COMMAND_${action}`];
}

/**
 * The names an outbox row's event is given under (runtime/delivery.ts): its own, and for a
 * command kind's event its generic twin (`PLAN_COMMAND__POST_COMMIT`, then `POST_COMMAND_COMMIT`).
 */
export function deliveredNames(type: string): string[] {
  const generic = type.replace(/^[A-Z_]+?_COMMAND__(PRE|POST)_/, '$1_COMMAND_');
  return generic === type ? [type] : [type, generic];
}

/**
 * Whether the event comes before its change (a PRE event: the change is not written yet, and a
 * handler may refuse it): `…_COMMAND__PRE_…`, `PRE_COMMAND_…`, `NOTE_PRE_…`, `PATIENT_PRE_…`.
 */
export function isPreEvent(type: string): boolean {
  return /^PRE_COMMAND_|_COMMAND__PRE_/.test(type) || RECORD_EVENTS.get(type)?.when === 'PRE';
}

/** `DIAGNOSE_COMMAND__DIAGNOSE__POST_SEARCH`: a camelCase field name in upper snake case. */
export function searchEventName(schemaKey: string, field: string): string {
  return searchEvent(schemaKey as CommandKindKey, field as SearchField<CommandKindKey>);
}

export const newEventId = (): string => crypto.randomUUID();

/** The event of a command change, as handlers get it. */
export function commandEvent(id: string, type: string, change: CommandChangeEvent, actor: EventActor): JsonObject {
  const c = change.command;
  return {
    id,
    type,
    target: { id: c.uuid, type: 'command' },
    context: {
      command: c as unknown as JsonObject,
      previous: change.previous as unknown as JsonObject | null,
      fields: c.data as JsonObject,
      note: { uuid: c.note_key },
      patient: { key: c.patient_key },
    },
    actor: { id: actor.staffKey },
    depth: actor.depth,
  };
}

/** The event of a note change, as handlers get it: the note as the API shows it, before and after. */
export function noteEvent(id: string, type: string, change: NoteChangeEvent, actor: EventActor): JsonObject {
  const n = change.note;
  return {
    id,
    type,
    target: { id: n.uuid, type: 'note' },
    context: {
      note: n as unknown as JsonObject,
      previous: change.previous as unknown as JsonObject | null,
      patient: { key: n.patient_key },
    },
    actor: { id: actor.staffKey },
    depth: actor.depth,
  };
}

/** The event of a patient change, as handlers get it: the patient as the API shows it (its `key` among the rest), before and after. */
export function patientEvent(id: string, type: string, change: PatientChangeEvent, actor: EventActor): JsonObject {
  const p = change.patient;
  return {
    id,
    type,
    target: { id: p.key, type: 'patient' },
    context: { patient: p as unknown as JsonObject, previous: change.previous as unknown as JsonObject | null },
    actor: { id: actor.staffKey },
    depth: actor.depth,
  };
}

/**
 * A change whose PRE or POST event dispatch (runtime/dispatch.ts) and the outbox
 * (runtime/outbox.ts) handle, whatever it changes: a command, a note or a patient.
 */
export interface ChangeSubject {
  /** What the change is about: the event's target (the outbox delivers one target's events in order). */
  target: { type: ChangeTarget; id: string };
  /** Its event's names in the phase asked: its own first (the one an outbox row keeps), then a twin (a command kind's generic event). */
  names: string[];
  /** The event, as handlers get it. */
  event(id: string, type: string, actor: EventActor): JsonObject;
  /** What a PRE decision is about, but for the times a run of the write sets (compared only when a write runs again). */
  about(): string;
}

/** A command change's events (`PLAN_COMMAND__PRE_COMMIT` and `PRE_COMMAND_COMMIT`…). */
export function commandSubject(change: CommandChangeEvent, when: 'PRE' | 'POST'): ChangeSubject {
  return {
    target: { type: 'command', id: change.command.uuid },
    names: commandEventNames(change.command.schema_key, when, change.action),
    event: (id, type, actor) => commandEvent(id, type, change, actor),
    about: () => {
      const { created_at: _created, updated_at: _updated, ...command } = change.command;
      return JSON.stringify([change.action, command, change.previous]);
    },
  };
}

/** A note change's event (`NOTE_PRE_LOCK`, `NOTE_LOCKED`…). */
export function noteSubject(change: NoteChangeEvent, when: 'PRE' | 'POST'): ChangeSubject {
  return {
    target: { type: 'note', id: change.note.uuid },
    names: [recordEvent('note', when, change.action)],
    event: (id, type, actor) => noteEvent(id, type, change, actor),
    about: () => {
      const { created_at: _created, updated_at: _updated, ...note } = change.note;
      return JSON.stringify([change.action, note, change.previous]);
    },
  };
}

/** A patient change's event (`PATIENT_PRE_CREATE`, `PATIENT_CREATED`…). */
export function patientSubject(change: PatientChangeEvent, when: 'PRE' | 'POST'): ChangeSubject {
  return {
    target: { type: 'patient', id: change.patient.key },
    names: [recordEvent('patient', when, change.action)],
    event: (id, type, actor) => patientEvent(id, type, change, actor),
    about: () => {
      const { created_at: _created, ...patient } = change.patient;
      return JSON.stringify([change.action, patient, change.previous]);
    },
  };
}

/** The patient an event is about (`context.patient.key`), or null for an event about none. */
export function eventPatient(event: JsonObject): string | null {
  const context = event.context;
  const patient = typeof context === 'object' && context !== null && !Array.isArray(context) ? context.patient : undefined;
  const key = typeof patient === 'object' && patient !== null && !Array.isArray(patient) ? patient.key : undefined;
  return typeof key === 'string' ? key : null;
}

/** The same event under another name (a kind's event delivered to a handler of the generic one). */
export function renamed(event: JsonObject, type: string): JsonObject {
  return { ...event, type };
}
