// The nine Commands API endpoints: HTTP in, operation call, HTTP out. No rules live here.
import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import type { Storage } from '../storage/db.ts';
import { problem, invalid } from '../http/problem.ts';
import { baseUrlOf, ctxOf, expectEmptyBody, idempotencyOf, ifMatchOf, requireBody, sendCommand } from '../http/request.ts';
import { pageLinks } from '../http/pagination.ts';
import { UUID_RE } from '../lib/ids.ts';
import { CreateCommandForm, CreateCommandJson, PatchCommandJson, problemResponses, type CreateCommandBody, type PatchCommandBody } from '../http/schemas.ts';
import { createCommand } from './create.ts';
import { getCommand } from './get.ts';
import { listCommands, LIST_FILTERS, ORDERINGS, TIME_FILTERS } from './list.ts';
import { updateCommand } from './update.ts';
import { deleteCommand } from './delete.ts';
import { commitCommand } from './commit.ts';
import { enterInError } from './enter-in-error.ts';
import { autocomplete, commandFields } from './fields.ts';
import { MAX_SEARCH_TERM } from '../terminology/normalize.ts';

const BASE = '/core/api/v1/commands';
const tags = ['Commands'];
const security = [{ bearer: [] }];
const ref = (id: string) => Type.Ref(id);
const problems = problemResponses;
const params = Type.Object({ uuid: Type.String({ description: 'Command UUID' }) });
const ifMatch = Type.Object({ 'if-match': Type.Optional(Type.String({ description: 'ETag from a previous response; 412 if the command changed since' })) });
const withIdempotency = Type.Object({
  'if-match': Type.Optional(Type.String({ description: 'ETag from a previous response; 412 if the command changed since' })),
  'idempotency-key': Type.Optional(Type.String({ description: 'Replays the first response to a repeated request' })),
});

const listQuery = Type.Object(
  Object.fromEntries([
    ...[...LIST_FILTERS, ...TIME_FILTERS].map((name) => [name, Type.Optional(Type.String({ maxLength: 100 }))]),
    ['ordering', Type.Optional(Type.Union(ORDERINGS.map((o) => Type.Literal(o))))],
    ['limit', Type.Optional(Type.String({ pattern: '^\\d+$', description: '1–1000, default 20' }))],
    ['offset', Type.Optional(Type.String({ pattern: '^\\d+$', description: 'default 0' }))],
  ]),
  { additionalProperties: false },
);

/** A path uuid that cannot name a command is simply not found (the spec's 404). */
function commandUuid(raw: string): string {
  const uuid = raw.toLowerCase();
  if (!UUID_RE.test(uuid)) throw problem('command_not_found');
  return uuid;
}

export function commandRoutes(app: FastifyInstance, storage: Storage, publicUrl: string | undefined) {
  app.get('/core/api/v1/commands', {
    schema: { tags, security, summary: 'List commands', querystring: listQuery, response: { 200: ref('CommandPage'), ...problems(400, 401, 403) } },
    handler: async (request) => {
      const query = request.query as Record<string, string>;
      const { page, count, results } = await listCommands(ctxOf(request, storage), query);
      return { count, ...pageLinks(baseUrlOf(request, publicUrl), BASE, query, page, count), results };
    },
  });

  app.post('/core/api/v1/commands/', {
    schema: {
      tags,
      security,
      summary: 'Create a staged command in a note',
      headers: Type.Object({ 'idempotency-key': Type.Optional(Type.String()) }),
      body: { content: { 'application/json': { schema: CreateCommandJson }, 'application/x-www-form-urlencoded': { schema: CreateCommandForm } } },
      response: { 201: ref('Command'), ...problems(400, 401, 403, 412, 413, 415, 422) },
    },
    handler: async (request, reply) => {
      const body = requireBody<CreateCommandBody | { schemaKey: string; noteKey?: string; values?: string }>(request);
      const values = typeof body.values === 'string' ? parseFormValues(body.values) : body.values;
      const outcome = await createCommand(ctxOf(request, storage), { ...body, values }, idempotencyOf(request));
      return sendCommand(reply, outcome);
    },
  });

  app.get(`${BASE}/:uuid`, {
    schema: { tags, security, summary: 'Read a command', params, response: { 200: ref('Command'), ...problems(401, 403, 404) } },
    handler: async (request, reply) => {
      const view = await getCommand(ctxOf(request, storage), commandUuid((request.params as { uuid: string }).uuid));
      return sendCommand(reply, { status: 200, body: view });
    },
  });

  app.patch(`${BASE}/:uuid/`, {
    schema: {
      tags,
      security,
      summary: 'Change field values of a staged command',
      params,
      headers: ifMatch,
      body: PatchCommandJson,
      response: { 200: ref('Command'), ...problems(400, 401, 403, 404, 412, 413, 415) },
    },
    handler: async (request, reply) => {
      const uuid = commandUuid((request.params as { uuid: string }).uuid);
      const outcome = await updateCommand(ctxOf(request, storage), uuid, (request.body as PatchCommandBody).values, ifMatchOf(request));
      return sendCommand(reply, outcome);
    },
  });

  app.delete(`${BASE}/:uuid/`, {
    schema: {
      tags,
      security,
      summary: 'Delete a staged command',
      params,
      headers: ifMatch,
      response: { 200: Type.Null({ description: 'Empty body' }), ...problems(400, 401, 403, 404, 412) },
    },
    handler: async (request, reply) => {
      const uuid = commandUuid((request.params as { uuid: string }).uuid);
      await deleteCommand(ctxOf(request, storage), uuid, ifMatchOf(request));
      return reply.code(200).send();
    },
  });

  app.post(`${BASE}/:uuid/commit/`, {
    schema: {
      tags,
      security,
      summary: 'Commit a staged command',
      params,
      headers: withIdempotency,
      response: { 200: ref('Command'), ...problems(400, 401, 403, 404, 412, 422) },
    },
    handler: async (request, reply) => {
      const uuid = commandUuid((request.params as { uuid: string }).uuid);
      expectEmptyBody(request);
      return sendCommand(reply, await commitCommand(ctxOf(request, storage), uuid, ifMatchOf(request), idempotencyOf(request)));
    },
  });

  app.post(`${BASE}/:uuid/enter-in-error/`, {
    schema: {
      tags,
      security,
      summary: 'Mark a committed command entered in error',
      params,
      headers: withIdempotency,
      response: { 200: ref('Command'), ...problems(400, 401, 403, 404, 412, 422) },
    },
    handler: async (request, reply) => {
      const uuid = commandUuid((request.params as { uuid: string }).uuid);
      expectEmptyBody(request);
      return sendCommand(reply, await enterInError(ctxOf(request, storage), uuid, ifMatchOf(request), idempotencyOf(request)));
    },
  });

  app.get(`${BASE}/:uuid/fields/`, {
    schema: { tags, security, summary: "The fields of the command's kind", params, response: { 200: ref('Fields'), ...problems(401, 403, 404) } },
    handler: async (request) => commandFields(ctxOf(request, storage), commandUuid((request.params as { uuid: string }).uuid)),
  });

  app.get(`${BASE}/:uuid/fields/:field/autocomplete/`, {
    schema: {
      tags,
      security,
      summary: 'Options for an autocomplete field',
      params: Type.Object({ uuid: Type.String(), field: Type.String({ maxLength: 100 }) }),
      querystring: Type.Object(
        {
          search_term: Type.Optional(Type.String({ maxLength: MAX_SEARCH_TERM })),
          limit: Type.Optional(Type.String({ pattern: '^\\d+$', description: '1–100, default 20' })),
        },
        { additionalProperties: false },
      ),
      response: { 200: Type.Array(ref('AutocompleteOption')), ...problems(400, 401, 403, 404) },
    },
    handler: async (request) => {
      const { uuid, field } = request.params as { uuid: string; field: string };
      const { search_term, limit } = request.query as { search_term?: string; limit?: string };
      return autocomplete(ctxOf(request, storage), commandUuid(uuid), field, search_term ?? '', limit);
    },
  });
}

/** Form-encoded create sends `values` as a JSON string. */
function parseFormValues(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw invalid([{ field: 'values', message: 'must be a JSON object' }]);
  }
}
