// GET /healthz and GET /readyz (docs/api.md, "Health"), as one Fastify plugin: public probes for a
// process manager or a load balancer. /healthz says the process answers and never touches the
// database; /readyz says the database answers a query too, and is 503 (database_unavailable,
// Retry-After) otherwise.
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FeatureOptions } from '../http/request.ts';
import { getSetting } from '../storage/settings-repository.ts';
import { problemResponses } from '../http/schemas.ts';
import { HealthStatus, PUBLIC } from '@charta/api';

export async function healthRoutes(parent: FastifyInstance, { storage }: FeatureOptions) {
  const app = parent.withTypeProvider<TypeBoxTypeProvider>();
  app.get('/healthz', {
    config: { public: true, database: false },
    schema: { tags: ['Health'], security: PUBLIC, summary: 'Liveness: the process answers (no database query)', response: { 200: HealthStatus } },
    handler: async () => ({ status: 'ok' as const }),
  });
  app.get('/readyz', {
    config: { public: true },
    schema: {
      tags: ['Health'],
      security: PUBLIC,
      summary: 'Readiness: the database answers a query',
      description: '200 when a query on the database answers; 503 `database_unavailable` with `Retry-After` otherwise.',
      response: { 200: HealthStatus, 503: { ...problemResponses(503)[503], description: 'The database does not answer' } },
    },
    handler: async () => {
      // A real read of a table (on SQLite too, where `SELECT 1` would not touch the file); a
      // fault reaches the error handler as a storage fault: 503 database_unavailable.
      await getSetting(storage.reader, 'readiness');
      return { status: 'ok' as const };
    },
  });
}
