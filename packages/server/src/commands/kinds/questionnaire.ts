// Command kind `questionnaire`: a questionnaire filled in for the patient.
import type { CommandKind } from './types.ts';

export const questionnaireKind: CommandKind = {
  key: 'questionnaire',
  label: 'Questionnaire',
  description: 'Records the answers to a questionnaire.',
  fields: [
    {
      name: 'questionnaire',
      type: 'AutocompleteField',
      required: true,
      source: { kind: 'questionnaire' },
      description: 'The questionnaire being filled in.',
    },
    {
      name: 'result',
      type: 'MultiLineTextField',
      required: false,
      maxLength: 10000,
      description: 'The overall result or interpretation of the questionnaire.',
    },
  ],
};
