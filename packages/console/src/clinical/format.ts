// How the clinical pages write times, names, states and keys.
import { codeSystemName, type SexAtBirth } from '@charta/api/constants';
import { UNSTRUCTURED, type Coding, type CommandState, type Note, type Patient } from './types.ts';

/** `2026-11-22T06:15:46.705662Z` as `2026-11-22 06:15 UTC`: what `<time>`'s title shows on hover. */
export const utc = (iso: string) => `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;

const LOCAL = new Intl.DateTimeFormat(undefined, {
  year: 'numeric',
  month: '2-digit',
  day: '2-digit',
  hour: '2-digit',
  minute: '2-digit',
  hourCycle: 'h23',
  timeZoneName: 'short',
});

/** An instant in the browser's time zone, `2026-11-22 07:15 CET` (docs/console.md, "Patients and notes"); UTC is its title. */
export function when(iso: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  const part = Object.fromEntries(LOCAL.formatToParts(date).map((p) => [p.type, p.value]));
  return `${part.year}-${part.month}-${part.day} ${part.hour}:${part.minute} ${part.timeZoneName ?? ''}`.trim();
}

/** Whole years from a birth date (`YYYY-MM-DD`) to today, in the browser's calendar. */
export function ageOf(birthDate: string, today = new Date()): number | undefined {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(birthDate);
  if (m === null) return undefined;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  let age = today.getFullYear() - y;
  if (today.getMonth() + 1 < mo || (today.getMonth() + 1 === mo && today.getDate() < d)) age--;
  return age >= 0 ? age : undefined;
}

export const fullName = (p: Patient) => `${p.first_name} ${p.last_name}`;

/** A patient's sex at birth as a person reads it (docs/api.md, "Patients"). */
export const SEX_TEXT: Record<SexAtBirth, string> = { female: 'Female', male: 'Male', other: 'Other', unknown: 'Unknown' };

/** Age and sex in one line (`46 years · Female`), what is known of them; '' when neither is. */
export function ageAndSex(p: Patient, today = new Date()): string {
  const age = p.birth_date === null ? undefined : ageOf(p.birth_date, today);
  return [age === undefined ? undefined : `${age} year${age === 1 ? '' : 's'}`, p.sex_at_birth === null ? undefined : SEX_TEXT[p.sex_at_birth]]
    .filter((x): x is string => x !== undefined)
    .join(' · ');
}

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

/** `code · system` of a coding with the system's short name (`I10 · ICD-10`, `860975 · RxNorm`), or `free text`. */
export const codingText = (c: Coding) => (c.system === UNSTRUCTURED ? 'free text' : `${c.code} · ${codeSystemName(c.system)}`);

/** A picked option's text (`{text, value, extra}`), or a string as it is. */
function textOf(value: unknown): string | undefined {
  if (typeof value === 'string') return value.trim() === '' ? undefined : value;
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
    const o = value as { text?: unknown; extra?: { coding?: Array<{ code?: unknown; system?: unknown }> } };
    if (typeof o.text !== 'string') return undefined;
    const coding = Array.isArray(o.extra?.coding) ? o.extra.coding[0] : undefined;
    return typeof coding?.code === 'string' && coding.system !== UNSTRUCTURED && coding.code !== o.text ? `${o.text} (${coding.code})` : o.text;
  }
  if (Array.isArray(value)) {
    const texts = value.map(textOf).filter((t): t is string => t !== undefined);
    return texts.length === 0 ? undefined : texts.join(', ');
  }
  return undefined;
}

/** The fields that say what a command is, by kind, in the order a summary names them; other kinds use their first text. */
const SUMMARY_FIELDS: Record<string, string[]> = {
  prescribe: ['prescribe', 'sig'],
  medicationStatement: ['medication', 'sig'],
  diagnose: ['diagnose'],
  assess: ['condition', 'narrative'],
  labOrder: ['tests', 'lab_partner'],
  questionnaire: ['questionnaire'],
  goal: ['goal_statement'],
  updateGoal: ['goal_statement', 'progress'],
  stopMedication: ['medication', 'rationale'],
  instruct: ['instruct', 'comment'],
  perform: ['perform', 'notes'],
  reasonForVisit: ['coding', 'comment'],
  educationalMaterial: ['title'],
};

/** One line of what a command holds (a plan's narrative, a diagnosis with its code, a medication with its sig); '' when empty. */
export function summaryOf(command: { schema_key: string; data: Record<string, unknown> }): string {
  const names = SUMMARY_FIELDS[command.schema_key] ?? ['narrative', 'comment'];
  let parts = names.map((n) => textOf(command.data[n])).filter((t): t is string => t !== undefined);
  if (parts.length === 0)
    parts = Object.values(command.data)
      .map(textOf)
      .filter((t): t is string => t !== undefined)
      .slice(0, 1);
  const line = parts.join(' — ').replace(/\s+/g, ' ');
  return line.length > 160 ? `${line.slice(0, 159)}…` : line;
}
