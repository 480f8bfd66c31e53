// POST /core/api/v1/admin/lab-partners/: add a lab partner (docs/api.md, "Admin API").
import type { Ctx } from '../context.ts';
import { addLabPartner } from './catalogue.ts';
import { createEntry } from './admin-operation.ts';
import { labPartnerView } from './representation.ts';

export const createLabPartner = (ctx: Ctx, input: { name: string }) =>
  createEntry(ctx, { entityType: 'lab_partner', add: addLabPartner, idOf: (row) => row.id, toView: labPartnerView }, input);
