// Command kind `hpi`: history of present illness.
import type { CommandKind } from './types.ts';

export const hpiKind: CommandKind = {
  key: 'hpi',
  label: 'History of present illness',
  description: "Records the history of the patient's present illness.",
  fields: [
    {
      name: 'narrative',
      type: 'MultiLineTextField',
      required: true,
      maxLength: 10000,
      description: 'The history of present illness, in narrative form.',
    },
  ],
};
