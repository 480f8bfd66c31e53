// POST /core/api/v1/admin/dispense-units/: add a dispense unit (docs/api.md, "Admin API").
import type { Ctx } from '../lib/context.ts';
import { addDispenseUnit, type DispenseUnitInput } from './catalogue.ts';
import { createEntry } from './admin-operation.ts';
import { dispenseUnitView } from './representation.ts';

export const createDispenseUnit = (ctx: Ctx, input: DispenseUnitInput) =>
  createEntry(ctx, 'dispense_unit', async (trx) => {
    const row = await addDispenseUnit(trx, input);
    return { id: row.code, body: dispenseUnitView(row) };
  });
