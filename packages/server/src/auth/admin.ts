// Who may call the admin APIs (docs/api.md, "Admin API", "Credentials"; docs/operations.md, "Audit trail"): an
// API key with the scope `admin`.
import type { Ctx } from '../context.ts';
import { problem } from '../http/problem.ts';

export const ADMIN_SCOPE = 'admin';

/**
 * The instance's configuration (reference data: who may prescribe, where prescriptions go) and its
 * audit trail are changed and read with an API key (scope `admin`), never with a staff user's
 * bearer token: a clinical client must not be able to add a prescriber or read who looked at whom.
 * `api` names the API in the refusal.
 */
export function requireAdmin(ctx: Ctx, api: string): void {
  if (ctx.principal.kind !== 'api_key' || !ctx.principal.scopes.includes(ADMIN_SCOPE)) {
    throw problem('forbidden', { detail: `${api} takes an API key with the scope ${ADMIN_SCOPE}, not a bearer token` });
  }
}
