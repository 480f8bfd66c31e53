// A questionnaire command's questions as fields: once `questionnaire` is set, each question of
// the chosen questionnaire is a field `question-<id>` typed by its response kind, listed by
// /fields/ after the kind's own fields and checked on create and PATCH like any other field.
import type { CommandKind, FieldDef } from './kinds/types.ts';

export const QUESTION_PREFIX = 'question-';

interface QuestionDefinition {
  pk: string;
  code: string;
  label: string;
  type: string;
  options: Array<{ pk: string; code: string; text: string }>;
}

const MAX_ANSWER_TEXT = 10_000;
const INT_BOUND = 1_000_000_000;

function questionField(q: QuestionDefinition): FieldDef | undefined {
  const base = { name: `${QUESTION_PREFIX}${q.pk}`, required: false, description: q.label };
  const choices = q.options.map((o) => ({ value: o.pk, text: o.text }));
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

/** The kind with the fields this command's data adds (a questionnaire's questions). */
export function fieldsFor(kind: CommandKind, data: Record<string, unknown>): CommandKind {
  if (kind.key !== 'questionnaire') return kind;
  const extra = questionFields(data['questionnaire']);
  return extra.length === 0 ? kind : { ...kind, fields: [...kind.fields, ...extra] };
}

export const isQuestionField = (kind: CommandKind, name: string) => kind.key === 'questionnaire' && name.startsWith(QUESTION_PREFIX);
