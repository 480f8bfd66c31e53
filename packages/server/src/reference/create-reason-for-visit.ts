// POST /core/api/v1/admin/reason-for-visit-codings/: add a reason-for-visit coding (docs/api.md, "Admin API").
import type { Ctx } from '../context.ts';
import { addReasonForVisit, type ReasonForVisitInput } from './catalogue.ts';
import { createEntry } from './admin-operation.ts';
import { reasonForVisitView } from './representation.ts';

export const createReasonForVisit = (ctx: Ctx, input: ReasonForVisitInput) =>
  createEntry(ctx, { entityType: 'reason_for_visit_coding', add: addReasonForVisit, idOf: (row) => row.id, toView: reasonForVisitView }, input);
