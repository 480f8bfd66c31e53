// What every operation of the reference data admin API shares (docs/api.md, "Admin API"):
// who may call it, a create in one transaction with its audit row (a duplicate is a 409, also when
// two requests race past the check), and a list page with its total count.
import type { Kysely } from 'kysely';
import type { Ctx } from '../lib/context.ts';
import type { Database } from '../storage/schema.ts';
import { problem } from '../http/problem.ts';
import type { Page } from '../http/pagination.ts';
import { writeTransaction } from '../storage/transaction.ts';
import { isUniqueViolation } from '../storage/db.ts';

export const ADMIN_SCOPE = 'admin';

/**
 * Reference data is the instance's configuration: it is changed and listed with an API key
 * (scope `admin`), never with a staff user's bearer token (a clinical client must not be able
 * to add a prescriber or a pharmacy).
 */
export function requireAdmin(ctx: Ctx): void {
  if (ctx.principal.kind !== 'api_key' || !ctx.principal.scopes.includes(ADMIN_SCOPE)) {
    throw problem('forbidden', { detail: `The reference data API takes an API key with the scope ${ADMIN_SCOPE}, not a bearer token` });
  }
}

/** Adds one entry of `entityType` with `work`, audited as `reference.<entityType>.created`; answers its view. */
export async function createEntry<T>(ctx: Ctx, entityType: string, work: (trx: Kysely<Database>) => Promise<{ id: string; body: T }>) {
  requireAdmin(ctx);
  try {
    const outcome = await writeTransaction<T>(ctx, undefined, async ({ trx, audit }) => {
      const { id, body } = await work(trx);
      await audit({ action: `reference.${entityType}.created`, entityType, entityId: id, before: null, after: body });
      return { status: 201, body };
    });
    return outcome.body;
  } catch (err) {
    if (isUniqueViolation(err)) throw problem('reference_exists');
    throw err;
  }
}

/** One page of entries (`rows`) with the count of all (`total`), each shown by `toView`. */
export async function listEntries<R, V>(ctx: Ctx, page: Page, rows: (w: Page) => Promise<R[]>, total: () => Promise<number>, toView: (row: R) => V) {
  requireAdmin(ctx);
  const [results, count] = await Promise.all([rows(page), total()]);
  return { count, results: results.map(toView) };
}

export const reader = (ctx: Ctx) => ctx.storage.reader;
