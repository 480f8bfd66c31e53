// Command kind `assess`: assessment of one of the patient's active conditions.
import type { CommandKind } from './types.ts';

export const assessKind: CommandKind = {
  key: 'assess',
  label: 'Assess',
  description: "Records an assessment of one of the patient's active conditions.",
  fields: [
    {
      name: 'condition',
      type: 'AutocompleteField',
      required: true,
      source: { kind: 'chart', entity: 'condition' },
      description: "The patient's active condition being assessed.",
    },
    {
      name: 'background',
      type: 'MultiLineTextField',
      required: false,
      maxLength: 10000,
      description: 'Background information about the condition.',
    },
    {
      name: 'status',
      type: 'ChoiceField',
      required: false,
      choices: [
        { value: 'improved', text: 'Improved' },
        { value: 'stable', text: 'Unchanged' },
        { value: 'deteriorated', text: 'Deteriorated' },
      ],
      description: 'How the condition has evolved since it was last assessed.',
    },
    {
      name: 'narrative',
      type: 'MultiLineTextField',
      required: false,
      maxLength: 2048,
      description: "The clinician's narrative assessment of the condition.",
    },
  ],
};
