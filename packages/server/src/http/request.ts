// Per-request helpers shared by the route files: the operation context, the caller's base URL,
// the Idempotency-Key header and the checks on bodies. (A command's ETag and If-Match: commands/reply.ts.)
import type { FastifyRequest } from 'fastify';
import type { Ctx } from '../context.ts';
import type { Storage } from '../storage/db.ts';
import type { Idempotency } from '../storage/transaction.ts';
import { invalid, problem } from './problem.ts';

/** What every feature plugin is registered with (app.ts). */
export interface FeatureOptions {
  storage: Storage;
  /** CHARTA_PUBLIC_URL: the base of the links in answers (pages, package downloads). */
  publicUrl: string | undefined;
  /** CHARTA_LIST_COUNT_CAP: how far the commands and notes lists count exactly (pagination.ts). */
  listCountCap: number;
}

export function ctxOf(request: FastifyRequest, storage: Storage): Ctx {
  if (request.principal === null) throw problem('unauthorized');
  const { logs, signals, pluginRuntime: runtime, keyring } = request.server;
  return { storage, principal: request.principal, requestId: request.id, logs, signals, runtime, keyring };
}

/** CHARTA_PUBLIC_URL, else scheme and host of the request. */
export function baseUrlOf(request: FastifyRequest, publicUrl: string | undefined): string {
  return publicUrl ?? `${request.protocol}://${request.host}`;
}

const IDEMPOTENCY_KEY_RE = /^[\x21-\x7e]{1,255}$/;

export function idempotencyOf(request: FastifyRequest): Idempotency | undefined {
  const key = request.headers['idempotency-key'];
  if (key === undefined) return undefined;
  if (typeof key !== 'string' || !IDEMPOTENCY_KEY_RE.test(key)) {
    throw invalid([{ field: 'Idempotency-Key', message: 'must be 1 to 255 visible ASCII characters' }]);
  }
  return { key, request: { method: request.method, url: request.url.split('?')[0], body: request.body ?? null } };
}

/** Commit, enter-in-error, lock and unlock take no input: no body, or an empty JSON object. */
export function expectEmptyBody(request: FastifyRequest): void {
  const body = request.body;
  if (body === undefined || body === null) return;
  if (typeof body === 'object' && !Array.isArray(body) && Object.keys(body).length === 0) return;
  throw invalid([{ field: 'body', message: 'must be empty: this endpoint takes no body (or an empty JSON object)' }]);
}

/**
 * Routes whose body schema depends on the content type skip validation when no body is sent:
 * such a request is answered here, before a handler reads the missing body.
 */
export function requireBody<T>(request: FastifyRequest): T {
  const body = request.body;
  if (body === undefined || body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw invalid([{ field: 'body', message: 'is required: a JSON object (or form fields)' }]);
  }
  return body as T;
}
