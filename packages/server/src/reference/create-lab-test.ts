// POST /core/api/v1/admin/lab-partners/{id}/tests/: add a test to a lab partner's catalogue (docs/api.md, "Admin API").
import type { Ctx } from '../context.ts';
import { addLabTest, type LabTestInput } from './catalogue.ts';
import { createEntry } from './admin-operation.ts';
import { labTestView } from './representation.ts';

export const createLabTest = (ctx: Ctx, partnerId: string, input: LabTestInput) =>
  createEntry(
    ctx,
    { entityType: 'lab_test', add: (trx, test: LabTestInput) => addLabTest(trx, partnerId, test), idOf: (row) => row.id, toView: labTestView },
    input,
  );
