// Command kind `perform`: a procedure performed during the visit.
import type { CommandKind } from './types.ts';
import { CodeSystems } from '@charta/api/constants';

export const performKind: CommandKind = {
  key: 'perform',
  label: 'Perform',
  description: 'Records a procedure performed on the patient.',
  fields: [
    {
      name: 'perform',
      type: 'AutocompleteField',
      required: true,
      codingSystems: [CodeSystems.CPT, CodeSystems.HCPCS, CodeSystems.UNSTRUCTURED],
      source: { kind: 'terminology', systems: [CodeSystems.CPT, CodeSystems.HCPCS] },
      description: 'The procedure performed, picked from CPT or HCPCS codes.',
    },
    {
      name: 'notes',
      type: 'MultiLineTextField',
      required: false,
      maxLength: 10000,
      description: 'Notes about the procedure.',
    },
  ],
};
