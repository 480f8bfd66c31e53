// Who may call the reference data admin API (docs/api.md, "Admin API").
import type { Ctx } from '../context.ts';
import { problem } from '../http/problem.ts';

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
