// Command kind `medicationStatement`: a medication the patient reports taking.
import type { CommandKind } from './types.ts';
import { CodeSystems } from '../../terminology/code-systems.ts';
import { codingOf, textOf } from '../../chart/writer.ts';

export const medicationStatementKind: CommandKind = {
  key: 'medicationStatement',
  label: 'Medication statement',
  description: 'Records a medication the patient is taking.',
  fields: [
    {
      name: 'medication',
      type: 'AutocompleteField',
      required: true,
      codingSystems: [CodeSystems.RXNORM, CodeSystems.FDB, CodeSystems.UNSTRUCTURED],
      source: { kind: 'terminology', systems: [CodeSystems.RXNORM] },
      description: 'The medication, picked from the drug database or given as free text.',
    },
    {
      name: 'sig',
      type: 'MultiLineTextField',
      required: false,
      maxLength: 1000,
      description: 'How the patient takes the medication.',
    },
  ],
  // The medication becomes one of the patient's active medications.
  onCommit: async (chart, { data }) => {
    await chart.create('medication', { ...codingOf(data['medication']), sig: textOf(data['sig']), status: 'active', stopped_by_command: null });
  },
};
