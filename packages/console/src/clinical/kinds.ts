// The 15 command kinds a note can take (docs/command-kinds.md), offered by "Add a command". Only
// the key and a label: every kind's form is built from its /fields/ answer, never here.
export const KINDS: Array<{ key: string; label: string }> = [
  { key: 'assess', label: 'Assess' },
  { key: 'diagnose', label: 'Diagnose' },
  { key: 'educationalMaterial', label: 'Educational material' },
  { key: 'goal', label: 'Goal' },
  { key: 'hpi', label: 'History of present illness' },
  { key: 'instruct', label: 'Instruct' },
  { key: 'labOrder', label: 'Lab order' },
  { key: 'medicationStatement', label: 'Medication statement' },
  { key: 'perform', label: 'Perform' },
  { key: 'plan', label: 'Plan' },
  { key: 'prescribe', label: 'Prescribe' },
  { key: 'questionnaire', label: 'Questionnaire' },
  { key: 'reasonForVisit', label: 'Reason for visit' },
  { key: 'stopMedication', label: 'Stop medication' },
  { key: 'updateGoal', label: 'Update goal' },
];

export const kindLabel = (key: string) => KINDS.find((k) => k.key === key)?.label ?? key;
