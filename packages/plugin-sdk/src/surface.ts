// Handlers that are not about a record's change (docs/plugins.md, "HTTP routes", "Scheduled
// tasks"): a RouteHandler serves the routes its ROUTES declares, under
// /plugin-io/api/<plugin>/, and answers each request with a response (and, if it likes, effects);
// a ScheduledHandler runs on its SCHEDULE, a five-field cron expression in UTC. The instance reads
// both statics when the plugin is installed, and refuses a package whose declarations are wrong.
import { ROUTE_RESPONSE_EFFECT, type RouteMethod } from '@charta/api/constants';
import type { Effect } from './effects.ts';
import type { RouteRequest } from './events.ts';
import { BaseHandler } from './handler.ts';

export { MAX_ROUTES_PER_PLUGIN, ROUTE_AUTHS, ROUTE_BODY_MAX_BYTES, ROUTE_METHODS, ROUTE_RESPONSE_EFFECT } from '@charta/api/constants';
export type { RouteAuth, RouteMethod } from '@charta/api/constants';

/**
 * One route: a method and a path pattern (`/webhooks/lab-result`, `/patients/:key/summary`), and
 * how callers authenticate. There is no default: give `auth`, or say `public: true`.
 */
export type RouteDeclaration = {
  method: RouteMethod;
  path: string;
  /** One line for the plugin's OpenAPI document. */
  summary?: string;
  /** JSON Schemas for the plugin's OpenAPI document (documentation only: the handler checks its input). */
  request_schema?: Record<string, unknown>;
  response_schema?: Record<string, unknown>;
} & (
  | { auth: 'staff' | 'api_key'; public?: never; signature_header?: never }
  /** The handler checks the request itself (verifySignature, verifyToken) against the header it names here, which the sandbox is given. */
  | { auth: 'secret'; signature_header: string; public?: never }
  | { public: true; auth?: never; signature_header?: never }
);

/** A route handler's answer. A body that is not a string is sent as JSON; a string as text/plain unless a content-type says otherwise. */
export interface RouteResponse {
  status: number;
  /** Only content-type, cache-control and `x-` headers are sent (docs/plugins.md, "HTTP routes"). */
  headers?: Record<string, string>;
  body?: unknown;
  /** Applied like a POST handler's effects before the response is sent. */
  effects?: Effect[];
}

/** The effect that carries a route handler's response (RouteHandler.compute() puts it first). */
export function routeResponse(response: Omit<RouteResponse, 'effects'>): Effect<typeof ROUTE_RESPONSE_EFFECT, Omit<RouteResponse, 'effects'>> {
  const payload: Omit<RouteResponse, 'effects'> = { status: response.status };
  if (response.headers !== undefined) payload.headers = response.headers;
  if (response.body !== undefined) payload.body = response.body;
  return { type: ROUTE_RESPONSE_EFFECT, payload };
}

/** How a signature is written: `sha256=<hex>` is { algorithm: 'sha256', encoding: 'hex', prefix: 'sha256=' }. */
export interface SignatureCheck {
  /** The plugin secret holding the key. */
  secret: string;
  algorithm?: 'sha256' | 'sha512' | 'sha1';
  encoding?: 'hex' | 'base64';
  prefix?: string;
  /** The request header holding the signature; the route's signature_header by default. */
  header?: string;
}

interface BindingGlobal {
  __charta_binding?: (name: string, args: unknown) => Promise<unknown>;
}

/** The 'signature' binding: only the instance (and `charta plugin test`, which runs the same sandbox) has it. */
async function checkSignature(args: Record<string, unknown>): Promise<boolean> {
  const binding = (globalThis as BindingGlobal).__charta_binding;
  if (typeof binding !== 'function') throw new Error('signature checks run in the sandbox only: test route handlers with `charta plugin test`');
  const answer = (await binding('signature', args)) as { value?: unknown; error?: { message?: unknown } };
  if (answer.error !== undefined) throw new Error(String(answer.error.message));
  return answer.value === true;
}

export abstract class RouteHandler extends BaseHandler<'SIMPLE_API_REQUEST'> {
  static override readonly RESPONDS_TO: readonly ['SIMPLE_API_REQUEST'] = ['SIMPLE_API_REQUEST'];
  /** The routes this class serves; each method and path at most once in a plugin. */
  static readonly ROUTES: readonly RouteDeclaration[] = [];

  /** The request being served. */
  get request(): RouteRequest {
    return this.event.context.request;
  }

  /**
   * Whether the request's signature header holds the HMAC of its raw body under the named
   * secret, compared in constant time by the instance (the key never enters the comparison in
   * the sandbox).
   */
  verifySignature(check: SignatureCheck): Promise<boolean> {
    return checkSignature({ scheme: 'hmac', ...check });
  }

  /** Whether the header (the route's signature_header by default) equals the named secret, compared in constant time by the instance. */
  verifyToken(check: { secret: string; header?: string; prefix?: string }): Promise<boolean> {
    return checkSignature({ scheme: 'token', ...check });
  }

  /** The response to the request; `effects` in it are applied before it is sent. */
  abstract handle(request: RouteRequest): RouteResponse | Promise<RouteResponse>;

  async compute(): Promise<Effect[]> {
    const { effects, ...response } = await this.handle(this.request);
    return [routeResponse(response), ...(effects ?? [])];
  }
}

export abstract class ScheduledHandler extends BaseHandler<'CRON'> {
  static override readonly RESPONDS_TO: readonly ['CRON'] = ['CRON'];
  /** Five fields (minute hour day-of-month month day-of-week), UTC: `0 2 * * *` is 02:00 every night. */
  static readonly SCHEDULE: string = '';

  /** The tick being run (ISO 8601) and the one before it that ran (null the first time). */
  get tick(): { tick: string; previous_tick: string | null } {
    return { tick: this.event.context.tick, previous_tick: this.event.context.previous_tick };
  }
}
