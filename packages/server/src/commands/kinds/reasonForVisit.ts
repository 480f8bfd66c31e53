// Command kind `reasonForVisit`: why the patient came in.
import type { CommandKind } from './types.ts';
import { CodeSystems } from '@charta/api/constants';
import { INTERNAL_SYSTEM } from '@charta/api/constants';

export const reasonForVisitKind: CommandKind = {
  key: 'reasonForVisit',
  label: 'Reason for visit',
  description: "Records the reason for the patient's visit.",
  fields: [
    {
      name: 'coding',
      type: 'AutocompleteField',
      required: false,
      codingSystems: [CodeSystems.SNOMED, CodeSystems.ICD10, INTERNAL_SYSTEM],
      source: { kind: 'reasonForVisit' },
      description: "The coded reason for visit, picked from the instance's configured reasons.",
    },
    {
      name: 'comment',
      type: 'MultiLineTextField',
      required: false,
      maxLength: 10000,
      description: 'The reason for visit in words, or details about it.',
    },
  ],
};
