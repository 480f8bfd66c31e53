// /plugin-io/api/<plugin>/…: the routes enabled plugins serve (docs/plugins.md, "HTTP routes"),
// and each plugin's OpenAPI document. Declared public to the authentication hook: each route's
// own authentication (staff, api_key, secret or public) is checked here once the route is known.
// An encapsulated context of its own: the body is read as text (what a signature is computed
// over) up to 1 MiB, and parsed here by its content type.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { PLUGIN_ROUTE_PREFIX, ROUTE_BODY_MAX_BYTES, type RouteMethod } from '@charta/api/constants';
import rateLimit from '@fastify/rate-limit';
import type { FeatureOptions } from '../http/request.ts';
import { baseUrlOf } from '../http/request.ts';
import { problem } from '../http/problem.ts';
import { getPlugin } from '../storage/plugins-repository.ts';
import { authenticateRoute, checkResponse, matchRoute, parsedBody, pathSegments, queryOf, routeEvent, safeRequestHeaders } from './serve.ts';
import { pluginOpenApi } from './openapi.ts';

// HEAD comes with GET (Fastify's head routes): it is served as the GET route, without the body.
const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;

export async function pluginIoRoutes(app: FastifyInstance, { storage, publicUrl, pluginRouteRateLimit }: FeatureOptions & { pluginRouteRateLimit: number }) {
  // Text, whatever the content type: serve.ts parses it, and a secret route's signature is over these bytes.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'string', bodyLimit: ROUTE_BODY_MAX_BYTES }, (_request, body, done) => done(null, body));
  // Per plugin and route, every caller together (CHARTA_PLUGIN_ROUTE_RATE_LIMIT a minute).
  await app.register(rateLimit, { global: false });
  const limited = app.createRateLimit({
    max: pluginRouteRateLimit,
    timeWindow: 60_000,
    keyGenerator: (request) => (request as FastifyRequest & { pluginRouteKey?: string }).pluginRouteKey ?? 'none',
  });

  app.get(`${PLUGIN_ROUTE_PREFIX}:plugin/openapi.json`, {
    config: { public: true },
    schema: { hide: true },
    handler: async (request: FastifyRequest<{ Params: { plugin: string } }>) => {
      const row = await getPlugin(storage.reader, request.params.plugin);
      if (row === undefined || row.is_enabled === 0)
        throw problem('plugin_route_not_found', { detail: `No enabled plugin named ${request.params.plugin.slice(0, 64)}` });
      return pluginOpenApi(row, baseUrlOf(request, publicUrl));
    },
  });

  const serve = async (request: FastifyRequest<{ Params: { plugin: string } }>, reply: FastifyReply) => {
    const plugin = request.params.plugin;
    const surface = request.server.pluginRuntime.surface;
    const routes = surface.routesOf(plugin);
    if (routes === undefined) throw problem('plugin_route_not_found', { detail: `No enabled plugin named ${plugin.slice(0, 64)} serves routes` });
    const path = request.url.split('?', 1)[0]!;
    const prefixEnd = path.indexOf('/', PLUGIN_ROUTE_PREFIX.length);
    const rest = prefixEnd < 0 ? '/' : path.slice(prefixEnd);
    const segments = pathSegments(rest);
    if (segments === null) throw problem('validation_failed', { detail: 'The path is not valid percent-encoding' });
    const match = matchRoute(routes, request.method, segments);
    if (match.kind === 'no-route') throw problem('plugin_route_not_found', { detail: `Plugin ${plugin} has no route ${rest.slice(0, 200)}` });
    if (match.kind === 'no-method') {
      throw problem('method_not_allowed', {
        detail: `Plugin ${plugin} serves ${rest.slice(0, 200)} with ${match.allow.join(', ')}, not ${request.method}`,
        headers: { allow: match.allow.join(', ') },
      });
    }
    const { served, params } = match;
    // Authenticated first: a caller without the route's credentials is refused (401) before it
    // counts, so a flood of them cannot spend the route's budget and lock its real callers out.
    const staffKey = await authenticateRoute(served.route, request.headers.authorization, (a) => request.server.verifyCredentials(a));
    (request as FastifyRequest & { pluginRouteKey?: string }).pluginRouteKey = `${plugin} ${served.route.method} ${served.route.path}`;
    const limit = await limited(request);
    if (!limit.isAllowed && limit.isExceeded) {
      throw problem('too_many_requests', {
        detail: `${served.route.method} ${served.route.path} of plugin ${plugin} takes at most ${limit.max} requests a minute; retry after ${limit.ttlInSeconds} s`,
        headers: { 'retry-after': String(limit.ttlInSeconds) },
      });
    }
    const rawBody = typeof request.body === 'string' ? request.body : '';
    const body = parsedBody(request.headers['content-type'], rawBody);
    const event = routeEvent(served, {
      method: (request.method === 'HEAD' ? 'GET' : request.method) as RouteMethod,
      path: rest,
      params,
      query: queryOf(request.url.includes('?') ? request.url.slice(request.url.indexOf('?') + 1) : ''),
      headers: safeRequestHeaders(request.headers, served.route),
      body,
      rawBody,
      staffKey,
      requestId: request.id,
    });
    let checked: ReturnType<typeof checkResponse> | undefined;
    const answer = await surface.route(served.handler, event, request.id, (response) => {
      checked = checkResponse(response);
      return checked.ok ? null : checked.why;
    });
    if (!answer.ok || checked === undefined || !checked.ok) {
      const extra = { request_id: request.id, plugin, handler: served.handler.id, route: `${served.route.method} ${served.route.path}` };
      if (answer.ok === false && answer.unavailable)
        throw problem('plugin_unavailable', { detail: `Plugin ${plugin} could not serve the request now; retry later`, extra });
      throw problem('plugin_failed', { detail: `Plugin ${plugin} failed to serve ${served.route.method} ${served.route.path} (request ${request.id})`, extra });
    }
    // What a plugin answers is its own content on the instance's origin: shown to a browser as a
    // sandboxed document with nothing it may load or run, and never framed (a plugin cannot set
    // these headers: serve.ts), so a route's HTML cannot act as the console or read its pages.
    reply
      .code(checked.status)
      .headers(checked.headers)
      .header('content-security-policy', "default-src 'none'; frame-ancestors 'none'; sandbox")
      .header('x-frame-options', 'DENY');
    return reply.send(checked.body ?? undefined);
  };

  for (const url of [`${PLUGIN_ROUTE_PREFIX}:plugin`, `${PLUGIN_ROUTE_PREFIX}:plugin/*`]) {
    app.route({ method: [...METHODS], url, config: { public: true }, schema: { hide: true }, bodyLimit: ROUTE_BODY_MAX_BYTES, handler: serve });
  }
}
