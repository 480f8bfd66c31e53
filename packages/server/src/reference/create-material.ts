// POST /core/api/v1/admin/educational-materials/: add an educational material (docs/api.md, "Admin API").
import type { Ctx } from '../context.ts';
import { addMaterial, checkMaterial, type MaterialInput } from './catalogue.ts';
import { createEntry } from './admin-operation.ts';
import { materialView } from './representation.ts';

export const createMaterial = (ctx: Ctx, input: MaterialInput) =>
  createEntry(ctx, { entityType: 'educational_material', check: checkMaterial, add: addMaterial, idOf: (row) => row.id, toView: materialView }, input);
