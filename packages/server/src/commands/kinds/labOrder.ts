// Command kind `labOrder`: an order for laboratory tests sent to a lab partner.
import type { CommandKind } from './types.ts';
import { CodeSystems } from '../../terminology/code-systems.ts';
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
    {
      name: 'ordering_provider',
      type: 'AutocompleteField',
      required: true,
      source: { kind: 'staff', role: 'provider' },
      description: 'The staff member ordering the tests.',
    },
    {
      name: 'diagnosis',
      type: 'AutocompleteField',
      required: false,
      multiple: true,
      maxItems: 12,
      codingSystems: [CodeSystems.ICD10, CodeSystems.UNSTRUCTURED],
      source: { kind: 'terminology', systems: [CodeSystems.ICD10] },
      description: 'The ICD-10 diagnoses that justify the order.',
    },
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
