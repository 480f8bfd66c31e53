// What the server's routes share: the documented error responses of a route and the schemas
// registered once at the root. The wire schemas themselves are in @charta/api.
import { Type } from '@sinclair/typebox';
import { ProblemSchema } from '@charta/api';

const ERROR_DESCRIPTIONS: Record<number, string> = {
  400: 'Invalid request or wrong state',
  401: 'Missing or invalid credentials',
  403: 'Credentials may not do this',
  404: 'Not found',
  412: 'If-Match does not match the current ETag',
  413: 'Body too large',
  415: 'Unsupported media type',
  422: 'Idempotency-Key reused with another request',
  429: 'Too many requests',
  503: 'The database is away, busy or read-only (or the outcome of a write is unknown): retry after Retry-After seconds',
  507: 'The database is full',
};

/** Error responses of a route, documented as RFC 9457 problem bodies. */
export function problemResponses(...statuses: number[]) {
  return Object.fromEntries(
    statuses.map((status) => [
      status,
      { description: ERROR_DESCRIPTIONS[status] ?? 'Error', content: { 'application/problem+json': { schema: Type.Ref('Problem') } } },
    ]),
  );
}

/** Schemas registered once on the root instance (before any feature) so every route can $ref them. */
export const sharedSchemas = [ProblemSchema];
