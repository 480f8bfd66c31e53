// GET /metrics (docs/api.md, "Metrics"; docs/operations.md, "Monitoring"), as one Fastify plugin:
// the process's metrics in the Prometheus text format, never public. It takes an API key with the
// admin scope, or the operator's metrics token (CHARTA_METRICS_TOKEN, docs/configuration.md) as
// `Authorization: Bearer <token>`, compared by its SHA-256 digest in constant time; no header or a
// credential that is neither is 401, any other credential (a clinical client's token) 403. The
// route checks the header itself (`ownCredentials`, auth/hook.ts): the metrics token is no API key.
// `recordRequests` is the one hook that counts every answer, set on the root by app.ts.
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { parseAuthorization } from '../auth/authenticate.ts';
import { ADMIN_SCOPE } from '../auth/admin.ts';
import { problem } from '../http/problem.ts';
import { problemResponses } from '../http/schemas.ts';
import { digest, sameDigest } from '../lib/secrets.ts';
import { UNMATCHED_ROUTE, type Metrics } from './registry.ts';

export const METRICS_PATH = '/metrics';

export interface MetricsOptions {
  metrics: Metrics;
  /** SHA-256 of CHARTA_METRICS_TOKEN (config.ts), if the operator set one. */
  tokenHash: string | undefined;
}

/** Counts every answer by its route's pattern (never its URL) and status, in O(1): an onResponse hook on the root. */
export function recordRequests(app: FastifyInstance, metrics: Metrics): void {
  app.addHook('onResponse', (request, reply, done) => {
    metrics.request(request.method, request.routeOptions.url ?? UNMATCHED_ROUTE, reply.statusCode, reply.elapsedTime / 1000);
    done();
  });
}

export async function metricsRoutes(parent: FastifyInstance, { metrics, tokenHash }: MetricsOptions) {
  const app = parent.withTypeProvider<TypeBoxTypeProvider>();
  /** Resolves when the header may read the metrics; the 401 or 403 problem otherwise. */
  const authorize = async (authorization: string | undefined): Promise<void> => {
    const secret = parseAuthorization(authorization);
    if (tokenHash !== undefined && secret !== undefined && sameDigest(digest(secret), tokenHash)) return;
    // Not the metrics token: an API key or a token, resolved as on every route (401 when neither).
    const principal = await app.verifyCredentials(authorization ?? '');
    if (principal.kind !== 'api_key' || !principal.scopes.includes(ADMIN_SCOPE))
      throw problem('forbidden', { detail: `The metrics take an API key with the scope ${ADMIN_SCOPE}, or the metrics token (CHARTA_METRICS_TOKEN)` });
  };
  app.get(METRICS_PATH, {
    config: { ownCredentials: true },
    schema: {
      tags: ['Monitoring'],
      security: [{ apiKey: [] }, { metricsToken: [] }],
      summary: 'Metrics in the Prometheus text format (an admin API key or the metrics token)',
      description:
        'The metrics of the process that answers (under `--workers`, of every worker, each labelled `worker`): requests, database pools, ' +
        'the group commit, the plugin outbox and calls, the log stream, process memory and event-loop delay (docs/operations.md, "Monitoring"). ' +
        'Takes an API key with the scope `admin`, or `Authorization: Bearer <CHARTA_METRICS_TOKEN>`; 401 without either, 403 for other credentials.',
      response: {
        200: { description: 'The Prometheus text exposition format, version 0.0.4', content: { 'text/plain': { schema: { type: 'string' } } } },
        ...problemResponses(401, 403),
      },
    },
    handler: async (request, reply) => {
      await authorize(request.headers.authorization);
      const text = await metrics.gather();
      return reply.type(metrics.contentType).send(text);
    },
  });
}
