// GET /core/api/v1/admin/lab-partners/: the lab partners, one page at a time (docs/api.md, "Admin API").
import type { Ctx } from '../context.ts';
import type { Page } from '../http/pagination.ts';
import { countLabPartners, listLabPartners as queryLabPartners } from '../storage/reference-repository.ts';
import { listEntries } from './admin-operation.ts';
import { labPartnerView } from './representation.ts';

export const listLabPartners = (ctx: Ctx, page: Page) => listEntries(ctx, page, queryLabPartners, countLabPartners, labPartnerView);
