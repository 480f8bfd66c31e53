// GET /core/api/v1/admin/questionnaires/: the questionnaires with their questions, one page at a
// time (docs/api.md, "Admin API").
import type { Ctx } from '../context.ts';
import type { Page } from '../http/pagination.ts';
import { countQuestionnaires, listQuestionnaires as queryQuestionnaires, questionsOf } from '../storage/reference-repository.ts';
import { requireAdmin } from './admin-operation.ts';
import { questionnaireView } from './representation.ts';

export async function listQuestionnaires(ctx: Ctx, page: Page) {
  requireAdmin(ctx);
  const db = ctx.storage.reader;
  const [rows, count] = await Promise.all([queryQuestionnaires(db, page), countQuestionnaires(db)]);
  const questions = await questionsOf(
    db,
    rows.map((r) => r.id),
  );
  return {
    count,
    results: rows.map((r) =>
      questionnaireView(
        r,
        questions.filter((q) => q.questionnaire_id === r.id),
      ),
    ),
  };
}
