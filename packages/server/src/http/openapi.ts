// The API's OpenAPI 3.1 document (/openapi.json) and its reference page (/docs), both public.
// The document is generated from the route schemas of every feature (docs/api.md).
import type { FastifyInstance } from 'fastify';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';

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
  });
  await app.register(swaggerUi, { routePrefix: '/docs', uiConfig: { docExpansion: 'list' }, uiHooks: {} });
  app.get('/openapi.json', { config: { public: true }, schema: { hide: true } }, async () => app.swagger());
}
