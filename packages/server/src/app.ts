// Builds the Fastify instance (no listen, so tests can inject or listen on port 0):
// body parsing, authentication, the error catalog's rendering, OpenAPI and every route.
import crypto from 'node:crypto';
import Fastify, { LogController, type FastifyError, type FastifyInstance, type FastifyReply } from 'fastify';
import rateLimit from '@fastify/rate-limit';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { Config } from './config.ts';
import type { Storage } from './storage/db.ts';
import type { Principal } from './auth/principal.ts';
import { Authenticator } from './auth/authenticate.ts';
import { Problem, invalid, problem, type FieldProblem } from './http/problem.ts';
import { sharedSchemas } from './http/schemas.ts';
import { registerBodyParsers } from './http/body.ts';
import { isStorageFault, storageProblem } from './http/storage-errors.ts';
import { authRoutes } from './auth/routes.ts';
import { commandRoutes } from './commands/routes.ts';
import { noteRoutes } from './notes/routes.ts';
import { patientRoutes } from './patients/routes.ts';
import { chartRoutes } from './chart/routes.ts';
import { pluginRoutes } from './plugins/routes.ts';
import { referenceRoutes } from './reference/routes.ts';
import { LogBus } from './logs/bus.ts';
import { logRoutes } from './logs/routes.ts';
import { healthRoutes } from './health/routes.ts';

declare module 'fastify' {
  interface FastifyRequest {
    principal: Principal | null;
  }
  interface FastifyContextConfig {
    /** Served without credentials. */
    public?: boolean;
    /** OAuth 2.0 endpoint: every 400 also carries an `error` member (RFC 6749 §5.2). */
    oauthErrors?: boolean;
  }
}

export const VERSION = '0.1.0';

export async function buildApp(config: Config, storage: Storage): Promise<FastifyInstance> {
  const verbose = config.logLevel === 'debug' || config.logLevel === 'trace';
  const app = Fastify({
    logger: {
      level: config.logLevel,
      redact: { paths: ['req.headers.authorization', 'req.headers.cookie'], censor: '[redacted]' },
    },
    // Request logging at info costs most of the throughput; it is there at debug.
    logController: new LogController({ disableRequestLogging: !verbose }),
    bodyLimit: config.bodyLimit,
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 200 },
    ajv: { customOptions: { removeAdditional: false, coerceTypes: false, useDefaults: false, allErrors: true } },
    genReqId: () => crypto.randomUUID(),
    // Errors raised before routing (bad URL, over-long path parameter) are problems too.
    frameworkErrors: (error, _request, reply) => {
      void sendProblem(reply as FastifyReply, problem('route_not_found', { detail: `Not a valid path: ${error.message.slice(0, 120)}` }));
    },
    trustProxy: false,
  });

  app.decorateRequest('principal', null);
  app.decorate('logs', new LogBus()); // the log stream's bus (logs/)
  for (const schema of sharedSchemas) app.addSchema(schema);

  registerBodyParsers(app);

  const authenticator = new Authenticator(storage);
  // Callback style, not async: a cached credential costs no promise on the hot path.
  app.addHook('onRequest', (request, reply, done) => {
    reply.headers({ 'cache-control': 'no-store', 'x-content-type-options': 'nosniff', 'x-request-id': request.id });
    const method = request.method;
    if (method !== 'GET' && method !== 'HEAD' && method !== 'OPTIONS') {
      const path = request.url.split('?', 1)[0]!;
      if (!path.endsWith('/')) return done(problem('trailing_slash_required', { detail: `A trailing slash is required on ${method} paths: use ${path}/` }));
    }
    if (request.routeOptions.config.public === true || request.is404) return done();
    const principal = authenticator.cached(request.headers.authorization);
    if (principal !== undefined) {
      request.principal = principal;
      return done();
    }
    authenticator.authenticate(request.headers.authorization).then((p) => {
      request.principal = p;
      done();
    }, done);
  });

  app.setErrorHandler((error: FastifyError | Problem, request, reply) => {
    const p = withOAuthError(toProblem(error), request.routeOptions.config.oauthErrors === true, request.body);
    if (p.status >= 500) request.log.error({ err: error, reqId: request.id }, 'request failed');
    return sendProblem(reply, p);
  });
  app.setNotFoundHandler((request, reply) =>
    sendProblem(reply, problem('route_not_found', { detail: `No endpoint ${request.method} ${request.url.split('?', 1)[0]}` })),
  );

  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Charta API',
        version: VERSION,
        description: 'Clinical Commands API, notes and patients. Errors are RFC 9457 problem details; see docs/errors.md.',
      },
      components: {
        securitySchemes: {
          bearer: { type: 'http', scheme: 'bearer', description: 'OAuth 2.0 access token from POST /auth/token/' },
          apiKey: { type: 'apiKey', in: 'header', name: 'Authorization', description: 'API key (plugin tool)' },
        },
      },
    },
    refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => (typeof json.$id === 'string' ? json.$id : `def-${i}`) },
  });
  // The API reference page and its assets are public, like /openapi.json.
  app.addHook('onRoute', (route) => {
    if (route.url === '/docs' || route.url.startsWith('/docs/')) route.config = { ...(route.config ?? {}), public: true };
  });
  await app.register(swaggerUi, { routePrefix: '/docs', uiConfig: { docExpansion: 'list' }, uiHooks: {} });
  app.get('/openapi.json', { config: { public: true }, schema: { hide: true } }, async () => app.swagger());

  await app.register(rateLimit, { global: false });
  authRoutes(app, storage, config.tokenRateLimit);
  patientRoutes(app, storage);
  chartRoutes(app, storage, config.publicUrl);
  noteRoutes(app, storage, config.publicUrl);
  commandRoutes(app, storage, config.publicUrl);
  await pluginRoutes(app, storage, config.publicUrl);
  referenceRoutes(app, storage, config.publicUrl);
  await logRoutes(app);
  healthRoutes(app, storage);
  return app;
}

function sendProblem(reply: FastifyReply, p: Problem) {
  if (p.headers) reply.headers(p.headers);
  return reply.code(p.status).type('application/problem+json').send(p.body());
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

/** Everything thrown becomes a catalog problem; nothing unexpected leaks detail. */
function toProblem(error: FastifyError | Problem): Problem {
  if (error instanceof Problem) return error;
  if (isStorageFault(error)) return storageProblem(error);
  if (error.validation) {
    const errors: FieldProblem[] = error.validation.map((v) => {
      const params = v.params as { missingProperty?: string; additionalProperty?: string; allowedValues?: unknown[] };
      const base = v.instancePath.replace(/^\//, '').replace(/\//g, '.');
      const where = error.validationContext === 'body' ? '' : `${error.validationContext}.`;
      if (params.missingProperty) return { field: where + join(base, params.missingProperty), message: 'is required' };
      if (params.additionalProperty) return { field: where + join(base, params.additionalProperty), message: 'is not a known field' };
      return { field: where + (base || error.validationContext || 'body'), message: v.message ?? 'is not valid' };
    });
    return invalid(errors);
  }
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
