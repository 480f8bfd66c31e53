// The events handlers are given (docs/plugins.md, "Events"): their names, as the original platform
// names them, and their JSON. Only JSON built here crosses into the sandbox.
import crypto from 'node:crypto';
import { COMMAND_EVENT_PREFIXES, type CommandKindKey } from '@charta/plugin-sdk';
import type { JsonObject } from './sandbox/types.ts';
import type { CommandChangeEvent, EventActor } from './types.ts';

/** `PLAN_COMMAND__POST_COMMIT` and its kind-independent twin `POST_COMMAND_COMMIT`. */
export function commandEventNames(schemaKey: string, when: 'PRE' | 'POST', action: CommandChangeEvent['action']): [string, string] {
  const prefix = COMMAND_EVENT_PREFIXES[schemaKey as CommandKindKey];
  return [`${prefix}_COMMAND__${when}_${action}`, `${when}_COMMAND_${action}`];
}

/** `DIAGNOSE_COMMAND__DIAGNOSE__POST_SEARCH`: a camelCase field name in upper snake case. */
export function searchEventName(schemaKey: string, field: string): string {
  const prefix = COMMAND_EVENT_PREFIXES[schemaKey as CommandKindKey];
  return `${prefix}_COMMAND__${field.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toUpperCase()}__POST_SEARCH`;
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

/** The same event under another name (a kind's event delivered to a handler of the generic one). */
export function renamed(event: JsonObject, type: string): JsonObject {
  return { ...event, type };
}
