// Credentials never reach the log, at any level (docs/api.md, "Logging"). Some clients put an
// API key or a token in the query string (`?token=`, `?api_key=`, `?access_token=`…): every URL
// the server logs, and every logged message or error text that could quote one, has the value
// of each parameter named like a credential replaced by `[redacted]`.
import type { FastifyRequest } from 'fastify';

export const REDACTED = '[redacted]';

/** Parts of a parameter name (lower case, letters and digits only) that say it carries a credential. */
const CREDENTIAL_WORDS = [
  'token',
  'key',
  'secret',
  'password',
  'passwd',
  'pwd',
  'pass',
  'auth',
  'code',
  'session',
  'sig',
  'credential',
  'jwt',
  'bearer',
  'assertion',
  'otp',
  'ticket',
  'cookie',
  'private',
  'hash',
  'nonce',
];

/** Whether a query parameter of this name may carry a credential (`api_key`, `Api-Key`, `client_secret`, `code`…). */
export function isCredentialName(name: string): boolean {
  let decoded = name;
  try {
    decoded = decodeURIComponent(name.replace(/\+/g, ' '));
  } catch {
    // a malformed escape: judge the name as written
  }
  const flat = decoded.toLowerCase().replace(/[^a-z0-9]/g, '');
  return CREDENTIAL_WORDS.some((word) => flat.includes(word));
}

// `?name=value`, `&name=value` or `;name=value` anywhere in a text: a URL, or a message quoting one.
const PARAMETER = /([?&;])([^=&?#;\s'"<>]+)=([^&#;\s'"<>]*)/g;

/** The text with the value of every credential-named query parameter replaced by `[redacted]`. */
export function redactCredentials(text: string): string {
  if (!text.includes('=')) return text;
  return text.replace(PARAMETER, (whole, sep: string, name: string) => (isCredentialName(name) ? `${sep}${name}=${REDACTED}` : whole));
}

/** Fastify's request serializer (the `req` of "incoming request"), with the URL redacted. */
export function serializeRequest(request: FastifyRequest) {
  return {
    method: request.method,
    url: redactCredentials(request.url),
    version: request.headers?.['accept-version'] as string | undefined,
    host: request.host,
    remoteAddress: request.ip,
    remotePort: request.socket?.remotePort,
  };
}

/** Errors as pino writes them, with any URL quoted in their text redacted. */
export function serializeError(err: Error): { type: string; message: string; stack: string; [key: string]: unknown } {
  const out: { type: string; message: string; stack: string; [key: string]: unknown } = {
    type: err.constructor?.name ?? 'Error',
    message: redactCredentials(String(err.message)),
    stack: redactCredentials(err.stack ?? ''),
  };
  for (const [k, v] of Object.entries(err)) {
    // Node's HTTP parser errors carry the raw bytes of the request (its request line, with the query).
    if (k === 'message' || k === 'stack' || k === 'rawPacket') continue;
    out[k] = typeof v === 'string' ? redactCredentials(v) : v instanceof Error ? serializeError(v) : v;
  }
  if (err.cause instanceof Error) out.cause = serializeError(err.cause);
  return out;
}

/** Pino's `logMethod` hook: string arguments (the message and its interpolations) are redacted too. */
export function redactLogArguments(this: unknown, args: unknown[], method: (...args: unknown[]) => void): void {
  method.apply(
    this,
    args.map((a) => (typeof a === 'string' ? redactCredentials(a) : a)),
  );
}
