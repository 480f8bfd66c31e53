// What a banner alert must be (docs/api.md, "Banner alerts"; the ADD_BANNER_ALERT effect,
// docs/plugins.md, "Effects"), shared by the operations that add and remove one and by the
// runtime's reading of an effect's payload: which alert (patient, plugin, key), its narrative,
// placement and intent, the checks of each, its id in the audit trail, and its patient's existence.
import type { Kysely } from 'kysely';
import type { Database } from '../storage/schema.ts';
import { problem, type FieldProblem } from '../http/problem.ts';
import { getPatient } from '../storage/clinical-repository.ts';

import { BANNER_INTENTS as INTENTS, BANNER_NARRATIVE_MAX, BANNER_PLACEMENTS as PLACEMENTS } from '@charta/api/constants';

/** Where a banner may show, how urgent it is, its longest narrative: the wire's (@charta/api). */
export const BANNER_PLACEMENTS: readonly string[] = PLACEMENTS;
export const BANNER_INTENTS: readonly string[] = INTENTS;
export { BANNER_NARRATIVE_MAX };
/** The longest patient key, plugin name or key an alert is named by. */
export const BANNER_NAME_MAX = 200;

/** Which alert: one per patient, plugin and key. */
export interface BannerAlertName {
  patient: string;
  /** The plugin that shows it (its owner). */
  plugin: string;
  /** The plugin's own key for it: adding one with the same key again replaces it. */
  key: string;
}

/** What an alert shows. */
export interface BannerAlertContent {
  narrative: string;
  placement: readonly string[];
  intent: string;
}

const isText = (value: unknown, max: number): value is string => typeof value === 'string' && value.length > 0 && value.length <= max;

/** The problems of an alert's name (none when it is well formed). */
export function nameProblems(name: BannerAlertName): FieldProblem[] {
  const errors: FieldProblem[] = [];
  for (const field of ['patient', 'plugin', 'key'] as const) {
    if (!isText(name[field], BANNER_NAME_MAX)) errors.push({ field, message: `must be a non-empty string of at most ${BANNER_NAME_MAX} characters` });
  }
  return errors;
}

/** The problems of what an alert shows (none when it may be shown). */
export function contentProblems(content: BannerAlertContent): FieldProblem[] {
  const errors: FieldProblem[] = [];
  if (!isText(content.narrative, BANNER_NARRATIVE_MAX)) errors.push({ field: 'narrative', message: `must have 1 to ${BANNER_NARRATIVE_MAX} characters` });
  const placement: unknown = content.placement;
  if (!Array.isArray(placement) || placement.length === 0 || !placement.every((p) => typeof p === 'string' && BANNER_PLACEMENTS.includes(p))) {
    errors.push({ field: 'placement', message: `must list one or more of ${BANNER_PLACEMENTS.join(', ')}` });
  }
  if (typeof content.intent !== 'string' || !BANNER_INTENTS.includes(content.intent)) {
    errors.push({ field: 'intent', message: `must be one of ${BANNER_INTENTS.join(', ')}` });
  }
  return errors;
}

/** The alert's id in the audit trail (`entity_id` of `banner_alert.added` and `.removed`). */
export const bannerAlertId = (name: BannerAlertName): string => `${name.patient}/${name.plugin}/${name.key}`;

/** 400 `patient_does_not_exist` unless the alert's patient exists (read in the write's transaction). */
export async function assertPatientExists(trx: Kysely<Database>, patient: string): Promise<void> {
  if ((await getPatient(trx, patient)) === undefined) throw problem('patient_does_not_exist', { detail: `Patient ${patient} does not exist` });
}
