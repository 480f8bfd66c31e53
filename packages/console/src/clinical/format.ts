// How the clinical pages write times, names, states and keys.
import { UNSTRUCTURED, type Coding, type CommandState, type Note, type Patient } from './types.ts';

/** `2026-11-22T06:15:46.705662Z` as `2026-11-22 06:15 UTC`. */
export const when = (iso: string) => `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;

export const fullName = (p: Patient) => `${p.first_name} ${p.last_name}`;

export const STATE_TEXT: Record<CommandState, string> = { staged: 'Staged', committed: 'Committed', entered_in_error: 'Entered in error' };

export function noteState(note: Note): string {
  if (note.deleted) return 'Deleted';
  if (note.locked) return 'Locked';
  return 'Open';
}

export const NOTE_TYPE_TEXT: Record<string, string> = {
  encounter: 'Encounter',
  review: 'Review',
  data_import: 'Data import',
  letter: 'Letter',
  message: 'Message',
  phone_call: 'Phone call',
};

/** A staff key, shortened for reading (the full key is its title). */
export const staff = (key: string | null) => (key === null ? '—' : key.slice(0, 8));

/** A field name as a label: `approximate_date_of_onset` → `Approximate date of onset`. */
export function labelOf(name: string): string {
  const words = name
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .replace(/[_-]+/g, ' ')
    .trim()
    .toLowerCase();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** `code · system` of a coding, or `free text`. */
export const codingText = (c: Coding) => (c.system === UNSTRUCTURED ? 'free text' : `${c.code} · ${c.system}`);
