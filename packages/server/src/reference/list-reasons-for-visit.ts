// GET /core/api/v1/admin/reason-for-visit-codings/: the reason-for-visit codings, one page at a time (docs/api.md, "Admin API").
import type { Ctx } from '../context.ts';
import type { Page } from '../http/pagination.ts';
import { countReasonsForVisit, listReasonsForVisit as queryReasonsForVisit } from '../storage/reference-repository.ts';
import { listEntries } from './admin-operation.ts';
import { reasonForVisitView } from './representation.ts';

export const listReasonsForVisit = (ctx: Ctx, page: Page) => listEntries(ctx, page, queryReasonsForVisit, countReasonsForVisit, reasonForVisitView);
