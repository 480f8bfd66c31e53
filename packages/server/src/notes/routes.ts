// Notes API routes, as one Fastify plugin.
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { baseUrlOf, ctxOf, expectEmptyBody, type FeatureOptions } from '../http/request.ts';
import { pageBody, pageOf } from '../http/pagination.ts';
import { problemResponses as problems } from '../http/schemas.ts';
import { CreateNoteBody, ListNotesQuery, NoteParams as params, noteComponents } from '@charta/api';
import { createNote } from './create.ts';
import { getNote } from './get.ts';
import { listNotes } from './list.ts';
import { changeNote } from './change.ts';
import { READ_AUDITS } from '../audit/read-routes.ts';

const tags = ['Notes'];
const security = [{ bearer: [] }];
const note = Type.Ref('Note');

export async function noteRoutes(parent: FastifyInstance, { storage, publicUrl, listCountCap }: FeatureOptions) {
  const app = parent.withTypeProvider<TypeBoxTypeProvider>();
  for (const schema of noteComponents) app.addSchema(schema);

  app.post('/core/api/v1/notes/', {
    schema: { tags, security, summary: 'Create a note for a patient', body: CreateNoteBody, response: { 201: note, ...problems(400, 401, 403, 413, 415) } },
    handler: async (request, reply) => {
      const outcome = await createNote(ctxOf(request, storage), request.body);
      return reply.code(201).send(outcome.body);
    },
  });
  app.get('/core/api/v1/notes', {
    schema: {
      tags,
      security,
      summary: 'List notes',
      querystring: ListNotesQuery,
      response: { 200: Type.Ref('NotePage'), ...problems(400, 401, 403) },
    },
    config: { auditRead: READ_AUDITS.notes },
    handler: async (request) => {
      const query = request.query;
      const list = await listNotes(ctxOf(request, storage), query, pageOf(query), listCountCap);
      return pageBody(baseUrlOf(request, publicUrl), '/core/api/v1/notes', query, list);
    },
  });
  app.get('/core/api/v1/notes/:uuid', {
    schema: { tags, security, summary: 'Read a note', params, response: { 200: note, ...problems(401, 403, 404) } },
    config: { auditRead: READ_AUDITS.note },
    handler: async (request) => getNote(ctxOf(request, storage), request.params.uuid),
  });
  for (const change of ['lock', 'unlock'] as const) {
    app.post(`/core/api/v1/notes/:uuid/${change}/`, {
      schema: { tags, security, summary: `${change === 'lock' ? 'Lock' : 'Unlock'} a note`, params, response: { 200: note, ...problems(400, 401, 403, 404) } },
      handler: async (request) => {
        expectEmptyBody(request);
        return (await changeNote(ctxOf(request, storage), request.params.uuid, change)).body;
      },
    });
  }
  app.delete('/core/api/v1/notes/:uuid/', {
    schema: {
      tags,
      security,
      summary: 'Delete a note (soft: it stays readable, marked deleted)',
      params,
      response: { 200: note, ...problems(400, 401, 403, 404) },
    },
    handler: async (request) => (await changeNote(ctxOf(request, storage), request.params.uuid, 'delete')).body,
  });
}
