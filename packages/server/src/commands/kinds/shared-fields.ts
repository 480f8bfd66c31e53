// Field definitions shared by more than one command kind, so that a field that means the same in
// two kinds is defined once (docs/command-kinds.md lists each kind's fields).
import { CodeSystems } from '@charta/api/constants';
import type { FieldDef } from './types.ts';
import { achievementStatusChoices, goalPriorityChoices } from './choices.ts';

/** How a goal stands: its achievement status, priority and progress notes (goal and updateGoal). */
export const goalStandingFields: readonly FieldDef[] = [
  {
    name: 'achievement_status',
    type: 'ChoiceField',
    required: false,
    choices: achievementStatusChoices,
    description: 'How far the patient is in achieving the goal.',
  },
  {
    name: 'priority',
    type: 'ChoiceField',
    required: false,
    choices: goalPriorityChoices,
    description: 'How important the goal is.',
  },
  {
    name: 'progress',
    type: 'MultiLineTextField',
    required: false,
    maxLength: 10000,
    description: 'Notes on the progress made towards the goal.',
  },
];

/** A medication picked from the drug database or given as free text (medicationStatement, prescribe). */
export const medicationField = (name: string, description: string): FieldDef => ({
  name,
  type: 'AutocompleteField',
  required: true,
  codingSystems: [CodeSystems.RXNORM, CodeSystems.FDB, CodeSystems.UNSTRUCTURED],
  source: { kind: 'terminology', systems: [CodeSystems.RXNORM] },
  description,
});

/** How a medication is taken (medicationStatement, prescribe). */
export const sigField = (required: boolean, description: string): FieldDef => ({
  name: 'sig',
  type: 'MultiLineTextField',
  required,
  maxLength: 1000,
  description,
});

/** ICD-10 diagnoses that justify an order (labOrder.diagnosis, prescribe.indications): the patient's active conditions offered first. */
export const diagnosesField = (name: string, maxItems: number, description: string): FieldDef => ({
  name,
  type: 'AutocompleteField',
  required: false,
  multiple: true,
  maxItems,
  codingSystems: [CodeSystems.ICD10, CodeSystems.UNSTRUCTURED],
  source: { kind: 'terminology', systems: [CodeSystems.ICD10], conditionsFirst: true },
  description,
});

/** A provider among the instance's staff (labOrder.ordering_provider, prescribe.prescriber and supervising_provider). */
export const providerField = (name: string, required: boolean, description: string): FieldDef => ({
  name,
  type: 'AutocompleteField',
  required,
  source: { kind: 'staff', role: 'provider' },
  description,
});
