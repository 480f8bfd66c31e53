// Admin API of the reference data, under /core/api/v1/admin/, as one Fastify plugin: for each
// catalogue of catalogues.ts, POST creates an entry and GET lists them (one page at a time,
// http/pagination.ts). API key with the `admin` scope only (auth/admin.ts). The bodies are in schemas.ts.
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type, type Static } from '@sinclair/typebox';
import { baseUrlOf, ctxOf, type FeatureOptions } from '../http/request.ts';
import { pageBody, pageOf } from '../http/pagination.ts';
import { PageQuery } from '@charta/api';
import { problemResponses as problems } from '../http/schemas.ts';
import { PageOf } from '@charta/api';
import { CATALOGUES } from './catalogues.ts';
import { createEntry } from './create-entry.ts';
import { listEntries } from './list-entries.ts';
import { PartnerParams } from '@charta/api';

const BASE = '/core/api/v1/admin';
const tags = ['Reference data'];
const security: Array<Record<string, string[]>> = [{ apiKey: [] }];
const NoParams = Type.Object({});

export async function referenceRoutes(parent: FastifyInstance, { storage, publicUrl }: FeatureOptions) {
  const app = parent.withTypeProvider<TypeBoxTypeProvider>();
  for (const catalogue of CATALOGUES) {
    const nested = catalogue.parent !== undefined;
    const params = nested ? PartnerParams : NoParams;
    // A parent's id is taken in any case, as the database stores it: lower case.
    const parentOf = (p: Partial<Static<typeof PartnerParams>>) => p.id?.toLowerCase();
    app.post<{ Params: Partial<Static<typeof PartnerParams>> }>(`${BASE}${catalogue.path}`, {
      schema: {
        tags,
        security,
        summary: `Add ${catalogue.what}`,
        ...(nested ? { params } : {}),
        body: catalogue.body,
        response: { 201: catalogue.item, ...problems(400, 401, 403, ...(nested ? [404] : []), 409, 415) },
      },
      handler: async (request, reply) => reply.code(201).send(await createEntry(ctxOf(request, storage), catalogue, request.body, parentOf(request.params))),
    });
    app.get<{ Params: Partial<Static<typeof PartnerParams>>; Querystring: Static<typeof PageQuery> }>(`${BASE}${catalogue.path}`, {
      schema: {
        tags,
        security,
        summary: `List ${catalogue.what}`,
        ...(nested ? { params } : {}),
        querystring: PageQuery,
        response: { 200: PageOf(catalogue.item), ...problems(400, 401, 403, ...(nested ? [404] : [])) },
      },
      handler: async (request) => {
        const list = await listEntries(ctxOf(request, storage), catalogue, pageOf(request.query), parentOf(request.params));
        return pageBody(baseUrlOf(request, publicUrl), request.url.split('?', 1)[0]!, request.query, list);
      },
    });
  }
}
