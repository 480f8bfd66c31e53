// What every operation of the reference data admin API shares (docs/api.md, "Admin API"):
// who may call it, a create in one transaction with its audit row (a duplicate is a 409, also when
// two requests race past the check), and a list page with its total count.
import type { Kysely } from 'kysely';
import type { Ctx } from '../context.ts';
import type { Database } from '../storage/schema.ts';
import { invalid, problem, type FieldProblem } from '../http/problem.ts';
import type { Page } from '../http/pagination.ts';
import { writeTransaction } from '../storage/transaction.ts';
import { isUniqueViolation } from '../storage/errors.ts';

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

/** One catalogue of the reference data, as its create operation adds to it. */
export interface Catalogue<I, R, V> {
  /** The audit's entity type: the entry is audited as `reference.<entityType>.created`. */
  entityType: string;
  /** Checks of the input alone, before the transaction; any problem makes the request a 400. */
  check?: (input: I) => FieldProblem[];
  add: (trx: Kysely<Database>, input: I) => Promise<R>;
  idOf: (row: R) => string;
  toView: (row: R) => V;
}

/** Adds `input` to `catalogue` in one transaction with its audit row; answers the entry's view. */
export async function createEntry<I, R, V>(ctx: Ctx, catalogue: Catalogue<I, R, V>, input: I): Promise<V> {
  requireAdmin(ctx);
  const errors = catalogue.check?.(input) ?? [];
  if (errors.length > 0) throw invalid(errors);
  try {
    const outcome = await writeTransaction<V>(ctx, undefined, async ({ trx, audit }) => {
      const row = await catalogue.add(trx, input);
      const id = catalogue.idOf(row);
      const body = catalogue.toView(row);
      await audit({ action: `reference.${catalogue.entityType}.created`, entityType: catalogue.entityType, entityId: id, before: null, after: body });
      return { status: 201, body };
    });
    return outcome.body;
  } catch (err) {
    if (isUniqueViolation(err)) throw problem('reference_exists');
    throw err;
  }
}

/** One page of entries (`rows`) with the count of all (`total`), both read from the reader, each shown by `toView`. */
export async function listEntries<R, V>(
  ctx: Ctx,
  page: Page,
  rows: (db: Kysely<Database>, w: Page) => Promise<R[]>,
  total: (db: Kysely<Database>) => Promise<number>,
  toView: (row: R) => V,
) {
  requireAdmin(ctx);
  const db = ctx.storage.reader;
  const [results, count] = await Promise.all([rows(db, page), total(db)]);
  return { count, results: results.map(toView) };
}
