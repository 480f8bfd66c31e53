// Command kind `stopMedication`: stops one of the patient's active medications.
import type { CommandKind } from './types.ts';

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
};
