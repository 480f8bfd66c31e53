// POST /core/api/v1/admin/staff/: add a staff member (docs/api.md, "Admin API").
import type { Ctx } from '../context.ts';
import { addStaff, type StaffInput } from './catalogue.ts';
import { createEntry } from './admin-operation.ts';
import { staffView } from './representation.ts';

export const createStaff = (ctx: Ctx, input: StaffInput) =>
  createEntry(ctx, { entityType: 'staff', add: addStaff, idOf: (row) => row.key, toView: staffView }, input);
