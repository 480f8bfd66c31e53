// The API's OpenAPI 3.1 document (/openapi.json) and its reference page (/docs), both public.
// The document is generated from the route schemas of every feature (docs/api.md).
import type { FastifyInstance } from 'fastify';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import { problemResponses } from './schemas.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route never touches the database (liveness): it documents no database fault. */
    database?: false;
  }
}

export async function registerOpenApi(app: FastifyInstance, version: string): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Charta API',
        version,
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
    // Every API route that uses the database can answer its faults: 503 for any, 507 (full) for
    // a write (docs/api.md, "When the database is away"). Routes documenting their own keep it.
    const response = route.schema?.response as Record<string, unknown> | undefined;
    if (response === undefined || route.config?.database === false) return;
    const methods = [route.method].flat();
    const faults = methods.every((m) => m === 'GET' || m === 'HEAD') ? problemResponses(503) : problemResponses(503, 507);
    route.schema!.response = { ...faults, ...response };
  });
  await app.register(swaggerUi, { routePrefix: '/docs', uiConfig: { docExpansion: 'list' }, uiHooks: {} });
  app.get('/openapi.json', { config: { public: true }, schema: { hide: true } }, async () => app.swagger());
}
