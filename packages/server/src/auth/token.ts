// POST /auth/token/: OAuth 2.0 client credentials grant → a bearer token valid for 10 hours (or until
// its client expires, if sooner: docs/configuration.md, "Credentials").
import type { Storage } from '../storage/db.ts';
import { getClient, insertToken, deleteExpiredTokens } from '../storage/auth-repository.ts';
import { digest, DUMMY_PASSWORD_HASH, verifyPassword } from '../lib/secrets.ts';
import { newSecret } from '../lib/ids.ts';
import { nowMicros } from '../lib/time.ts';
import { problem } from '../http/problem.ts';

export const TOKEN_LIFETIME_SECONDS = 36_000;

export interface TokenRequest {
  grant_type?: string;
  client_id?: string;
  client_secret?: string;
  scope?: string;
}

export interface TokenResponse {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  scope: string;
}

export async function issueToken(storage: Storage, request: TokenRequest, basicAuth?: { id: string; secret: string }): Promise<TokenResponse> {
  if (request.grant_type !== 'client_credentials') {
    throw problem('unsupported_grant_type', { extra: { error: 'unsupported_grant_type' } });
  }
  const clientId = request.client_id ?? basicAuth?.id;
  const clientSecret = request.client_secret ?? basicAuth?.secret;
  if (!clientId || !clientSecret) throw problem('invalid_request', { extra: { error: 'invalid_request' } });
  const client = await getClient(storage.db, clientId);
  // Verify against a dummy hash when the client is unknown, so timing does not reveal which ids exist.
  const valid = await verifyPassword(clientSecret, client?.secret_hash ?? DUMMY_PASSWORD_HASH);
  if (client === undefined || !valid) throw problem('invalid_client', { extra: { error: 'invalid_client' } });
  // docs/configuration.md, "Credentials": a revoked or expired client gets no token (said only to whoever knows its secret).
  const now = nowMicros();
  if (client.revoked_at !== null) throw problem('invalid_client', { detail: 'This client was revoked', extra: { error: 'invalid_client' } });
  if (client.expires_at !== null && client.expires_at <= now)
    throw problem('invalid_client', { detail: 'This client has expired', extra: { error: 'invalid_client' } });
  const allowed = client.scopes.split(' ');
  const asked = (request.scope ?? '').split(' ').filter(Boolean);
  const denied = asked.filter((s) => !allowed.includes(s));
  if (denied.length > 0) {
    throw problem('invalid_scope', { detail: `Scope not granted to this client: ${denied.join(' ')}`, extra: { error: 'invalid_scope' } });
  }
  const scope = asked.length > 0 ? asked.join(' ') : client.scopes;
  const token = newSecret();
  // A token expires no later than its client.
  const expiresAt = Math.min(now + TOKEN_LIFETIME_SECONDS * 1_000_000, client.expires_at ?? Number.MAX_SAFE_INTEGER);
  await deleteExpiredTokens(storage.db, now);
  await insertToken(storage.db, {
    token_hash: digest(token),
    client_id: client.client_id,
    staff_key: client.staff_key,
    scope,
    expires_at: expiresAt,
    created_at: now,
  });
  return { access_token: token, token_type: 'Bearer', expires_in: Math.floor((expiresAt - now) / 1_000_000), scope };
}
