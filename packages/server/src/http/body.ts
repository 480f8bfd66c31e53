// Request body parsers: JSON and form-encoded, each followed by the same sanity check, so no
// handler (nor an Idempotency-Key fingerprint) ever sees a body nested too deeply to serialise
// or a NUL character (which PostgreSQL text refuses).
import { parse as parseQuery } from 'node:querystring';
import type { FastifyInstance } from 'fastify';
import { invalid, problem } from './problem.ts';

export const MAX_BODY_DEPTH = 32;

/**
 * Throws unless every value is at most MAX_BODY_DEPTH deep (malformed_body) and free of NUL
 * characters (validation_failed naming the field).
 */
export function checkBody(value: unknown): void {
  const stack: Array<[unknown, number, string]> = [[value, 0, '']];
  const nul = (field: string) => invalid([{ field: field || 'body', message: 'must not contain a NUL character' }]);
  while (stack.length > 0) {
    const [v, depth, path] = stack.pop()!;
    if (typeof v === 'string') {
      if (v.includes('\u0000')) throw nul(path);
    } else if (v !== null && typeof v === 'object') {
      if (depth >= MAX_BODY_DEPTH) throw problem('malformed_body', { detail: `The body is nested more than ${MAX_BODY_DEPTH} levels deep` });
      for (const [k, child] of Object.entries(v)) {
        const childPath = Array.isArray(v) ? `${path}[${k}]` : path ? `${path}.${k}` : k;
        if (k.includes('\u0000')) throw nul(path);
        stack.push([child, depth + 1, childPath]);
      }
    }
  }
}

export function registerBodyParsers(app: FastifyInstance): void {
  // Only JSON and form bodies exist in this API; anything else is a 415.
  app.removeContentTypeParser('text/plain');
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = body.toString();
    // An empty body is no body (commit and enter-in-error are sent that way).
    if (text.trim() === '') return done(null, undefined);
    void parseJson(request, text, (err, value) => {
      if (err) return done(err);
      try {
        checkBody(value);
      } catch (e) {
        return done(e as Error);
      }
      done(null, value);
    });
  });
  // Repeated keys become arrays, which the route schemas then refuse.
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_request, body, done) => {
    try {
      const value = { ...parseQuery(body.toString()) };
      checkBody(value);
      done(null, value);
    } catch (e) {
      done(e as Error);
    }
  });
}
