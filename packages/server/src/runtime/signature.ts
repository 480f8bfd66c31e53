// The `signature` binding (docs/plugins.md, "HTTP routes"): a `secret` route's handler asks the
// instance whether the request carries the right signature (an HMAC of its raw body under one of
// the plugin's secrets) or token (a header equal to a secret), and the instance answers true or
// false, comparing in constant time. Only during a SIMPLE_API_REQUEST call: the request is the
// call's own (its raw body and headers as the sandbox was given them), never one the plugin makes up.
import { createHmac, createHash, timingSafeEqual } from 'node:crypto';
import { ROUTE_EVENT } from '@charta/api/constants';
import type { Binding } from './bindings.ts';
import type { JsonObject } from './sandbox/types.ts';

export const SIGNATURE_BINDING = 'signature';

const ALGORITHMS = new Set(['sha256', 'sha512', 'sha1']);
const refusal = (message: string): JsonObject => ({ error: { code: 'invalid', message } });

/** Equal in constant time whatever the lengths: both sides hashed to the same length first. */
export function constantTimeEqual(a: string, b: string): boolean {
  const ha = createHash('sha256').update(a, 'utf8').digest();
  const hb = createHash('sha256').update(b, 'utf8').digest();
  return timingSafeEqual(ha, hb) && a.length === b.length;
}

export const signatureBinding: Binding = (_plugin, args, call) => {
  if (call === undefined || call.type !== ROUTE_EVENT) return refusal('a signature is checked only while a route handler serves a request');
  if (typeof args !== 'object' || args === null || Array.isArray(args)) return refusal('the arguments are an object {scheme, secret, …}');
  const a = args as JsonObject;
  const request = ((call.event.context as JsonObject | undefined)?.request ?? {}) as JsonObject;
  const headers = (request.headers ?? {}) as Record<string, string>;
  // The header the route being served names (a handler may serve several secret routes).
  const served = (request.route ?? {}) as JsonObject;
  const signatureHeader = call.handler.routes.find((r) => r.method === served.method && r.path === served.path)?.signatureHeader ?? null;
  const headerName = typeof a.header === 'string' ? a.header.toLowerCase() : signatureHeader;
  if (headerName === null) return refusal('name the header that holds the signature (the route declares no signature_header)');
  if (typeof a.secret !== 'string' || a.secret === '') return refusal('name the plugin secret that holds the key');
  const key = call.handler.secrets[a.secret];
  // A secret not set: nothing can match (a missing key must never verify an empty signature).
  if (key === undefined || key === '') return { value: false };
  const given = headers[headerName];
  if (typeof given !== 'string') return { value: false };
  const prefix = typeof a.prefix === 'string' ? a.prefix : '';
  if (!given.startsWith(prefix)) return { value: false };
  const presented = given.slice(prefix.length).trim();
  if (a.scheme === 'token') return { value: constantTimeEqual(presented, key) };
  if (a.scheme !== 'hmac') return refusal('scheme is hmac or token');
  const algorithm = a.algorithm === undefined ? 'sha256' : a.algorithm;
  if (typeof algorithm !== 'string' || !ALGORITHMS.has(algorithm)) return refusal('algorithm is sha256, sha512 or sha1');
  const encoding = a.encoding === undefined ? 'hex' : a.encoding;
  if (encoding !== 'hex' && encoding !== 'base64') return refusal('encoding is hex or base64');
  const raw = typeof request.raw_body === 'string' ? request.raw_body : '';
  const expected = createHmac(algorithm, key).update(raw, 'utf8').digest(encoding);
  return { value: constantTimeEqual(encoding === 'hex' ? presented.toLowerCase() : presented, expected) };
};
