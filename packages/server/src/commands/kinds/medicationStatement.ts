// Command kind `medicationStatement`: a medication the patient reports taking.
import type { CommandKind } from './types.ts';
import { medicationField, sigField } from './shared-fields.ts';
import { codingOf, textOf } from '../../chart/writer.ts';

export const medicationStatementKind: CommandKind = {
  key: 'medicationStatement',
  label: 'Medication statement',
  description: 'Records a medication the patient is taking.',
  fields: [
    medicationField('medication', 'The medication, picked from the drug database or given as free text.'),
    sigField(false, 'How the patient takes the medication.'),
  ],
  // The medication becomes one of the patient's active medications.
  onCommit: async (chart, { data }) => {
    await chart.create('medication', { ...codingOf(data['medication']), sig: textOf(data['sig']), status: 'active', stopped_by_command: null });
  },
};
