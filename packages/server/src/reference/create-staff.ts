// POST /core/api/v1/admin/staff/: add a staff member (docs/api.md, "Admin API").
import type { Ctx } from '../lib/context.ts';
import { addStaff, type StaffInput } from './catalogue.ts';
import { createEntry } from './admin-operation.ts';
import { staffView } from './representation.ts';

export const createStaff = (ctx: Ctx, input: StaffInput) =>
  createEntry(ctx, 'staff', async (trx) => {
    const row = await addStaff(trx, input);
    return { id: row.key, body: staffView(row) };
  });
