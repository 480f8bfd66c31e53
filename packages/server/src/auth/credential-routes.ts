// The credentials admin API under /core/api/v1/admin/ (docs/api.md, "Credentials"), as one Fastify
// plugin: create, list and revoke API keys and OAuth clients, with an admin API key (credentials.ts).
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { ctxOf, type FeatureOptions } from '../http/request.ts';
import { problemResponses as problems } from '../http/schemas.ts';
import {
  ApiKeyCreateBody,
  ApiKeyCreated,
  ApiKeyList,
  ApiKeyParams,
  ApiKeyView,
  OAuthClientCreateBody,
  OAuthClientCreated,
  OAuthClientList,
  OAuthClientParams,
  OAuthClientView,
  RevokeQuery,
} from '@charta/api';
import {
  createApiKeyOperation,
  createClientOperation,
  listApiKeysOperation,
  listClientsOperation,
  revokeApiKeyOperation,
  revokeClientOperation,
} from './credentials.ts';

const BASE = '/core/api/v1/admin';
const tags = ['Credentials'];
const security: Array<Record<string, string[]>> = [{ apiKey: [] }];

export async function credentialRoutes(parent: FastifyInstance, { storage }: FeatureOptions) {
  const app = parent.withTypeProvider<TypeBoxTypeProvider>();
  app.post(`${BASE}/api-keys/`, {
    schema: {
      tags,
      security,
      summary: 'Create an API key (the key is in this answer only)',
      body: ApiKeyCreateBody,
      response: { 201: ApiKeyCreated, ...problems(400, 401, 403, 415) },
    },
    handler: async (request, reply) => {
      reply.header('cache-control', 'no-store');
      return reply.code(201).send(await createApiKeyOperation(ctxOf(request, storage), request.body));
    },
  });
  app.get(`${BASE}/api-keys/`, {
    schema: { tags, security, summary: 'List the API keys (never their secret)', response: { 200: ApiKeyList, ...problems(401, 403) } },
    handler: async (request) => listApiKeysOperation(ctxOf(request, storage)),
  });
  app.post(`${BASE}/api-keys/:id/revoke/`, {
    schema: {
      tags,
      security,
      summary: 'Revoke an API key: refused from its next request, its log streams closed',
      params: ApiKeyParams,
      querystring: RevokeQuery,
      response: { 200: ApiKeyView, ...problems(400, 401, 403, 404, 409) },
    },
    handler: async (request) => revokeApiKeyOperation(ctxOf(request, storage), request.params.id, request.query.force === true),
  });
  app.post(`${BASE}/oauth-clients/`, {
    schema: {
      tags,
      security,
      summary: 'Create an OAuth client (the secret is in this answer only)',
      body: OAuthClientCreateBody,
      response: { 201: OAuthClientCreated, ...problems(400, 401, 403, 415) },
    },
    handler: async (request, reply) => {
      reply.header('cache-control', 'no-store');
      return reply.code(201).send(await createClientOperation(ctxOf(request, storage), request.body));
    },
  });
  app.get(`${BASE}/oauth-clients/`, {
    schema: { tags, security, summary: 'List the OAuth clients (never their secret)', response: { 200: OAuthClientList, ...problems(401, 403) } },
    handler: async (request) => listClientsOperation(ctxOf(request, storage)),
  });
  app.post(`${BASE}/oauth-clients/:client_id/revoke/`, {
    schema: {
      tags,
      security,
      summary: 'Revoke an OAuth client: its tokens refused from their next request, their streams closed',
      params: OAuthClientParams,
      response: { 200: OAuthClientView, ...problems(401, 403, 404) },
    },
    handler: async (request) => revokeClientOperation(ctxOf(request, storage), request.params.client_id),
  });
}
