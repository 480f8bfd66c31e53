// POST /core/api/v1/admin/<catalogue>/: add an entry to one of the catalogues (catalogues.ts), in
// one transaction with its audit row; a duplicate is a 409, also when two requests race past the
// check (docs/api.md, "Admin API").
import type { Ctx } from '../context.ts';
import { invalid, problem } from '../http/problem.ts';
import { writeTransaction } from '../storage/transaction.ts';
import { isUniqueViolation } from '../storage/errors.ts';
import { requireAdmin } from '../auth/admin.ts';
import type { Catalogue } from './catalogues.ts';

/** Adds `input` (validated against `catalogue.body`) under the parent `parentId` of a nested catalogue; answers the entry's view. */
export async function createEntry(ctx: Ctx, catalogue: Catalogue, input: unknown, parentId?: string): Promise<unknown> {
  requireAdmin(ctx, 'The reference data API');
  const errors = catalogue.check(input);
  if (errors.length > 0) throw invalid(errors);
  try {
    const outcome = await writeTransaction<unknown>(ctx, undefined, async ({ trx, audit }) => {
      const { id, view } = await catalogue.add(trx, input, parentId);
      await audit({ action: `reference.${catalogue.entityType}.created`, entityType: catalogue.entityType, entityId: id, before: null, after: view });
      return { status: 201, body: view };
    });
    return outcome.body;
  } catch (err) {
    if (isUniqueViolation(err)) throw problem('reference_exists');
    throw err;
  }
}
