// The console keeps its own copy of the records it reads (src/clinical/types.ts, and a plugin and
// its dead letter in src/plugins/types.ts: its build cannot import the server's modules). This file keeps that copy true to the server's schemas
// (docs/console.md, "The stack and why"): `npm run typecheck` fails when a type drifts, and the
// test fails when the server's schema gains or loses a member the copy does not know of.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type {
  Command as ServerCommand,
  Fields,
  Note as ServerNote,
  Patient as ServerPatient,
  Plugin as ServerPlugin,
  PluginDeadLetter,
} from '@charta/server/schemas';
import { CommandSchema, FieldsSchema } from '../../server/src/commands/schemas.ts';
import { NoteSchema } from '../../server/src/notes/schemas.ts';
import { PatientSchema } from '../../server/src/patients/schemas.ts';
import { DeadLetterSchema, PluginSchema } from '../../server/src/plugins/schemas.ts';
import type { Command, Field, Note, Patient } from '../src/clinical/types.ts';
import type { DeadLetter, Plugin } from '../src/plugins/types.ts';

/**
 * true when every value the server may send as `Server` is a `Copy` (checked by the compiler): the
 * copy may be looser (a note's type as any string), never stricter nor missing a member's type.
 */
type Reads<Copy, Server> = [Server] extends [Copy] ? true : false;

const READS: Record<'command' | 'deadLetter' | 'field' | 'note' | 'patient' | 'plugin', true> = {
  command: true satisfies Reads<Command, ServerCommand>,
  deadLetter: true satisfies Reads<DeadLetter, PluginDeadLetter>,
  field: true satisfies Reads<Field, Fields['fields'][number]>,
  note: true satisfies Reads<Note, ServerNote>,
  patient: true satisfies Reads<Patient, ServerPatient>,
  plugin: true satisfies Reads<Plugin, ServerPlugin>,
};

/** The members of a TypeBox object schema. */
const membersOf = (schema: { properties: Record<string, unknown> }) => Object.keys(schema.properties).sort();

describe("the console's copy of the wire types", () => {
  it("names exactly the members of the server's schemas", () => {
    assert.deepEqual(Object.keys(READS).sort(), ['command', 'deadLetter', 'field', 'note', 'patient', 'plugin']);
    const command: Record<keyof Command, true> = {
      uuid: true,
      state: true,
      created_at: true,
      updated_at: true,
      schema_key: true,
      patient_key: true,
      note_key: true,
      originated_by: true,
      edited_by: true,
      committed_by: true,
      entered_in_error_by: true,
      data: true,
    };
    const field: Record<keyof Field, true> = { name: true, type: true, required: true, choices: true, max_items: true, free_text: true, label: true };
    const note: Record<keyof Note, true> = {
      uuid: true,
      patient_key: true,
      note_type: true,
      title: true,
      locked: true,
      deleted: true,
      created_at: true,
      updated_at: true,
    };
    const patient: Record<keyof Patient, true> = { key: true, first_name: true, last_name: true, birth_date: true, created_at: true };
    assert.deepEqual(Object.keys(command).sort(), membersOf(CommandSchema));
    assert.deepEqual(Object.keys(field).sort(), membersOf(FieldsSchema.properties.fields.items));
    assert.deepEqual(Object.keys(note).sort(), membersOf(NoteSchema));
    assert.deepEqual(Object.keys(patient).sort(), membersOf(PatientSchema));
    const deadLetter: Record<keyof DeadLetter, true> = {
      id: true,
      plugin: true,
      handler: true,
      event_id: true,
      event_type: true,
      command: true,
      attempts: true,
      last_error: true,
      request_id: true,
      created_at: true,
      failed_at: true,
      event: true,
    };
    assert.deepEqual(Object.keys(deadLetter).sort(), membersOf(DeadLetterSchema));
    // The plugin object the plugins page reads; the download link (`package`) it builds itself.
    const plugin: Record<keyof Plugin | 'package', true> = {
      name: true,
      description: true,
      package: true,
      package_checksum: true,
      version: true,
      is_enabled: true,
      grants: true,
      created_at: true,
      updated_at: true,
      runtime: true,
      faults: true,
    };
    assert.deepEqual(Object.keys(plugin).sort(), membersOf(PluginSchema));
  });
});
