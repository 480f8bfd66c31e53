// Registry of the 15 command kinds, keyed by schema_key, in a fixed order.
import { assessKind } from './assess.ts';
import { diagnoseKind } from './diagnose.ts';
import { educationalMaterialKind } from './educationalMaterial.ts';
import { goalKind } from './goal.ts';
import { hpiKind } from './hpi.ts';
import { instructKind } from './instruct.ts';
import { labOrderKind } from './labOrder.ts';
import { medicationStatementKind } from './medicationStatement.ts';
import { performKind } from './perform.ts';
import { planKind } from './plan.ts';
import { prescribeKind } from './prescribe.ts';
import { questionnaireKind } from './questionnaire.ts';
import { reasonForVisitKind } from './reasonForVisit.ts';
import { stopMedicationKind } from './stopMedication.ts';
import type { CommandKind } from './types.ts';
import { updateGoalKind } from './updateGoal.ts';

const kinds: readonly CommandKind[] = [
  assessKind,
  diagnoseKind,
  goalKind,
  hpiKind,
  instructKind,
  labOrderKind,
  medicationStatementKind,
  performKind,
  planKind,
  prescribeKind,
  questionnaireKind,
  reasonForVisitKind,
  stopMedicationKind,
  updateGoalKind,
  educationalMaterialKind,
];

/** Every command kind by schema_key, in the fixed order above. */
export const commandKinds: ReadonlyMap<string, CommandKind> = new Map(kinds.map((kind) => [kind.key, kind]));

/** The schema_keys of every command kind, in the same order. */
export const kindKeys: readonly string[] = kinds.map((kind) => kind.key);

/** The kind with this schema_key, or undefined when there is none. */
export function getKind(key: string): CommandKind | undefined {
  return commandKinds.get(key);
}

/** The kind with the fields this command's data adds (its `dataFields`, e.g. a questionnaire's questions). */
export function fieldsFor(kind: CommandKind, data: Record<string, unknown>): CommandKind {
  const extra = kind.dataFields?.of(data) ?? [];
  return extra.length === 0 ? kind : { ...kind, fields: [...kind.fields, ...extra] };
}
