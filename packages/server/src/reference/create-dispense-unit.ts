// POST /core/api/v1/admin/dispense-units/: add a dispense unit (docs/api.md, "Admin API").
import type { Ctx } from '../context.ts';
import { addDispenseUnit, type DispenseUnitInput } from './catalogue.ts';
import { createEntry } from './admin-operation.ts';
import { dispenseUnitView } from './representation.ts';

export const createDispenseUnit = (ctx: Ctx, input: DispenseUnitInput) =>
  createEntry(ctx, { entityType: 'dispense_unit', add: addDispenseUnit, idOf: (row) => row.code, toView: dispenseUnitView }, input);
