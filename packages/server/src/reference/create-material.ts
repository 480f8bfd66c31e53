// POST /core/api/v1/admin/educational-materials/: add an educational material (docs/api.md, "Admin API").
import type { Ctx } from '../lib/context.ts';
import { invalid } from '../http/problem.ts';
import { addMaterial, checkMaterial, type MaterialInput } from './catalogue.ts';
import { createEntry, requireAdmin } from './admin-operation.ts';
import { materialView } from './representation.ts';

export const createMaterial = (ctx: Ctx, input: MaterialInput) => {
  requireAdmin(ctx);
  const errors = checkMaterial(input);
  if (errors.length > 0) throw invalid(errors);
  return createEntry(ctx, 'educational_material', async (trx) => {
    const row = await addMaterial(trx, input);
    return { id: row.id, body: materialView(row) };
  });
};
