// The effects a plugin's handler returns, as the wire names them (docs/plugins.md, "Effects"):
// their types, payloads and limits. Shapes follow the original platform's effects
// (`ORIGINATE_PLAN_COMMAND` with `{command, note, data, line_number, commit}`, `ADD_BANNER_ALERT`,
// the original's `PatientMetadata` as `UPSERT_PATIENT_METADATA`…).
// The plugin SDK builds them (its effect constructors), the server reads them
// (runtime/effect-payloads.ts): both from here.
import { COMMAND_EVENT_PREFIXES, type CommandKindKey } from './events.ts';

export interface Effect<T extends string = string, P = unknown> {
  type: T;
  payload: P;
}

/** The effect key of each kind: the prefix of its events, except hpi's, which is HPI. */
export type EffectKeys = Omit<typeof COMMAND_EVENT_PREFIXES, 'hpi'> & { hpi: 'HPI' };
/** `PLAN`, `HPI`, `LAB_ORDER`…: the middle of a command effect's type. */
export type CommandEffectKey = EffectKeys[CommandKindKey];

export type CommandStep = 'COMMIT' | 'DELETE' | 'ENTER_IN_ERROR';

/** `ORIGINATE_PLAN_COMMAND`, `EDIT_HPI_COMMAND`, `ENTER_IN_ERROR_LAB_ORDER_COMMAND`… */
export type CommandEffectType = `${'ORIGINATE' | 'EDIT' | CommandStep}_${CommandEffectKey}_COMMAND`;
/** Every effect type a handler may return. */
export type EffectType =
  | CommandEffectType
  | 'ADD_BANNER_ALERT'
  | 'REMOVE_BANNER_ALERT'
  | 'UPSERT_PATIENT_METADATA'
  | 'DELETE_PATIENT_METADATA'
  | 'EVENT_VALIDATION_ERROR'
  | 'AUTOCOMPLETE_SEARCH_RESULTS';

/** The effect key of a kind: hpi's is HPI (its events say HISTORY_OF_PRESENT_ILLNESS). */
export function effectKey<K extends CommandKindKey>(kind: K): EffectKeys[K] {
  return (kind === 'hpi' ? 'HPI' : COMMAND_EVENT_PREFIXES[kind]) as EffectKeys[K];
}

/** Every effect type, command effects first (five per kind), in a fixed order. */
export const EFFECT_TYPES: readonly EffectType[] = Object.freeze([
  ...(Object.keys(COMMAND_EVENT_PREFIXES) as CommandKindKey[]).flatMap((kind) =>
    (['ORIGINATE', 'EDIT', 'COMMIT', 'DELETE', 'ENTER_IN_ERROR'] as const).map((step): EffectType => `${step}_${effectKey(kind)}_COMMAND`),
  ),
  'ADD_BANNER_ALERT',
  'REMOVE_BANNER_ALERT',
  'UPSERT_PATIENT_METADATA',
  'DELETE_PATIENT_METADATA',
  'EVENT_VALIDATION_ERROR',
  'AUTOCOMPLETE_SEARCH_RESULTS',
]);

const effectTypes: ReadonlySet<string> = new Set(EFFECT_TYPES);

export function isEffectType(type: string): type is EffectType {
  return effectTypes.has(type);
}

/** The kind and step of a command effect type (`EDIT_LAB_ORDER_COMMAND` → labOrder, EDIT), else undefined. */
export function commandEffectOf(type: string): { kind: CommandKindKey; step: 'ORIGINATE' | 'EDIT' | CommandStep } | undefined {
  const m = /^(ORIGINATE|EDIT|COMMIT|DELETE|ENTER_IN_ERROR)_([A-Z_]+)_COMMAND$/.exec(type);
  if (!m) return undefined;
  const kind = (Object.keys(COMMAND_EVENT_PREFIXES) as CommandKindKey[]).find((k) => effectKey(k) === m[2]);
  return kind === undefined ? undefined : { kind, step: m[1] as 'ORIGINATE' | 'EDIT' | CommandStep };
}

export interface OriginatePayload {
  /** Always null: the instance gives the new command its uuid. */
  command: null;
  /** The note's uuid. */
  note: string;
  data: Record<string, unknown>;
  /** Always -1: the command goes at the end of the note. */
  line_number: -1;
  commit: boolean;
}

export interface EditPayload {
  command: string;
  data: Record<string, unknown>;
}

export const BANNER_PLACEMENTS = ['chart', 'timeline', 'appointment_card', 'scheduling_card', 'profile'] as const;
export const BANNER_INTENTS = ['info', 'warning', 'alert'] as const;
/** The longest banner narrative, in characters. */
export const BANNER_NARRATIVE_MAX = 90;

export interface BannerAlertPayload {
  /** The patient whose chart shows the banner. */
  patient: string;
  /** Identifies the banner, so a later effect can remove it. */
  key: string;
  /** At most BANNER_NARRATIVE_MAX (90) characters. */
  narrative: string;
  placement: (typeof BANNER_PLACEMENTS)[number][];
  intent: (typeof BANNER_INTENTS)[number];
}

/**
 * Patient metadata (docs/plugins.md, "Patient metadata"): a key of 1 to 100 characters, lower-case
 * letters, digits, `_`, `.` and `-`, starting with a letter or a digit, so that one key is never
 * two spellings of the same word (`followUp` and `followup`) and reads the same in a URL or a log
 * line.
 */
export const PATIENT_METADATA_KEY_PATTERN = '^[a-z0-9][a-z0-9_.-]*$';
export const PATIENT_METADATA_KEY_MAX = 100;
/** The longest value, in characters (as JavaScript counts them: UTF-16 code units). */
export const PATIENT_METADATA_VALUE_MAX = 4096;
/** The most keys one plugin (its namespace) keeps on one patient. */
export const PATIENT_METADATA_KEYS_MAX = 100;

const metadataKey = new RegExp(PATIENT_METADATA_KEY_PATTERN);

/** Whether `key` is a well-formed metadata key (its pattern and length). */
export const isPatientMetadataKey = (key: unknown): key is string => typeof key === 'string' && key.length <= PATIENT_METADATA_KEY_MAX && metadataKey.test(key);

/**
 * Whether `value` may be stored: a string of at most 4,096 characters, without U+0000 (PostgreSQL
 * text cannot hold it, and an effect reads the same on either engine). It may be empty.
 */
export const isPatientMetadataValue = (value: unknown): value is string =>
  typeof value === 'string' && value.length <= PATIENT_METADATA_VALUE_MAX && !value.includes('\u0000');

export interface PatientMetadataPayload {
  /** The patient the pair is written on. */
  patient: string;
  /** The key within the plugin's namespace (its name): PATIENT_METADATA_KEY_PATTERN, at most 100 characters. */
  key: string;
  /** At most PATIENT_METADATA_VALUE_MAX (4,096) characters; the same key again replaces it. */
  value: string;
}

export type DeletePatientMetadataPayload = Omit<PatientMetadataPayload, 'value'>;

/** The longest message of a validation error. */
export const VALIDATION_MESSAGE_MAX = 500;

export interface ValidationErrorPayload {
  errors: { message: string; field?: string }[];
}
