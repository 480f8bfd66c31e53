// The clinical records as the API answers them (docs/api.md, "Patients", "Notes", "Commands",
// "Fields", "Autocomplete", "The patient's chart").
export type { Command, CommandState, Note, Patient } from '@charta/api';
import type { Fields, Note } from '@charta/api';

/** A field of a kind as `/fields/` lists it. */
export type Field = Fields['fields'][number];

/** A coded value: a concept of a code system, or free text (system UNSTRUCTURED, the text as its code). */
export interface Coding {
  system: string;
  code: string | number;
  display?: string;
}

/** The system of free text (docs/api.md, "Setting an autocomplete field"). */
export const UNSTRUCTURED = 'UNSTRUCTURED';

/** An autocomplete option as the server stores it (the parsed `value` of a wire option). */
export interface Option {
  text: string;
  value: string | number;
  disabled?: boolean;
  description?: string | null;
  annotations?: unknown[] | null;
  extra?: { coding?: Coding[] } & Record<string, unknown>;
}

export type { Paginated as Page } from '@charta/api';

/** Whether commands of the note can be added or changed: the server says so (docs/api.md, "Notes"). */
export const writable = (note: Note) => note.takes_commands;
