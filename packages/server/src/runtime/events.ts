// The events handlers are given (docs/plugins.md, "Events"): their names, as the original platform
// names them, and their JSON. Only JSON built here crosses into the sandbox.
import crypto from 'node:crypto';
import { commandEvent as commandEventName, searchEvent, type CommandKindKey, type SearchField } from '@charta/plugin-sdk';
import type { JsonObject } from './sandbox/types.ts';
import type { CommandChangeEvent, EventActor } from './types.ts';

/** `PLAN_COMMAND__POST_COMMIT` and its kind-independent twin `POST_COMMAND_COMMIT`. */
export function commandEventNames(schemaKey: string, when: 'PRE' | 'POST', action: CommandChangeEvent['action']): [string, string] {
  return [commandEventName(schemaKey as CommandKindKey, when, action), `${when}_COMMAND_${action}`];
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
