// Command kind `instruct`: an instruction given to the patient.
import type { CommandKind } from './types.ts';
import { CodeSystems } from '@charta/api/constants';

export const instructKind: CommandKind = {
  key: 'instruct',
  label: 'Instruct',
  description: 'Records an instruction given to the patient.',
  fields: [
    {
      name: 'instruct',
      type: 'AutocompleteField',
      required: true,
      codingSystems: [CodeSystems.SNOMED, CodeSystems.UNSTRUCTURED],
      source: { kind: 'terminology', systems: [CodeSystems.SNOMED, CodeSystems.UNSTRUCTURED] },
      description: 'The instruction, picked from SNOMED CT concepts or given as free text.',
    },
    {
      name: 'comment',
      type: 'MultiLineTextField',
      required: false,
      maxLength: 10000,
      description: 'Additional details about the instruction.',
    },
  ],
};
