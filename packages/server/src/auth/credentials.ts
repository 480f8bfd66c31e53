// Credential rotation (docs/api.md, "Credentials"; docs/operations.md, "Credentials"): create, list
// and revoke API keys and OAuth clients with an admin API key. Each create and revoke is one write
// transaction with its audit row (never the secret, never its hash). A revocation is then signalled
// (`credential-revoked`): every process forgets the credential and closes the streams opened with
// it (auth/revocation.ts); the tokens of a revoked client are refused by their lookup (it joins the
// client's state, storage/auth-repository.ts).
import type { Ctx } from '../context.ts';
import type { Storage } from '../storage/db.ts';
import { invalid, problem } from '../http/problem.ts';
import { writeTransaction, type Writer } from '../storage/transaction.ts';
import { getApiKey, getClientView, listApiKeys, listClients, revokeApiKeyRow, revokeClientRow } from '../storage/auth-repository.ts';
import { isoMicros, nowMicros, parseTimestampMicros } from '../lib/time.ts';
import type { ApiKeyCreate, ApiKeyViewT, OAuthClientCreate, OAuthClientViewT } from '@charta/api';
import { requireAdmin } from './admin.ts';
import { createApiKey } from './create-api-key.ts';
import { createClient } from './create-client.ts';
import { defaultStaff } from './staff.ts';

const WHAT = 'The credentials API';

type Times = { created_at: number; expires_at: number | null; revoked_at: number | null; last_used_at: number | null };
const iso = (us: number | null) => (us === null ? null : isoMicros(us));
const times = (r: Times) => ({
  created_at: isoMicros(r.created_at),
  expires_at: iso(r.expires_at),
  revoked_at: iso(r.revoked_at),
  last_used_at: iso(r.last_used_at),
});
const scopesOf = (s: string) => s.split(' ').filter(Boolean);

export const apiKeyView = (r: Times & { id: string; label: string; scopes: string }): ApiKeyViewT => ({
  id: r.id,
  label: r.label,
  scopes: scopesOf(r.scopes),
  ...times(r),
});
export const clientView = (r: Times & { client_id: string; name: string; scopes: string }): OAuthClientViewT => ({
  client_id: r.client_id,
  label: r.name,
  scopes: scopesOf(r.scopes),
  ...times(r),
});

/** An expiry given on creation: an ISO 8601 timestamp with zone, in the future; `field` names it in the 400. */
export function expiryOf(text: string | undefined, field: string, now = nowMicros()): number | undefined {
  if (text === undefined) return undefined;
  const at = parseTimestampMicros(text);
  if (at === undefined) throw invalid([{ field, message: 'must be an ISO 8601 timestamp with zone, e.g. 2027-01-31T00:00:00Z' }]);
  if (at <= now) throw invalid([{ field, message: 'must be in the future' }]);
  return at;
}

export async function createApiKeyOperation(ctx: Ctx, body: ApiKeyCreate): Promise<ApiKeyViewT & { api_key: string }> {
  requireAdmin(ctx, WHAT);
  const expiresAt = expiryOf(body.expires_at, 'expires_at');
  // The staff user is found (or made) before the transaction: SQLite has one writer.
  const staffKey = await defaultStaff(ctx.storage);
  const outcome = await writeTransaction(ctx, undefined, async ({ trx, audit }) => {
    const scopes = body.scopes?.join(' ');
    const made = await createApiKey(ctx.storage, body.label, { scopes, expiresAt, staffKey, db: trx });
    const view = apiKeyView((await getApiKey(trx, made.id))!);
    await audit({ action: 'credential.api_key.created', entityType: 'api_key', entityId: made.id, before: null, after: view });
    return { status: 201, body: { ...view, api_key: made.key } };
  });
  return outcome.body;
}

export async function createClientOperation(ctx: Ctx, body: OAuthClientCreate): Promise<OAuthClientViewT & { client_secret: string }> {
  requireAdmin(ctx, WHAT);
  const expiresAt = expiryOf(body.expires_at, 'expires_at');
  const staffKey = await defaultStaff(ctx.storage);
  const outcome = await writeTransaction(ctx, undefined, async ({ trx, audit }) => {
    const made = await createClient(ctx.storage, { name: body.label ?? 'api', expiresAt, staffKey, db: trx });
    const view = clientView({ ...(await getClientView(trx, made.clientId))! });
    await audit({ action: 'credential.oauth_client.created', entityType: 'oauth_client', entityId: made.clientId, before: null, after: view });
    return { status: 201, body: { ...view, client_secret: made.clientSecret } };
  });
  return outcome.body;
}

export async function listApiKeysOperation(ctx: Ctx): Promise<{ results: ApiKeyViewT[] }> {
  requireAdmin(ctx, WHAT);
  return { results: (await listApiKeys(ctx.storage.reader)).map(apiKeyView) };
}

export async function listClientsOperation(ctx: Ctx): Promise<{ results: OAuthClientViewT[] }> {
  requireAdmin(ctx, WHAT);
  return { results: (await listClients(ctx.storage.reader)).map(clientView) };
}

/**
 * Revokes an API key. The key making the request is refused (409) unless `force`: an admin does
 * not lock themselves out by mistake. Revoking a revoked key answers it as it is (no second audit row).
 */
export async function revokeApiKeyOperation(ctx: Ctx, id: string, force = false): Promise<ApiKeyViewT> {
  requireAdmin(ctx, WHAT);
  if (ctx.principal.credential === `api_key:${id}` && !force) throw problem('credential_in_use');
  return revoke(ctx, `api_key:${id}`, async ({ trx, audit }) => {
    const before = await getApiKey(trx, id);
    if (before === undefined) throw problem('credential_not_found', { detail: `No API key ${id}` });
    if (before.revoked_at !== null) return { view: apiKeyView(before), changed: false };
    await revokeApiKeyRow(trx, id, nowMicros());
    const after = apiKeyView((await getApiKey(trx, id))!);
    await audit({ action: 'credential.api_key.revoked', entityType: 'api_key', entityId: id, before: apiKeyView(before), after });
    return { view: after, changed: true };
  });
}

/** Revokes an OAuth client: its tokens are refused from the next request, its streams closed. */
export async function revokeClientOperation(ctx: Ctx, clientId: string): Promise<OAuthClientViewT> {
  requireAdmin(ctx, WHAT);
  return revoke(ctx, `client:${clientId}`, async ({ trx, audit }) => {
    const before = await getClientView(trx, clientId);
    if (before === undefined) throw problem('credential_not_found', { detail: `No OAuth client ${clientId}` });
    if (before.revoked_at !== null) return { view: clientView(before), changed: false };
    await revokeClientRow(trx, clientId, nowMicros());
    const after = clientView((await getClientView(trx, clientId))!);
    await audit({ action: 'credential.oauth_client.revoked', entityType: 'oauth_client', entityId: clientId, before: clientView(before), after });
    return { view: after, changed: true };
  });
}

async function revoke<V>(ctx: Ctx, credential: string, work: (w: Writer) => Promise<{ view: V; changed: boolean }>): Promise<V> {
  const outcome = await writeTransaction(ctx, undefined, async (w) => ({ status: 200, body: await work(w) }));
  // After the commit, and also when it was revoked already (a process may have missed the first signal).
  ctx.signals?.emit({ type: 'credential-revoked', credential });
  return outcome.body.view;
}

/** For the CLI (charta-server revoke-api-key / revoke-client): the same write, by the operator. */
export function operatorCtx(storage: Storage): Ctx {
  return { storage, principal: { kind: 'api_key', staffKey: null, credential: 'operator:cli', scopes: ['admin'] }, requestId: 'cli' };
}
