// Command kind `plan`: the care plan, as free text.
import type { CommandKind } from './types.ts';

export const planKind: CommandKind = {
  key: 'plan',
  label: 'Plan',
  description: 'Records the care plan for the patient.',
  fields: [
    {
      name: 'narrative',
      type: 'MultiLineTextField',
      required: true,
      maxLength: 10000,
      description: 'The plan, in narrative form.',
    },
  ],
};
