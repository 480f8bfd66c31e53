// GET /core/api/v1/admin/dispense-units/: the dispense units, one page at a time (docs/api.md, "Admin API").
import type { Ctx } from '../context.ts';
import type { Page } from '../http/pagination.ts';
import { countDispenseUnits, listDispenseUnits as queryDispenseUnits } from '../storage/reference-repository.ts';
import { listEntries } from './admin-operation.ts';
import { dispenseUnitView } from './representation.ts';

export const listDispenseUnits = (ctx: Ctx, page: Page) => listEntries(ctx, page, queryDispenseUnits, countDispenseUnits, dispenseUnitView);
