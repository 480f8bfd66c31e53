// A request to a plugin's route, from HTTP to the sandbox and back (docs/plugins.md, "HTTP
// routes"): the route it matches, the caller checked against the route's authentication, the
// request as the handler is given it (safe headers only, the body parsed), and the handler's
// response checked before it is sent (a status, safe headers, a body of at most 1 MiB).
// Everything here is about HTTP; the call itself and its effects are the runtime's
// (runtime/surface-calls.ts).
import { randomUUID } from 'node:crypto';
import { parse as parseQuery } from 'node:querystring';
import { ROUTE_BODY_MAX_BYTES, type RouteMethod } from '@charta/api/constants';
import { createRouteEvent } from '@charta/plugin-sdk';
import { checkBody } from '../http/body.ts';
import { problem } from '../http/problem.ts';
import type { Principal } from '../auth/principal.ts';
import type { DeclaredRoute } from '../runtime/surface.ts';
import type { ServedRoute } from '../runtime/surface-calls.ts';
import type { JsonObject, JsonValue } from '../runtime/sandbox/types.ts';

/** The route a path matches, or why none does: no route of that path (404), or not with that method (405). */
export type RouteMatch =
  { kind: 'found'; served: ServedRoute; params: Record<string, string> } | { kind: 'no-route' } | { kind: 'no-method'; allow: RouteMethod[] };

/** The path's segments, decoded; null when one cannot be decoded. */
export function pathSegments(path: string): string[] | null {
  const parts = path.replace(/^\/+/, '').replace(/\/+$/, '');
  if (parts === '') return [];
  try {
    return parts.split('/').map((s) => decodeURIComponent(s));
  } catch {
    return null;
  }
}

function matchSegments(route: DeclaredRoute, segments: string[]): Record<string, string> | null {
  if (route.segments.length !== segments.length) return null;
  const params: Record<string, string> = {};
  for (const [i, s] of route.segments.entries()) {
    if (typeof s === 'string') {
      if (s !== segments[i]) return null;
    } else params[s.param] = segments[i]!;
  }
  return params;
}

/** How specific a pattern is: literals before parameters, position by position (a literal wins over `:name`). */
const specificity = (route: DeclaredRoute) => route.segments.map((s) => (typeof s === 'string' ? '0' : '1')).join('');

export function matchRoute(routes: ServedRoute[], method: string, segments: string[]): RouteMatch {
  const matching = routes
    .map((served) => ({ served, params: matchSegments(served.route, segments) }))
    .filter((m): m is { served: ServedRoute; params: Record<string, string> } => m.params !== null)
    .sort((a, b) => specificity(a.served.route).localeCompare(specificity(b.served.route)));
  if (matching.length === 0) return { kind: 'no-route' };
  const wanted = method === 'HEAD' ? 'GET' : method;
  const found = matching.find((m) => m.served.route.method === wanted);
  if (found === undefined) return { kind: 'no-method', allow: [...new Set(matching.map((m) => m.served.route.method))].sort() };
  return { kind: 'found', ...found };
}

/**
 * The caller, checked against the route's authentication: `staff` needs an OAuth bearer token of
 * the instance that acts for a staff member, `api_key` an instance API key; `secret` and `public`
 * routes are let through (a secret route's handler checks the request itself).
 */
export async function authenticateRoute(
  route: DeclaredRoute,
  authorization: string | undefined,
  verify: (authorization: string) => Promise<Principal>,
): Promise<string | null> {
  if (route.auth === 'secret' || route.auth === 'public') return null;
  if (authorization === undefined || authorization.trim() === '') {
    throw problem('unauthorized', { detail: `This route needs ${route.auth === 'staff' ? 'an OAuth bearer token' : 'an API key'} in Authorization` });
  }
  const principal = await verify(authorization);
  const wanted = route.auth === 'staff' ? 'token' : 'api_key';
  if (principal.kind !== wanted) {
    throw problem('unauthorized', {
      detail:
        route.auth === 'staff'
          ? 'This route takes an OAuth bearer token of the instance, not an API key'
          : 'This route takes an API key of the instance, not a token',
    });
  }
  return principal.staffKey;
}

/** Request headers a handler is given: these, every `x-` header, and the route's signature header; never Authorization or cookies. */
const SAFE_REQUEST_HEADERS = new Set(['content-type', 'accept', 'user-agent', 'content-length']);
const MAX_HEADER_CHARS = 4096;

export function safeRequestHeaders(headers: Record<string, string | string[] | undefined>, route: DeclaredRoute): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    const n = name.toLowerCase();
    if (!(SAFE_REQUEST_HEADERS.has(n) || n.startsWith('x-') || n === route.signatureHeader)) continue;
    const text = Array.isArray(value) ? value.join(', ') : value;
    out[n] = text.length > MAX_HEADER_CHARS ? text.slice(0, MAX_HEADER_CHARS) : text;
  }
  return out;
}

/** The body as the handler is given it: JSON parsed, a form's fields, text as it is, none as null (a 415 for anything else). */
export function parsedBody(contentType: string | undefined, raw: string): JsonValue {
  if (raw === '') return null;
  const type = (contentType ?? '').split(';', 1)[0]!.trim().toLowerCase();
  if (type === 'application/json' || type.endsWith('+json')) {
    let value: JsonValue;
    try {
      value = JSON.parse(raw) as JsonValue;
    } catch (err) {
      throw problem('malformed_body', { detail: `The body is not JSON: ${err instanceof Error ? err.message : String(err)}` });
    }
    checkBody(value);
    return value;
  }
  if (type === 'application/x-www-form-urlencoded') {
    // A name given twice has a list; none is undefined.
    const value: Record<string, string | string[]> = {};
    for (const [name, v] of Object.entries(parseQuery(raw))) if (v !== undefined) value[name] = v;
    checkBody(value);
    return value;
  }
  if (type.startsWith('text/')) {
    checkBody(raw);
    return raw;
  }
  throw problem('unsupported_media_type', { detail: 'A plugin route takes JSON, a form (application/x-www-form-urlencoded) or text' });
}

const MAX_QUERY_NAMES = 100;

export function queryOf(search: string): Record<string, string | string[]> {
  const query: Record<string, string | string[]> = {};
  const params = new URLSearchParams(search);
  let names = 0;
  for (const [name, value] of params) {
    if (name.includes('\u0000') || value.includes('\u0000'))
      throw problem('validation_failed', { detail: 'The query string must not contain a NUL character' });
    const earlier = query[name];
    if (earlier === undefined) {
      if (++names > MAX_QUERY_NAMES) throw problem('validation_failed', { detail: `The query string has more than ${MAX_QUERY_NAMES} names` });
      query[name] = value;
    } else query[name] = Array.isArray(earlier) ? [...earlier, value] : [earlier, value];
  }
  return query;
}

/** The SIMPLE_API_REQUEST event of one request (docs/plugins.md, "HTTP routes"), as the SDK builds it. */
export function routeEvent(
  served: ServedRoute,
  request: {
    method: RouteMethod;
    path: string;
    params: Record<string, string>;
    query: Record<string, string | string[]>;
    headers: Record<string, string>;
    body: JsonValue;
    rawBody: string;
    staffKey: string | null;
    requestId: string;
  },
): JsonObject {
  const { route } = served;
  return createRouteEvent({
    id: randomUUID(),
    method: request.method,
    path: request.path,
    route: route.path,
    params: request.params,
    query: request.query,
    headers: request.headers,
    body: request.body,
    raw_body: request.rawBody,
    staff_key: request.staffKey,
    request_id: request.requestId,
    actor: `route:${route.auth}`,
  }) as unknown as JsonObject;
}

/** Response headers a handler may set: content-type, cache-control and `x-` headers other than the instance's own. */
const SAFE_RESPONSE_HEADERS = new Set(['content-type', 'cache-control']);
const INSTANCE_X_HEADERS = new Set(['x-content-type-options', 'x-frame-options', 'x-xss-protection', 'x-request-id', 'x-powered-by']);
// (content-security-policy is outside the safe list too: routes.ts sets a sandbox on every answer.)
const MAX_RESPONSE_HEADERS = 32;

/** What is sent: the status, the headers and the body's bytes; or why the handler's response cannot be sent (a 502). */
export type CheckedResponse = { ok: true; status: number; headers: Record<string, string>; body: Buffer | null } | { ok: false; why: string };

export function checkResponse(value: unknown): CheckedResponse {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return { ok: false, why: 'the response is not an object {status, headers, body}' };
  const r = value as Record<string, unknown>;
  if (typeof r.status !== 'number' || !Number.isInteger(r.status) || r.status < 200 || r.status > 599) {
    return { ok: false, why: `the status ${JSON.stringify(r.status)?.slice(0, 40)} is not an integer from 200 to 599` };
  }
  const headers: Record<string, string> = {};
  if (r.headers !== undefined) {
    if (typeof r.headers !== 'object' || r.headers === null || Array.isArray(r.headers))
      return { ok: false, why: 'the headers are not an object of names and values' };
    const entries = Object.entries(r.headers as Record<string, unknown>);
    if (entries.length > MAX_RESPONSE_HEADERS) return { ok: false, why: `more than ${MAX_RESPONSE_HEADERS} headers` };
    for (const [name, v] of entries) {
      const n = name.toLowerCase();
      if (!(SAFE_RESPONSE_HEADERS.has(n) || (n.startsWith('x-') && !INSTANCE_X_HEADERS.has(n))) || !/^[a-z0-9-]{1,64}$/.test(n)) {
        return { ok: false, why: `the header ${JSON.stringify(name.slice(0, 64))} is outside the safe list (content-type, cache-control, x-)` };
      }
      if (typeof v !== 'string' || v.length > MAX_HEADER_CHARS || /[\r\n\u0000]/.test(v)) {
        return { ok: false, why: `the header ${n} must be text of at most ${MAX_HEADER_CHARS} characters on one line` };
      }
      headers[n] = v;
    }
  }
  let body: Buffer | null = null;
  if (r.body !== undefined && r.body !== null) {
    if (typeof r.body === 'string') {
      body = Buffer.from(r.body, 'utf8');
      headers['content-type'] ??= 'text/plain; charset=utf-8';
    } else {
      body = Buffer.from(JSON.stringify(r.body), 'utf8');
      headers['content-type'] ??= 'application/json; charset=utf-8';
    }
    if (body.length > ROUTE_BODY_MAX_BYTES) return { ok: false, why: `the body is larger than ${ROUTE_BODY_MAX_BYTES} bytes` };
  }
  return { ok: true, status: r.status, headers, body };
}
