// The effects a handler may return, read from its JSON (docs/plugins.md, "Effects"): each parser
// answers the typed effect, or a sentence saying what is wrong with it. Nothing here trusts the
// plugin's JSON beyond what it checks.
import { commandEffectOf, isPatientMetadataKey, isPatientMetadataValue, VALIDATION_MESSAGE_MAX, type CommandKindKey } from '@charta/api/constants';
import type { OptionDoc } from '../autocomplete/types.ts';
import { BANNER_INTENTS as INTENTS, BANNER_NAME_MAX, BANNER_NARRATIVE_MAX, BANNER_PLACEMENTS as PLACEMENTS } from '../chart/banner-alert-rules.ts';
import { KEY_RULE, METADATA_NAME_MAX, VALUE_RULE } from '../patients/metadata-rules.ts';
import type { JsonObject, JsonValue } from './sandbox/types.ts';

const isObject = (v: unknown): v is Record<string, JsonValue> => typeof v === 'object' && v !== null && !Array.isArray(v);
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export type CommandEffect =
  | { step: 'originate'; kind: CommandKindKey; note: string; data: Record<string, unknown>; commit: boolean }
  | { step: 'edit'; kind: CommandKindKey; command: string; data: Record<string, unknown> }
  | { step: 'commit' | 'delete' | 'enter-in-error'; kind: CommandKindKey; command: string };

export type BannerEffect =
  | { step: 'add-banner'; patient: string; key: string; narrative: string; placement: string[]; intent: string }
  | { step: 'remove-banner'; patient: string; key: string };

/** The namespace is the plugin's (effects.ts): a payload names none. */
export type MetadataEffect =
  { step: 'upsert-metadata'; patient: string; key: string; value: string } | { step: 'delete-metadata'; patient: string; key: string };

export type Effect = CommandEffect | BannerEffect | MetadataEffect;

const STEPS = { ORIGINATE: 'originate', EDIT: 'edit', COMMIT: 'commit', DELETE: 'delete', ENTER_IN_ERROR: 'enter-in-error' } as const;

function text(payload: Record<string, JsonValue>, key: string, max: number): string | undefined {
  const value = payload[key];
  return typeof value === 'string' && value.length > 0 && value.length <= max ? value : undefined;
}

/** A POST event's effect, or why it cannot be applied. */
export function parseEffect(effect: JsonObject): Effect | string {
  const type = effect.type;
  const payload = effect.payload;
  if (typeof type !== 'string') return 'an effect needs a "type" string';
  if (!isObject(payload)) return `${type}: "payload" must be a JSON object`;
  if (type === 'ADD_BANNER_ALERT') {
    const patient = text(payload, 'patient', BANNER_NAME_MAX);
    const key = text(payload, 'key', BANNER_NAME_MAX);
    const narrative = text(payload, 'narrative', BANNER_NARRATIVE_MAX);
    const placement = payload.placement;
    const intent = payload.intent;
    if (patient === undefined || key === undefined) return `${type}: "patient" and "key" must be non-empty strings (at most ${BANNER_NAME_MAX} characters)`;
    if (narrative === undefined) return `${type}: "narrative" must have 1 to ${BANNER_NARRATIVE_MAX} characters`;
    if (!Array.isArray(placement) || placement.length === 0 || !placement.every((p) => typeof p === 'string' && PLACEMENTS.includes(p))) {
      return `${type}: "placement" must list one or more of ${PLACEMENTS.join(', ')}`;
    }
    if (typeof intent !== 'string' || !INTENTS.includes(intent)) return `${type}: "intent" must be one of ${INTENTS.join(', ')}`;
    return { step: 'add-banner', patient, key, narrative, placement: [...new Set(placement as string[])], intent };
  }
  if (type === 'REMOVE_BANNER_ALERT') {
    const patient = text(payload, 'patient', BANNER_NAME_MAX);
    const key = text(payload, 'key', BANNER_NAME_MAX);
    if (patient === undefined || key === undefined) return `${type}: "patient" and "key" must be non-empty strings (at most ${BANNER_NAME_MAX} characters)`;
    return { step: 'remove-banner', patient, key };
  }
  if (type === 'UPSERT_PATIENT_METADATA' || type === 'DELETE_PATIENT_METADATA') {
    // Over a limit (the key's shape or length, the value's length) the effect is refused whole:
    // nothing of it is stored, no value is cut short.
    const patient = text(payload, 'patient', METADATA_NAME_MAX);
    const key = payload.key;
    if (patient === undefined) return `${type}: "patient" must be a non-empty string (at most ${METADATA_NAME_MAX} characters)`;
    if (!isPatientMetadataKey(key)) return `${type}: "key" ${KEY_RULE}`;
    if (type === 'DELETE_PATIENT_METADATA') return { step: 'delete-metadata', patient, key };
    const value = payload.value;
    if (!isPatientMetadataValue(value)) return `${type}: "value" ${VALUE_RULE}`;
    return { step: 'upsert-metadata', patient, key, value };
  }
  const known = commandEffectOf(type);
  if (known === undefined) return `${type} is not an effect Charta knows`;
  const kind = known.kind;
  const step = STEPS[known.step];
  if (step === 'originate') {
    const note = payload.note;
    const data = payload.data ?? {};
    if (typeof note !== 'string' || !UUID.test(note)) return `${type}: "note" must be a note's uuid`;
    if (!isObject(data)) return `${type}: "data" must be a JSON object of field values`;
    if (payload.commit !== undefined && typeof payload.commit !== 'boolean') return `${type}: "commit" must be true or false`;
    return { step, kind, note: note.toLowerCase(), data, commit: payload.commit === true };
  }
  const command = payload.command;
  if (typeof command !== 'string' || !UUID.test(command)) return `${type}: "command" must be a command's uuid`;
  if (step === 'edit') {
    if (!isObject(payload.data)) return `${type}: "data" must be a JSON object of field values`;
    return { step, kind, command: command.toLowerCase(), data: payload.data };
  }
  return { step, kind, command: command.toLowerCase() };
}

/** The errors of an EVENT_VALIDATION_ERROR effect, or why it is malformed. */
export function validationErrors(effect: JsonObject): Array<{ message: string; field?: string }> | string {
  const payload = effect.payload;
  if (!isObject(payload) || !Array.isArray(payload.errors) || payload.errors.length === 0 || payload.errors.length > 50) {
    return '"payload.errors" must list 1 to 50 errors';
  }
  const out: Array<{ message: string; field?: string }> = [];
  for (const e of payload.errors) {
    if (!isObject(e) || typeof e.message !== 'string' || e.message.length === 0 || e.message.length > VALIDATION_MESSAGE_MAX)
      return `each error needs a "message" of 1 to ${VALIDATION_MESSAGE_MAX} characters`;
    if (e.field !== undefined && (typeof e.field !== 'string' || e.field.length === 0 || e.field.length > 200))
      return 'an error\'s "field" must be a short string';
    out.push({ message: e.message, ...(typeof e.field === 'string' ? { field: e.field } : {}) });
  }
  return out;
}

/**
 * The options of an AUTOCOMPLETE_SEARCH_RESULTS effect: the plugin may reorder and filter the
 * options it was given and set their `annotations`; it cannot invent an option (each is matched
 * to one it was given by its `value` and `text`) nor change one in any other way.
 */
export function searchResults(effect: JsonObject, given: OptionDoc[]): OptionDoc[] | string {
  const payload = effect.payload;
  if (!Array.isArray(payload)) return '"payload" must be the list of options';
  const byIdentity = new Map(given.map((o) => [JSON.stringify([o.value, o.text]), o]));
  const out: OptionDoc[] = [];
  for (const [index, item] of payload.entries()) {
    if (!isObject(item)) return `option ${index} is not an object`;
    const original = byIdentity.get(JSON.stringify([item.value, item.text]));
    if (original === undefined) return `option ${index} is not one of the options the event carried`;
    const annotations = item.annotations;
    if (annotations !== null && annotations !== undefined) {
      if (!Array.isArray(annotations) || annotations.length > 10 || !annotations.every((a) => typeof a === 'string' && a.length <= 200)) {
        return `option ${index}: "annotations" must be null or at most 10 strings of at most 200 characters`;
      }
    }
    out.push({ ...original, annotations: annotations === undefined ? original.annotations : (annotations as string[] | null) });
  }
  return out;
}
