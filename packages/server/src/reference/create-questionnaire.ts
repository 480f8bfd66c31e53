// POST /core/api/v1/admin/questionnaires/: add a questionnaire with its questions (docs/api.md, "Admin API").
import type { Ctx } from '../context.ts';
import { addQuestionnaire, checkQuestionnaire, type QuestionnaireInput } from './catalogue.ts';
import { createEntry } from './admin-operation.ts';
import { questionnaireView } from './representation.ts';

export const createQuestionnaire = (ctx: Ctx, input: QuestionnaireInput) =>
  createEntry(
    ctx,
    {
      entityType: 'questionnaire',
      check: checkQuestionnaire,
      add: addQuestionnaire,
      idOf: ({ row }) => row.id,
      toView: ({ row, questions }) => questionnaireView(row, questions),
    },
    input,
  );
