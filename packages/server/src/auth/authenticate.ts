// Turns an Authorization header into a Principal. Bearer tokens and API keys are looked up by
// their SHA-256 digest; resolved tokens are cached briefly so a read costs no extra query.
// A revoked or expired API key or OAuth client (and every token of such a client) is refused with a
// 401 that says which (docs/configuration.md, "Credentials"); a revocation also empties the cache
// of that credential on every process at once (the `credential-revoked` signal, auth/hook.ts).
// When each credential was last used is kept to the minute: remembered here, written at most once a
// minute per credential and process, never a write per request (docs/api.md, "Credentials").
import { findApiKeyByHash, findToken, touchApiKey, touchClient } from '../storage/auth-repository.ts';
import type { Storage } from '../storage/db.ts';
import { digest, sameDigest } from '../lib/secrets.ts';
import { nowMicros } from '../lib/time.ts';
import { problem } from '../http/problem.ts';
import type { Principal } from './principal.ts';

const CACHE_MS = 30_000;
const CACHE_MAX = 10_000;
/** The resolution of `last_used_at`: a credential's use is written at most this often (per process). */
export const LAST_USED_RESOLUTION_MS = 60_000;

type Resolved = { principal: Principal; expiresMs: number } | { refused: string };

export class Authenticator {
  private readonly cache = new Map<string, { principal: Principal; until: number }>();
  /** Credential → when its use was last written (ms). */
  private readonly touched = new Map<string, number>();

  constructor(private readonly storage: Storage) {}

  /** The principal of a recently seen credential, without touching storage (the hot path). */
  cached(header: string | undefined): Principal | undefined {
    const secret = parseAuthorization(header);
    if (secret === undefined) return undefined;
    const entry = this.cache.get(digest(secret));
    if (entry === undefined || entry.until <= Date.now()) return undefined;
    this.used(entry.principal.credential);
    return entry.principal;
  }

  /** Throws 401 unless the header carries a valid token or API key. */
  async authenticate(header: string | undefined): Promise<Principal> {
    const secret = parseAuthorization(header);
    if (secret === undefined) throw unauthorized('Send Authorization: Bearer <token> (or an API key)');
    const hash = digest(secret);
    const now = Date.now();
    const cached = this.cache.get(hash);
    if (cached !== undefined && cached.until > now) {
      this.used(cached.principal.credential);
      return cached.principal;
    }
    const resolved = await this.resolve(hash);
    if (resolved === undefined || 'refused' in resolved) {
      this.cache.delete(hash);
      throw unauthorized(resolved?.refused ?? 'The credentials are not valid or have expired');
    }
    if (this.cache.size >= CACHE_MAX) this.cache.clear();
    this.cache.set(hash, { principal: resolved.principal, until: Math.min(now + CACHE_MS, resolved.expiresMs) });
    this.used(resolved.principal.credential);
    return resolved.principal;
  }

  /** A revoked credential (`api_key:<id>` or `client:<id>`): its cached principals are dropped, so its next request is refused. */
  forget(credential: string): void {
    for (const [hash, entry] of this.cache) if (entry.principal.credential === credential) this.cache.delete(hash);
  }

  /** Notes a use of the credential; written (without waiting) when the last write is over a minute old. */
  private used(credential: string): void {
    const now = Date.now();
    const last = this.touched.get(credential);
    if (last !== undefined && now - last < LAST_USED_RESOLUTION_MS) return;
    if (this.touched.size >= CACHE_MAX) this.touched.clear();
    this.touched.set(credential, now);
    const at = nowMicros();
    const colon = credential.indexOf(':');
    const [kind, id] = [credential.slice(0, colon), credential.slice(colon + 1)];
    const write = kind === 'api_key' ? touchApiKey(this.storage.db, id, at) : touchClient(this.storage.db, id, at);
    // A lost write only makes last_used_at older: never a request's failure.
    write.catch(() => this.touched.delete(credential));
  }

  private async resolve(hash: string): Promise<Resolved | undefined> {
    // Found by an index on the digest; the digests are compared once more in constant time.
    const now = nowMicros();
    const token = await findToken(this.storage.reader, hash);
    if (token !== undefined && sameDigest(token.token_hash, hash)) {
      if (token.client_revoked_at !== null) return { refused: 'The OAuth client of this token was revoked' };
      if (token.client_expires_at !== null && token.client_expires_at <= now) return { refused: 'The OAuth client of this token has expired' };
      if (token.expires_at <= now) return { refused: 'This token has expired' };
      const expiresMs = Math.min(token.expires_at, token.client_expires_at ?? Number.MAX_SAFE_INTEGER) / 1000;
      return {
        principal: {
          kind: 'token',
          staffKey: token.staff_key,
          credential: `client:${token.client_id}`,
          scopes: token.scope.split(' ').filter(Boolean),
          expiresMs,
        },
        expiresMs,
      };
    }
    const key = await findApiKeyByHash(this.storage.reader, hash);
    if (key !== undefined && sameDigest(key.key_hash, hash)) {
      if (key.revoked_at !== null) return { refused: 'This API key was revoked' };
      if (key.expires_at !== null && key.expires_at <= now) return { refused: 'This API key has expired' };
      const principal: Principal = { kind: 'api_key', staffKey: key.staff_key, credential: `api_key:${key.id}`, scopes: key.scopes.split(' ').filter(Boolean) };
      if (key.expires_at === null) return { principal, expiresMs: Number.MAX_SAFE_INTEGER };
      return { principal: { ...principal, expiresMs: key.expires_at / 1000 }, expiresMs: key.expires_at / 1000 };
    }
    return undefined;
  }
}

/** `Bearer <secret>` or the raw secret (how the original plugin tool sends API keys). */
export function parseAuthorization(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  const value = header.trim();
  const match = /^bearer\s+(\S+)$/i.exec(value);
  const secret = match ? match[1] : value;
  if (!secret || secret.length > 512 || /\s/.test(secret)) return undefined;
  return secret;
}

function unauthorized(detail: string) {
  return problem('unauthorized', { detail, headers: { 'www-authenticate': 'Bearer realm="charta"' } });
}
