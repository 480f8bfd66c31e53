// Command kind `labOrder`: an order for laboratory tests sent to a lab partner.
import type { CommandKind } from './types.ts';
import { diagnosesField, providerField } from './shared-fields.ts';
import { CodeSystems } from '@charta/api/constants';
import { LAB_ORDER_CODE_SYSTEM } from '../../reference/systems.ts';

export const labOrderKind: CommandKind = {
  key: 'labOrder',
  label: 'Lab order',
  description: 'Orders laboratory tests from a lab partner.',
  fields: [
    {
      name: 'lab_partner',
      type: 'AutocompleteField',
      required: true,
      source: { kind: 'labPartner' },
      description: 'The laboratory that will perform the tests.',
    },
    {
      name: 'tests',
      type: 'AutocompleteField',
      required: true,
      multiple: true,
      maxItems: 20,
      codingSystems: [CodeSystems.LOINC, LAB_ORDER_CODE_SYSTEM],
      source: { kind: 'labTest', partnerField: 'lab_partner' },
      description: "The tests ordered, picked from the lab partner's catalogue.",
    },
    providerField('ordering_provider', true, 'The staff member ordering the tests.'),
    diagnosesField('diagnosis', 12, 'The ICD-10 diagnoses that justify the order.'),
    {
      name: 'fasting_required',
      type: 'CheckboxField',
      required: false,
      description: 'Whether the patient must fast before the specimen is collected.',
    },
    {
      name: 'comment',
      type: 'MultiLineTextField',
      required: false,
      maxLength: 10000,
      description: 'A comment for the laboratory.',
    },
  ],
};
