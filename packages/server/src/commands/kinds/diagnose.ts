// Command kind `diagnose`: a new diagnosis coded with ICD-10.
import type { CommandKind } from './types.ts';
import { CodeSystems } from '../../terminology/code-systems.ts';

export const diagnoseKind: CommandKind = {
  key: 'diagnose',
  label: 'Diagnose',
  description: 'Records a new diagnosis for the patient, coded with ICD-10.',
  fields: [
    {
      name: 'diagnose',
      type: 'AutocompleteField',
      required: true,
      codingSystems: [CodeSystems.ICD10, CodeSystems.UNSTRUCTURED],
      source: { kind: 'terminology', systems: [CodeSystems.ICD10] },
      description: 'The diagnosed condition, picked from ICD-10 codes.',
    },
    {
      name: 'background',
      type: 'MultiLineTextField',
      required: false,
      maxLength: 10000,
      description: 'Background information about the diagnosis.',
    },
    {
      name: 'approximate_date_of_onset',
      type: 'ApproximateDateField',
      required: false,
      description: 'When the condition began, as a year, year-month or full date.',
    },
    {
      name: 'today_assessment',
      type: 'MultiLineTextField',
      required: false,
      maxLength: 2048,
      description: "The clinician's assessment of the condition at this visit.",
    },
  ],
};
