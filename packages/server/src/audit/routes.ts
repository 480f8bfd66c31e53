// The audit trail's route (docs/operations.md, "Audit trail"): GET /core/api/v1/audit/, an API key
// with the admin scope. There is no route that changes or removes a row: the trail is append-only
// (and the database refuses UPDATE and DELETE on it, migration 001).
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { AuditEntrySchema, AuditPageSchema, AuditQuery } from '@charta/api';
import { baseUrlOf, ctxOf, type FeatureOptions } from '../http/request.ts';
import { problemResponses as problems } from '../http/schemas.ts';
import { listAuditEntries } from './list.ts';

const PATH = '/core/api/v1/audit/';

export async function auditRoutes(parent: FastifyInstance, { storage, publicUrl }: FeatureOptions) {
  const app = parent.withTypeProvider<TypeBoxTypeProvider>();
  app.addSchema(AuditEntrySchema);
  app.addSchema(AuditPageSchema);
  app.get(PATH, {
    schema: {
      tags: ['Audit trail'],
      security: [{ apiKey: [] }],
      summary: 'The audit trail, newest first: every write, and every read of patient data by a client or a plugin',
      querystring: AuditQuery,
      response: { 200: Type.Ref('AuditPage'), ...problems(400, 401, 403) },
    },
    handler: async (request) => {
      const page = await listAuditEntries(ctxOf(request, storage), request.query);
      const next = new URLSearchParams();
      for (const [name, value] of Object.entries(request.query)) if (name !== 'before' && value !== undefined) next.set(name, String(value));
      if (page.before !== null) next.set('before', String(page.before));
      return { next: page.before === null ? null : `${baseUrlOf(request, publicUrl)}${PATH}?${next}`, results: page.results };
    },
  });
}
