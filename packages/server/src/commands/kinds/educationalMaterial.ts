// Command kind `educationalMaterial`: educational material given to the patient.
import type { CommandKind } from './types.ts';

export const educationalMaterialKind: CommandKind = {
  key: 'educationalMaterial',
  label: 'Educational material',
  description: 'Records educational material given to the patient.',
  fields: [
    {
      name: 'title',
      type: 'AutocompleteField',
      required: true,
      source: { kind: 'educationalMaterial' },
      description: 'The article given to the patient.',
    },
    {
      name: 'language',
      type: 'AutocompleteField',
      required: true,
      source: { kind: 'materialLanguage', materialField: 'title' },
      description: 'The language of the article, among those it is available in.',
    },
  ],
};
