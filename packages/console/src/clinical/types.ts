// The clinical records as the API answers them (docs/api.md, "Patients", "Notes", "Commands",
// "Fields", "Autocomplete", "The patient's chart"), and their paths.
export interface Patient {
  key: string;
  first_name: string;
  last_name: string;
  birth_date: string | null;
  created_at: string;
}

export interface Note {
  uuid: string;
  patient_key: string;
  note_type: string;
  title: string;
  locked: boolean;
  deleted: boolean;
  created_at: string;
  updated_at: string;
}

export type CommandState = 'staged' | 'committed' | 'entered_in_error';

export interface Command {
  uuid: string;
  state: CommandState;
  created_at: string;
  updated_at: string;
  schema_key: string;
  patient_key: string;
  note_key: string;
  originated_by: string;
  edited_by: string[];
  committed_by: string | null;
  entered_in_error_by: string | null;
  data: Record<string, unknown>;
}

export interface Field {
  name: string;
  type: string;
  required: boolean;
  choices: Array<{ value: string; text: string }>;
  /** Only on an AutocompleteField holding a list of options. */
  max_items?: number;
  /** Only on an AutocompleteField that also takes free text (an UNSTRUCTURED coding). */
  free_text?: true;
  /** Only on a questionnaire's question: its text. */
  label?: string;
}

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

export interface Page<T> {
  count: number;
  count_is_estimate?: boolean;
  next: string | null;
  previous: string | null;
  results: T[];
}

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

/** Notes of these types take commands (docs/api.md, "Notes"). */
export const TAKES_COMMANDS = ['encounter', 'review', 'data_import'];

/** Whether commands of the note can be added or changed (docs/api.md, "Note rules"). */
export const writable = (note: Note) => TAKES_COMMANDS.includes(note.note_type) && !note.locked && !note.deleted;
