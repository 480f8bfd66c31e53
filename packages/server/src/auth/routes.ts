// POST /auth/token/ (public: it is where credentials are exchanged), as one Fastify plugin.
import type { FastifyInstance } from 'fastify';
import rateLimit from '@fastify/rate-limit';
import { problemResponses } from '../http/schemas.ts';
import { requireBody, type FeatureOptions } from '../http/request.ts';
import { TokenRequestBody, TokenSchema } from '@charta/api';
import { issueToken, type TokenRequest } from './token.ts';

export async function authRoutes(app: FastifyInstance, { storage, tokenRateLimit: perMinute }: FeatureOptions & { tokenRateLimit: number }) {
  // Only routes that ask for a limit (route config `rateLimit`) get one.
  await app.register(rateLimit, { global: false });
  app.post('/auth/token/', {
    // Client secrets are checked with scrypt; the limit keeps guessing slow from any one address.
    config: { public: true, oauthErrors: true, rateLimit: { max: perMinute, timeWindow: '1 minute' } },
    schema: {
      tags: ['Auth'],
      summary: 'OAuth 2.0 client credentials grant',
      description: 'Form-encoded (or JSON) grant_type=client_credentials, client_id, client_secret; HTTP Basic client authentication also works.',
      body: { content: { 'application/x-www-form-urlencoded': { schema: TokenRequestBody }, 'application/json': { schema: TokenRequestBody } } },
      response: { 200: TokenSchema, ...problemResponses(400, 401, 403, 413, 415, 429) },
    },
    // The body schema depends on the content type, so the type provider cannot type it.
    handler: async (request, reply) => {
      reply.header('cache-control', 'no-store');
      return issueToken(storage, requireBody<TokenRequest>(request), basicAuth(request.headers.authorization));
    },
  });
}

function basicAuth(header: string | undefined): { id: string; secret: string } | undefined {
  const m = header && /^basic\s+([A-Za-z0-9+/=]+)$/i.exec(header.trim());
  if (!m) return undefined;
  const decoded = Buffer.from(m[1]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return undefined;
  try {
    const id = decodeURIComponent(decoded.slice(0, colon));
    const secret = decodeURIComponent(decoded.slice(colon + 1));
    return id.includes('\u0000') || secret.includes('\u0000') ? undefined : { id, secret };
  } catch {
    return undefined;
  }
}
