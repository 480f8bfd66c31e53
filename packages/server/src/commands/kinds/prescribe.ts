// Command kind `prescribe`: a medication prescription.
import type { CommandKind } from './types.ts';
import { diagnosesField, medicationField, providerField, sigField } from './shared-fields.ts';
import { codingOf, textOf } from '../../chart/writer.ts';

export const prescribeKind: CommandKind = {
  key: 'prescribe',
  label: 'Prescribe',
  description: 'Prescribes a medication to the patient.',
  fields: [
    medicationField('prescribe', 'The medication prescribed, picked from the drug database.'),
    diagnosesField('indications', 2, 'Up to two ICD-10 diagnoses the medication is prescribed for.'),
    sigField(true, 'Directions for use, as printed on the label.'),
    {
      name: 'days_supply',
      type: 'IntegerField',
      required: false,
      min: 1,
      max: 365,
      description: 'How many days the dispensed quantity should last.',
    },
    {
      name: 'quantity_to_dispense',
      type: 'DecimalField',
      required: true,
      min: 0,
      exclusiveMin: true,
      max: 99999,
      description: 'How much to dispense, in units of the dispense type.',
    },
    {
      name: 'type_to_dispense',
      type: 'AutocompleteField',
      required: true,
      source: { kind: 'dispenseUnit' },
      description: 'The dispense unit (package type and NCPDP quantity qualifier).',
    },
    {
      name: 'refills',
      type: 'IntegerField',
      required: true,
      min: 0,
      max: 99,
      description: 'How many refills are allowed.',
    },
    {
      name: 'substitutions',
      type: 'ChoiceField',
      required: true,
      choices: [
        { value: 'allowed', text: 'Allowed' },
        { value: 'not_allowed', text: 'Not allowed' },
      ],
      description: 'Whether the pharmacy may substitute a generic equivalent.',
    },
    {
      name: 'pharmacy',
      type: 'AutocompleteField',
      required: false,
      source: { kind: 'pharmacy' },
      description: 'The pharmacy the prescription is sent to.',
    },
    providerField('prescriber', true, 'The staff member prescribing the medication.'),
    providerField('supervising_provider', false, 'The supervising provider, when the prescriber needs one.'),
    {
      name: 'note_to_pharmacist',
      type: 'TextField',
      required: false,
      maxLength: 210,
      description: 'A short note for the pharmacist.',
    },
  ],
  // The medication prescribed becomes one of the patient's active medications.
  onCommit: async (chart, { data }) => {
    await chart.create('medication', { ...codingOf(data['prescribe']), sig: textOf(data['sig']), status: 'active', stopped_by_command: null });
  },
};
