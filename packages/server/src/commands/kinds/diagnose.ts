// Command kind `diagnose`: a new diagnosis coded with ICD-10.
import type { CommandKind } from './types.ts';
import { CodeSystems } from '@charta/api/constants';
import { problem } from '../../http/problem.ts';
import { codingOf, textOf } from '../../chart/writer.ts';

export const diagnoseKind: CommandKind = {
  key: 'diagnose',
  label: 'Diagnose',
  description: 'Records a new diagnosis for the patient, coded with ICD-10.',
  fields: [
    {
      name: 'diagnose',
      type: 'AutocompleteField',
      required: true,
      codingSystems: [CodeSystems.ICD10, CodeSystems.UNSTRUCTURED],
      source: { kind: 'terminology', systems: [CodeSystems.ICD10] },
      description: 'The diagnosed condition, picked from ICD-10 codes.',
    },
    {
      name: 'background',
      type: 'MultiLineTextField',
      required: false,
      maxLength: 10000,
      description: 'Background information about the diagnosis.',
    },
    {
      name: 'approximate_date_of_onset',
      type: 'ApproximateDateField',
      required: false,
      description: 'When the condition began, as a year, year-month or full date.',
    },
    {
      name: 'today_assessment',
      type: 'MultiLineTextField',
      required: false,
      maxLength: 2048,
      description: "The clinician's assessment of the condition at this visit.",
    },
  ],
  // The diagnosis becomes an active condition, unless the patient has it active already.
  onCommit: async (chart, { data }) => {
    const coding = codingOf(data['diagnose']);
    const same = (await chart.rows('condition', ['active'])).find((c) => c.system === coding.system && c.code === coding.code);
    if (same !== undefined) {
      throw problem('condition_already_active', {
        detail: `The patient already has the active condition ${same.display} (${same.code}); assess it instead`,
        errors: [{ field: 'values.diagnose', message: 'already an active condition of this patient' }],
      });
    }
    await chart.create('condition', { ...coding, onset: textOf(data['approximate_date_of_onset']), status: 'active' });
  },
};
