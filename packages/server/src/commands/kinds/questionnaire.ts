// Command kind `questionnaire`: a questionnaire filled in for the patient. Once `questionnaire`
// is set, each question of the chosen questionnaire is a field `question-<id>` typed by its
// response kind, listed by /fields/ after the kind's own fields and checked on create and PATCH
// like any other field; answers to another questionnaire's questions are dropped.
import type { CommandKind, FieldDef } from './types.ts';

export const QUESTION_PREFIX = 'question-';

interface QuestionDefinition {
  pk: string;
  code: string;
  label: string;
  type: string;
  options: Array<{ pk: string; code: string; text: string; score?: number }>;
}

const MAX_ANSWER_TEXT = 10_000;
const INT_BOUND = 1_000_000_000;

function questionField(q: QuestionDefinition): FieldDef | undefined {
  const base = { name: `${QUESTION_PREFIX}${q.pk}`, required: false, description: q.label, label: q.label };
  // A scored answer carries its points, for a client to show the total (docs/api.md, "Fields").
  const choices = q.options.map((o) => ({ value: o.pk, text: o.text, ...(typeof o.score === 'number' ? { score: o.score } : {}) }));
  switch (q.type) {
    case 'TXT':
      return { ...base, type: 'MultiLineTextField', maxLength: MAX_ANSWER_TEXT };
    case 'INT':
      return { ...base, type: 'IntegerField', min: -INT_BOUND, max: INT_BOUND };
    case 'SING':
      return { ...base, type: 'ChoiceField', choices };
    case 'MULT':
      return { ...base, type: 'MultipleChoiceField', choices };
    default:
      return undefined;
  }
}

/** The question fields of a stored questionnaire option (none when there is none). */
export function questionFields(questionnaire: unknown): FieldDef[] {
  const questions = (questionnaire as { extra?: { questions?: unknown } } | null | undefined)?.extra?.questions;
  if (!Array.isArray(questions)) return [];
  return (questions as QuestionDefinition[]).map(questionField).filter((f): f is FieldDef => f !== undefined);
}

export const questionnaireKind: CommandKind = {
  key: 'questionnaire',
  label: 'Questionnaire',
  description: 'Records the answers to a questionnaire.',
  fields: [
    {
      name: 'questionnaire',
      type: 'AutocompleteField',
      required: true,
      source: { kind: 'questionnaire' },
      description: 'The questionnaire being filled in.',
    },
    {
      name: 'result',
      type: 'MultiLineTextField',
      required: false,
      maxLength: 10000,
      description: 'The overall result or interpretation of the questionnaire.',
    },
  ],
  dataFields: {
    owns: (name) => name.startsWith(QUESTION_PREFIX),
    of: (data) => questionFields(data['questionnaire']),
  },
};
