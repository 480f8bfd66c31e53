// The clinical records as the API answers them (docs/api.md, "Patients", "Notes", "Commands",
// "Fields", "Autocomplete", "The patient's chart"), and their paths.
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

const V1 = '/core/api/v1';
const q = (params: Record<string, string>) => new URLSearchParams(params).toString();

export const paths = {
  patients: (params: Record<string, string>) => `${V1}/patients?${q(params)}`,
  patient: (key: string) => `${V1}/patients/${key}`,
  chart: (key: string, what: 'conditions' | 'medications' | 'goals' | 'banner-alerts') => `${V1}/patients/${key}/${what}/?limit=100`,
  notes: (patientKey: string, offset = 0) => `${V1}/notes?${q({ patient_key: patientKey, limit: '50', offset: String(offset) })}`,
  note: (uuid: string) => `${V1}/notes/${uuid}`,
  commands: (noteKey: string, offset = 0) => `${V1}/commands?${q({ note_key: noteKey, limit: '100', offset: String(offset) })}`,
  newCommand: () => `${V1}/commands/`,
  command: (uuid: string) => `${V1}/commands/${uuid}/`,
  commit: (uuid: string) => `${V1}/commands/${uuid}/commit/`,
  enterInError: (uuid: string) => `${V1}/commands/${uuid}/enter-in-error/`,
  fields: (uuid: string) => `${V1}/commands/${uuid}/fields/`,
  autocomplete: (uuid: string, field: string, term: string) =>
    `${V1}/commands/${uuid}/fields/${encodeURIComponent(field)}/autocomplete/?${q({ search_term: term, limit: '20' })}`,
};

/** Whether commands of the note can be added or changed: the server says so (docs/api.md, "Notes"). */
export const writable = (note: Note) => note.takes_commands;
