// POST /core/api/v1/admin/questionnaires/: add a questionnaire with its questions (docs/api.md, "Admin API").
import type { Ctx } from '../lib/context.ts';
import { invalid } from '../http/problem.ts';
import { addQuestionnaire, checkQuestionnaire, type QuestionnaireInput } from './catalogue.ts';
import { createEntry, requireAdmin } from './admin-operation.ts';
import { questionnaireView } from './representation.ts';

export const createQuestionnaire = (ctx: Ctx, input: QuestionnaireInput) => {
  requireAdmin(ctx);
  const errors = checkQuestionnaire(input);
  if (errors.length > 0) throw invalid(errors);
  return createEntry(ctx, 'questionnaire', async (trx) => {
    const { row, questions } = await addQuestionnaire(trx, input);
    return { id: row.id, body: questionnaireView(row, questions) };
  });
};
