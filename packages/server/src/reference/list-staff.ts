// GET /core/api/v1/admin/staff/: the staff members, one page at a time (docs/api.md, "Admin API").
import type { Ctx } from '../context.ts';
import type { Page } from '../http/pagination.ts';
import { countStaff, listStaff as queryStaff } from '../storage/reference-repository.ts';
import { listEntries } from './admin-operation.ts';
import { staffView } from './representation.ts';

export const listStaff = (ctx: Ctx, page: Page) => listEntries(ctx, page, queryStaff, countStaff, staffView);
