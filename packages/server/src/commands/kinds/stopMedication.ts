// Command kind `stopMedication`: stops one of the patient's active medications.
import type { CommandKind } from './types.ts';
import type { OptionDoc } from '../../autocomplete/types.ts';

export const stopMedicationKind: CommandKind = {
  key: 'stopMedication',
  label: 'Stop medication',
  description: "Stops one of the patient's active medications.",
  fields: [
    {
      name: 'medication',
      type: 'AutocompleteField',
      required: true,
      source: { kind: 'chart', entity: 'medication' },
      description: "The patient's active medication to stop.",
    },
    {
      name: 'rationale',
      type: 'MultiLineTextField',
      required: false,
      maxLength: 10000,
      description: 'Why the medication is stopped.',
    },
  ],
  // The medication picked (still active) is stopped by this command.
  onCommit: async (chart, { uuid, data }) => {
    const id = String((data['medication'] as OptionDoc).value);
    await chart.change('medication', 'medication', id, { status: 'stopped', stopped_by_command: uuid });
  },
};
