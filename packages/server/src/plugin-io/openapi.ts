// GET /plugin-io/api/<plugin>/openapi.json: an OpenAPI document of one plugin's routes, made from
// what its classes declare (docs/plugins.md, "HTTP routes"): path, method, authentication, and a
// request and response schema where the route gives one.
import { PLUGIN_ROUTE_PREFIX } from '@charta/api/constants';
import type { PluginSummary } from '../plugins/representation.ts';
import type { PluginSurface } from '../runtime/surface.ts';

const SECURITY = {
  staff: {
    type: 'http',
    scheme: 'bearer',
    description: "An OAuth bearer token of the instance (POST /auth/token/); the handler is given the token's staff key",
  },
  api_key: { type: 'apiKey', in: 'header', name: 'Authorization', description: 'An API key of the instance' },
} as const;

export function pluginOpenApi(row: Pick<PluginSummary, 'name' | 'description' | 'version' | 'routes'>, baseUrl: string): Record<string, unknown> {
  let routes: PluginSurface['routes'] = [];
  try {
    const parsed = JSON.parse(row.routes) as unknown;
    if (Array.isArray(parsed)) routes = parsed as PluginSurface['routes'];
  } catch {
    // none
  }
  const paths: Record<string, Record<string, unknown>> = {};
  const schemes: Record<string, unknown> = {};
  for (const r of routes) {
    // OpenAPI writes a parameter {key}; Charta's patterns write :key.
    const path = r.path.replace(/:([A-Za-z_][A-Za-z0-9_]*)/g, '{$1}');
    const params = [...r.path.matchAll(/:([A-Za-z_][A-Za-z0-9_]*)/g)].map((m) => ({ name: m[1], in: 'path', required: true, schema: { type: 'string' } }));
    let security: unknown[] = [];
    if (r.auth === 'staff' || r.auth === 'api_key') {
      schemes[r.auth] = SECURITY[r.auth];
      security = [{ [r.auth]: [] }];
    } else if (r.auth === 'secret' && r.signatureHeader !== null) {
      const name = `signature_${r.signatureHeader.replace(/[^a-z0-9]/g, '_')}`;
      schemes[name] = { type: 'apiKey', in: 'header', name: r.signatureHeader, description: 'Checked by the plugin against one of its secrets' };
      security = [{ [name]: [] }];
    }
    const operation: Record<string, unknown> = {
      summary: r.summary ?? `${r.method} ${r.path}`,
      operationId: `${r.method.toLowerCase()}${path.replace(/[^A-Za-z0-9]+/g, '_')}`,
      security,
      ...(r.auth === 'public' ? { 'x-public': true } : {}),
      ...(params.length > 0 ? { parameters: params } : {}),
      ...(r.request_schema === undefined ? {} : { requestBody: { content: { 'application/json': { schema: r.request_schema } } } }),
      responses: {
        '200': {
          description: "The handler's answer",
          ...(r.response_schema === undefined ? {} : { content: { 'application/json': { schema: r.response_schema } } }),
        },
        '4XX': { description: 'A problem (application/problem+json)' },
        '502': { description: 'plugin_failed: the handler threw, timed out, ran out of memory or answered a response that cannot be sent' },
      },
    };
    paths[path] = { ...(paths[path] ?? {}), [r.method.toLowerCase()]: operation };
  }
  return {
    openapi: '3.0.3',
    info: { title: `Plugin ${row.name}`, version: row.version, description: row.description },
    servers: [{ url: `${baseUrl}${PLUGIN_ROUTE_PREFIX}${row.name}` }],
    paths,
    components: { securitySchemes: schemes },
  };
}
