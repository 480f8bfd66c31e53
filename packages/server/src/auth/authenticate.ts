// Turns an Authorization header into a Principal. Bearer tokens and API keys are looked up by
// their SHA-256 digest; resolved tokens are cached briefly so a read costs no extra query.
import { findApiKeyByHash, findToken } from '../storage/auth-repository.ts';
import type { Storage } from '../storage/db.ts';
import { digest, sameDigest } from '../lib/secrets.ts';
import { nowMicros } from '../lib/time.ts';
import { problem } from '../http/problem.ts';
import type { Principal } from './principal.ts';

const CACHE_MS = 30_000;
const CACHE_MAX = 10_000;

export class Authenticator {
  private readonly cache = new Map<string, { principal: Principal; until: number }>();

  constructor(private readonly storage: Storage) {}

  /** The principal of a recently seen credential, without touching storage (the hot path). */
  cached(header: string | undefined): Principal | undefined {
    const secret = parseAuthorization(header);
    if (secret === undefined) return undefined;
    const entry = this.cache.get(digest(secret));
    return entry !== undefined && entry.until > Date.now() ? entry.principal : undefined;
  }

  /** Throws 401 unless the header carries a valid token or API key. */
  async authenticate(header: string | undefined): Promise<Principal> {
    const secret = parseAuthorization(header);
    if (secret === undefined) throw unauthorized('Send Authorization: Bearer <token> (or an API key)');
    const hash = digest(secret);
    const now = Date.now();
    const cached = this.cache.get(hash);
    if (cached !== undefined && cached.until > now) return cached.principal;
    const resolved = await this.resolve(hash);
    if (resolved === undefined) {
      this.cache.delete(hash);
      throw unauthorized('The credentials are not valid or have expired');
    }
    if (this.cache.size >= CACHE_MAX) this.cache.clear();
    this.cache.set(hash, { principal: resolved.principal, until: Math.min(now + CACHE_MS, resolved.expiresMs) });
    return resolved.principal;
  }

  private async resolve(hash: string): Promise<{ principal: Principal; expiresMs: number } | undefined> {
    // Found by an index on the digest; the digests are compared once more in constant time.
    const token = await findToken(this.storage.reader, hash);
    if (token !== undefined && sameDigest(token.token_hash, hash)) {
      if (token.expires_at <= nowMicros()) return undefined;
      return {
        principal: { kind: 'token', staffKey: token.staff_key, credential: `client:${token.client_id}`, scopes: token.scope.split(' ').filter(Boolean) },
        expiresMs: token.expires_at / 1000,
      };
    }
    const key = await findApiKeyByHash(this.storage.reader, hash);
    if (key !== undefined && sameDigest(key.key_hash, hash)) {
      return {
        principal: { kind: 'api_key', staffKey: key.staff_key, credential: `api_key:${key.id}`, scopes: key.scopes.split(' ').filter(Boolean) },
        expiresMs: Number.MAX_SAFE_INTEGER,
      };
    }
    return undefined;
  }
}

/** `Bearer <secret>` or the raw secret (how the original plugin tool sends API keys). */
function parseAuthorization(header: string | undefined): string | undefined {
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
