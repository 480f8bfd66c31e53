// GET /core/api/v1/admin/educational-materials/: the educational materials, one page at a time (docs/api.md, "Admin API").
import type { Ctx } from '../context.ts';
import type { Page } from '../http/pagination.ts';
import { countMaterials, listMaterials as queryMaterials } from '../storage/reference-repository.ts';
import { listEntries } from './admin-operation.ts';
import { materialView } from './representation.ts';

export const listMaterials = (ctx: Ctx, page: Page) => listEntries(ctx, page, queryMaterials, countMaterials, materialView);
