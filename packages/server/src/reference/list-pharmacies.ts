// GET /core/api/v1/admin/pharmacies/: the pharmacies, one page at a time (docs/api.md, "Admin API").
import type { Ctx } from '../context.ts';
import type { Page } from '../http/pagination.ts';
import { countPharmacies, listPharmacies as queryPharmacies } from '../storage/reference-repository.ts';
import { listEntries } from './admin-operation.ts';
import { pharmacyView } from './representation.ts';

export const listPharmacies = (ctx: Ctx, page: Page) => listEntries(ctx, page, queryPharmacies, countPharmacies, pharmacyView);
