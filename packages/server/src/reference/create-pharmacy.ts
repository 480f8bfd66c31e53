// POST /core/api/v1/admin/pharmacies/: add a pharmacy (docs/api.md, "Admin API").
import type { Ctx } from '../context.ts';
import { addPharmacy, type PharmacyInput } from './catalogue.ts';
import { createEntry } from './admin-operation.ts';
import { pharmacyView } from './representation.ts';

export const createPharmacy = (ctx: Ctx, input: PharmacyInput) =>
  createEntry(ctx, { entityType: 'pharmacy', add: addPharmacy, idOf: (row) => row.ncpdp_id, toView: pharmacyView }, input);
