// The effects a handler returns: what it asks the instance to do. Shapes follow the original
// platform's effects (`ORIGINATE_PLAN_COMMAND` with `{command, note, data, line_number, commit}`,
// `ADD_BANNER_ALERT`…), so a handler's output reads the same on either. Which event each
// effect may answer: (docs/plugins.md, "Effects").
import { COMMAND_EVENT_PREFIXES, type AutocompleteOption, type CommandKindKey } from './events.ts';
import {
  BANNER_INTENTS,
  BANNER_NARRATIVE_MAX,
  BANNER_PLACEMENTS,
  PATIENT_METADATA_KEY_MAX,
  PATIENT_METADATA_KEY_PATTERN,
  PATIENT_METADATA_VALUE_MAX,
  VALIDATION_MESSAGE_MAX,
  effectKey,
  isPatientMetadataKey,
  isPatientMetadataValue,
  type BannerAlertPayload as BannerAlert,
  type CommandStep,
  type DeletePatientMetadataPayload,
  type EditPayload,
  type Effect,
  type EffectKeys,
  type OriginatePayload,
  type PatientMetadataPayload,
  type ValidationErrorPayload,
} from '@charta/api/constants';

// The effects' wire (types, payloads, limits) is @charta/api's; re-exported for plugin authors.
export {
  BANNER_INTENTS,
  BANNER_NARRATIVE_MAX,
  BANNER_PLACEMENTS,
  EFFECT_TYPES,
  PATIENT_METADATA_KEY_MAX,
  PATIENT_METADATA_KEY_PATTERN,
  PATIENT_METADATA_KEYS_MAX,
  PATIENT_METADATA_VALUE_MAX,
  VALIDATION_MESSAGE_MAX,
  commandEffectOf,
  isEffectType,
  isPatientMetadataKey,
  isPatientMetadataValue,
} from '@charta/api/constants';
export type {
  BannerAlertPayload as BannerAlert,
  CommandEffectKey,
  CommandEffectType,
  DeletePatientMetadataPayload,
  EditPayload,
  Effect,
  EffectType,
  OriginatePayload,
  PatientMetadataPayload,
  ValidationErrorPayload,
} from '@charta/api/constants';

function checkKind(kind: CommandKindKey): void {
  if (!Object.hasOwn(COMMAND_EVENT_PREFIXES, kind)) throw new TypeError(`unknown command kind ${JSON.stringify(kind)}`);
}

/** Adds a new command of `kind` to a note, with these values; `commit: true` commits it at once. */
export function originateCommand<K extends CommandKindKey>(
  kind: K,
  note: string,
  data: Record<string, unknown>,
  options: { commit?: boolean } = {},
): Effect<`ORIGINATE_${EffectKeys[K]}_COMMAND`, OriginatePayload> {
  checkKind(kind);
  return { type: `ORIGINATE_${effectKey(kind)}_COMMAND`, payload: { command: null, note, data, line_number: -1, commit: options.commit ?? false } };
}

/** Changes values of an existing command. */
export function editCommand<K extends CommandKindKey>(
  kind: K,
  command: string,
  data: Record<string, unknown>,
): Effect<`EDIT_${EffectKeys[K]}_COMMAND`, EditPayload> {
  checkKind(kind);
  return { type: `EDIT_${effectKey(kind)}_COMMAND`, payload: { command, data } };
}

/** Commits, deletes or enters in error an existing command. */
export function commandStep<S extends CommandStep, K extends CommandKindKey>(
  step: S,
  kind: K,
  command: string,
): Effect<`${S}_${EffectKeys[K]}_COMMAND`, { command: string }> {
  if (!['COMMIT', 'DELETE', 'ENTER_IN_ERROR'].includes(step)) throw new TypeError(`unknown command step ${JSON.stringify(step)}`);
  checkKind(kind);
  return { type: `${step}_${effectKey(kind)}_COMMAND`, payload: { command } };
}

/** Shows a banner on a patient's chart. Throws a RangeError for a narrative over 90 characters or no placement. */
export function addBannerAlert(alert: BannerAlert): Effect<'ADD_BANNER_ALERT', BannerAlert> {
  if (alert.narrative.length === 0 || alert.narrative.length > BANNER_NARRATIVE_MAX)
    throw new RangeError(`a banner narrative has 1 to ${BANNER_NARRATIVE_MAX} characters`);
  if (alert.placement.length === 0) throw new RangeError('a banner needs at least one placement');
  for (const p of alert.placement) if (!BANNER_PLACEMENTS.includes(p)) throw new RangeError(`unknown banner placement ${JSON.stringify(p)}`);
  if (!BANNER_INTENTS.includes(alert.intent)) throw new RangeError(`unknown banner intent ${JSON.stringify(alert.intent)}`);
  return { type: 'ADD_BANNER_ALERT', payload: { ...alert, placement: [...alert.placement] } };
}

export function removeBannerAlert(patient: string, key: string): Effect<'REMOVE_BANNER_ALERT', { patient: string; key: string }> {
  return { type: 'REMOVE_BANNER_ALERT', payload: { patient, key } };
}

/**
 * Writes `value` under `key` on a patient, in the plugin's own namespace (its name), replacing the
 * key's value if there is one (docs/plugins.md, "Patient metadata"). Throws a RangeError for a key
 * that is not 1 to 100 characters of a-z, 0-9, `_`, `.` and `-` (starting with a letter or digit),
 * or a value over 4,096 characters (or holding U+0000): the instance would refuse it whole.
 */
export function upsertPatientMetadata(patient: string, key: string, value: string): Effect<'UPSERT_PATIENT_METADATA', PatientMetadataPayload> {
  checkMetadataKey(key);
  if (!isPatientMetadataValue(value))
    throw new RangeError(`a patient metadata value is a string of at most ${PATIENT_METADATA_VALUE_MAX} characters, without U+0000`);
  return { type: 'UPSERT_PATIENT_METADATA', payload: { patient, key, value } };
}

/** Deletes `key` from the plugin's own namespace on a patient (nothing to delete is no error). Throws a RangeError for a malformed key. */
export function deletePatientMetadata(patient: string, key: string): Effect<'DELETE_PATIENT_METADATA', DeletePatientMetadataPayload> {
  checkMetadataKey(key);
  return { type: 'DELETE_PATIENT_METADATA', payload: { patient, key } };
}

function checkMetadataKey(key: string): void {
  if (!isPatientMetadataKey(key)) {
    throw new RangeError(
      `a patient metadata key has 1 to ${PATIENT_METADATA_KEY_MAX} characters matching ${PATIENT_METADATA_KEY_PATTERN}: ${JSON.stringify(String(key).slice(0, 120))}`,
    );
  }
}

/**
 * Refuses the change a PRE event (`…__PRE_COMMIT`, `PRE_COMMAND_UPDATE`…) announces: the API
 * answers 400 with this message, and nothing is written. Returned for any other event, it is
 * not applied (the instance logs it as an error). `field` names the command field at fault.
 * Throws a RangeError for a message that is empty or longer than 500 characters.
 */
export function validationError(message: string, options: { field?: string } = {}): Effect<'EVENT_VALIDATION_ERROR', ValidationErrorPayload> {
  if (typeof message !== 'string' || message.length === 0 || message.length > VALIDATION_MESSAGE_MAX) {
    throw new RangeError(`a validation message has 1 to ${VALIDATION_MESSAGE_MAX} characters`);
  }
  if (options.field !== undefined && (typeof options.field !== 'string' || options.field.length === 0)) {
    throw new RangeError('a validation error names its field with a non-empty string');
  }
  return { type: 'EVENT_VALIDATION_ERROR', payload: { errors: [options.field === undefined ? { message } : { message, field: options.field }] } };
}

/**
 * The options an autocomplete search shows, in this order, in place of those it found: answers
 * an after-search event (`…__POST_SEARCH`) to reorder, filter or annotate its `results`. The
 * next plugin's handler sees this list. Returned for any other event, it is not applied (the
 * instance logs it as an error). Throws a TypeError when `options` is not a list of objects.
 */
export function autocompleteResults(options: readonly AutocompleteOption[]): Effect<'AUTOCOMPLETE_SEARCH_RESULTS', AutocompleteOption[]> {
  if (!Array.isArray(options)) throw new TypeError('autocomplete results are a list of options');
  for (const option of options) {
    if (typeof option !== 'object' || option === null) throw new TypeError('an autocomplete result is an option object');
  }
  return { type: 'AUTOCOMPLETE_SEARCH_RESULTS', payload: [...options] };
}
