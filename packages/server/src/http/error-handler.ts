// How errors are answered: everything thrown (a catalog Problem, a validation failure, a
// framework or plugin error) becomes an RFC 9457 problem from the catalog (problem.ts), the
// way Fastify keeps its errors (lib/errors.js) apart from its error handler (lib/error-handler.js).
// docs/errors.md lists the codes.
import type { FastifyError, FastifyInstance, FastifyReply, FastifyServerOptions } from 'fastify';
import { isStorageFault, storageProblem } from './storage-errors.ts';
import { Problem, invalid, problem, type FieldProblem } from './problem.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** OAuth 2.0 endpoint: every 400 also carries an `error` member (RFC 6749 §5.2). */
    oauthErrors?: boolean;
  }
}

export function sendProblem(reply: FastifyReply, p: Problem) {
  if (p.headers) reply.headers(p.headers);
  return reply.code(p.status).type('application/problem+json').send(p.body());
}

/** Errors raised before routing (bad URL, over-long path parameter) are problems too: Fastify's `frameworkErrors` option. */
export const frameworkErrors: NonNullable<FastifyServerOptions['frameworkErrors']> = (error, _request, reply) => {
  void sendProblem(reply as FastifyReply, problem('route_not_found', { detail: `Not a valid path: ${error.message.slice(0, 120)}` }));
};

/** The error and not-found handlers of the whole API (set on the root instance, before any feature). */
export function registerErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError | Problem, request, reply) => {
    const p = withOAuthError(toProblem(error), request.routeOptions.config.oauthErrors === true, request.body);
    // A database fault is the operator's to see once per request, not a defect with a stack: an
    // outage would otherwise flood the error level (docs/api.md, "When the database is away").
    if (p.status >= 500 && isStorageFault(error)) request.log.warn({ code: p.code, reqId: request.id, fault: error.message }, 'database fault');
    else if (p.status >= 500) request.log.error({ err: error, reqId: request.id }, 'request failed');
    return sendProblem(reply, p);
  });
  app.setNotFoundHandler((request, reply) =>
    sendProblem(reply, problem('route_not_found', { detail: `No endpoint ${request.method} ${request.url.split('?', 1)[0]}` })),
  );
}

/**
 * OAuth endpoints (route config `oauthErrors`: the token endpoint) answer as OAuth 2.0 clients
 * expect (RFC 6749 §5.2): every 400 carries an `error` member too; the grant's own checks set
 * theirs, a malformed request is `invalid_request`.
 */
function withOAuthError(p: Problem, oauth: boolean, body: unknown): Problem {
  if (!oauth || p.status !== 400 || p.extra?.['error'] !== undefined) return p;
  // Another grant with its own fields (password: username, password) fails the schema first; name the grant.
  const grant = typeof body === 'object' && body !== null ? (body as { grant_type?: unknown }).grant_type : undefined;
  const error = typeof grant === 'string' && grant !== 'client_credentials' ? 'unsupported_grant_type' : 'invalid_request';
  return new Problem(p.code, { detail: p.detail, errors: p.errors, headers: p.headers, extra: { ...p.extra, error } });
}

/**
 * A schema's refusal (ajv's errors) as field problems: `query.limit`, `body.values.x`'s path
 * without the `body.`; a missing or unknown property named. The REST routes and the data reads of
 * plugins (runtime/data-reads.ts) give the same messages.
 */
export function schemaProblems(validation: ReadonlyArray<{ instancePath: string; params: unknown; message?: string }>, context: string): FieldProblem[] {
  return validation.map((v) => {
    const params = v.params as { missingProperty?: string; additionalProperty?: string; allowedValues?: unknown[] };
    const base = v.instancePath.replace(/^\//, '').replace(/\//g, '.');
    const where = context === 'body' ? '' : `${context}.`;
    if (params.missingProperty) return { field: where + join(base, params.missingProperty), message: 'is required' };
    if (params.additionalProperty) return { field: where + join(base, params.additionalProperty), message: 'is not a known field' };
    return { field: where + (base || context || 'body'), message: v.message ?? 'is not valid' };
  });
}

/** Everything thrown becomes a catalog problem; nothing unexpected leaks detail. */
function toProblem(error: FastifyError | Problem): Problem {
  if (error instanceof Problem) return error;
  if (isStorageFault(error)) return storageProblem(error);
  if (error.validation) return invalid(schemaProblems(error.validation, error.validationContext ?? 'body'));
  switch (error.code) {
    case 'FST_REQ_FILE_TOO_LARGE':
      return problem('plugin_package_too_large');
    case 'FST_PARTS_LIMIT':
    case 'FST_FILES_LIMIT':
    case 'FST_FIELDS_LIMIT':
      return problem('body_too_large', { detail: `The multipart body has too many parts: ${error.message}` });
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return problem('unsupported_media_type', { detail: 'Send application/json (or application/x-www-form-urlencoded where documented)' });
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return problem('body_too_large');
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return problem('malformed_body', { detail: error.message });
  }
  if (error instanceof SyntaxError || error.code === 'FST_ERR_CTP_INVALID_TYPE' || error.statusCode === 400) {
    return problem('malformed_body', { detail: `The request body is not valid: ${error.message}` });
  }
  if (error.statusCode === 429) return problem('too_many_requests');
  if (error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 500) {
    return new Problem('malformed_body', { detail: error.message });
  }
  return problem('internal_error');
}

const join = (base: string, name: string) => (base ? `${base}.${name}` : name);
