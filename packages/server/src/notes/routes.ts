// Notes API routes.
import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import type { Storage } from '../storage/db.ts';
import { baseUrlOf, ctxOf, expectEmptyBody } from '../http/request.ts';
import { pageLinks } from '../http/pagination.ts';
import { CreateNoteBody, problemResponses as problems, type CreateNote } from '../http/schemas.ts';
import { createNote } from './create.ts';
import { getNote } from './get.ts';
import { listNotes } from './list.ts';
import { changeNote } from './change.ts';

const tags = ['Notes'];
const security = [{ bearer: [] }];
const params = Type.Object({ uuid: Type.String({ description: 'Note UUID' }) });
const note = Type.Ref('Note');

export function noteRoutes(app: FastifyInstance, storage: Storage, publicUrl: string | undefined) {
  app.post('/core/api/v1/notes/', {
    schema: { tags, security, summary: 'Create a note for a patient', body: CreateNoteBody, response: { 201: note, ...problems(400, 401, 403, 413, 415) } },
    handler: async (request, reply) => {
      const outcome = await createNote(ctxOf(request, storage), request.body as CreateNote);
      return reply.code(201).send(outcome.body);
    },
  });
  app.get('/core/api/v1/notes', {
    schema: {
      tags,
      security,
      summary: 'List notes',
      querystring: Type.Object(
        {
          patient_key: Type.Optional(Type.String({ maxLength: 64 })),
          deleted: Type.Optional(Type.String({ maxLength: 5, description: 'true: only deleted notes; false: only notes not deleted; absent: both' })),
          limit: Type.Optional(Type.String({ pattern: '^\\d+$' })),
          offset: Type.Optional(Type.String({ pattern: '^\\d+$' })),
        },
        { additionalProperties: false },
      ),
      response: { 200: Type.Ref('NotePage'), ...problems(400, 401, 403) },
    },
    handler: async (request) => {
      const query = request.query as Record<string, string>;
      const { page, count, results } = await listNotes(ctxOf(request, storage), query);
      return { count, ...pageLinks(baseUrlOf(request, publicUrl), '/core/api/v1/notes', query, page, count), results };
    },
  });
  app.get('/core/api/v1/notes/:uuid', {
    schema: { tags, security, summary: 'Read a note', params, response: { 200: note, ...problems(401, 403, 404) } },
    handler: async (request) => getNote(ctxOf(request, storage), (request.params as { uuid: string }).uuid),
  });
  for (const change of ['lock', 'unlock'] as const) {
    app.post(`/core/api/v1/notes/:uuid/${change}/`, {
      schema: { tags, security, summary: `${change === 'lock' ? 'Lock' : 'Unlock'} a note`, params, response: { 200: note, ...problems(400, 401, 403, 404) } },
      handler: async (request) => {
        expectEmptyBody(request);
        return (await changeNote(ctxOf(request, storage), (request.params as { uuid: string }).uuid, change)).body;
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
    handler: async (request) => (await changeNote(ctxOf(request, storage), (request.params as { uuid: string }).uuid, 'delete')).body,
  });
}
