// Secrets at rest. API keys and access tokens are 256-bit random values: a SHA-256 digest is
// enough and keeps the per-request check cheap. Client secrets may be chosen by an operator
// (bootstrap variables), so they get scrypt with a salt. Comparisons are constant-time.
import crypto from 'node:crypto';
import { promisify } from 'node:util';

const scrypt = promisify(crypto.scrypt) as (password: string, salt: Buffer, keylen: number) => Promise<Buffer>;

export function digest(secret: string): string {
  return crypto.createHash('sha256').update(secret).digest('hex');
}

export async function hashPassword(secret: string): Promise<string> {
  const salt = crypto.randomBytes(16);
  const key = await scrypt(secret, salt, 32);
  return `scrypt$${salt.toString('base64')}$${key.toString('base64')}`;
}

export async function verifyPassword(secret: string, stored: string): Promise<boolean> {
  const [scheme, saltText, keyText] = stored.split('$');
  if (scheme !== 'scrypt' || !saltText || !keyText) return false;
  const expected = Buffer.from(keyText, 'base64');
  const actual = await scrypt(secret, Buffer.from(saltText, 'base64'), expected.length);
  return crypto.timingSafeEqual(actual, expected);
}

/** Constant-time equality of two hex digests. */
export function sameDigest(a: string, b: string): boolean {
  const x = Buffer.from(a, 'hex');
  const y = Buffer.from(b, 'hex');
  return x.length === y.length && crypto.timingSafeEqual(x, y);
}

/** A hash compared in constant time against, when a lookup found nothing (same work either way). */
export const DUMMY_PASSWORD_HASH = 'scrypt$AAAAAAAAAAAAAAAAAAAAAA==$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=';
