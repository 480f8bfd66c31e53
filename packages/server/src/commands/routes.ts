// The nine Commands API endpoints, as one Fastify plugin: HTTP in, operation call, HTTP out.
// No rules live here.
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { problem, invalid } from '../http/problem.ts';
import { baseUrlOf, ctxOf, expectEmptyBody, idempotencyOf, requireBody, type FeatureOptions } from '../http/request.ts';
import { pageBody, pageOf } from '../http/pagination.ts';
import { problemResponses as problems } from '../http/schemas.ts';
import { EmptyBody } from '@charta/api';
import { UUID_RE } from '../lib/ids.ts';
import {
  AutocompleteParams,
  AutocompleteQuery,
  CommandParams as params,
  commandComponents,
  CreateCommandForm,
  CreateCommandHeaders,
  CreateCommandJson,
  IfMatchHeaders,
  ListCommandsQuery,
  PatchCommandJson,
  TransitionHeaders,
  type CreateCommandBody,
  type CreateCommandFormBody,
} from '@charta/api';
import { ifMatchOf, sendCommand, sendCommandPage } from './reply.ts';
import { createCommand } from './create.ts';
import { getCommand } from './get.ts';
import { listCommands } from './list.ts';
import { updateCommand } from './update.ts';
import { deleteCommand } from './delete.ts';
import { commitCommand } from './commit.ts';
import { enterInError } from './enter-in-error.ts';
import { autocomplete, commandFields } from './fields.ts';
import { READ_AUDITS } from '../audit/read-routes.ts';

const BASE = '/core/api/v1/commands';
const tags = ['Commands'];
const security = [{ bearer: [] }];
const ref = (id: string) => Type.Ref(id);

/** A path uuid that cannot name a command is simply not found (the spec's 404). */
function commandUuid(raw: string): string {
  const uuid = raw.toLowerCase();
  if (!UUID_RE.test(uuid)) throw problem('command_not_found');
  return uuid;
}

export async function commandRoutes(parent: FastifyInstance, { storage, publicUrl, listCountCap }: FeatureOptions) {
  const app = parent.withTypeProvider<TypeBoxTypeProvider>();
  for (const schema of commandComponents) app.addSchema(schema);

  app.get('/core/api/v1/commands', {
    schema: { tags, security, summary: 'List commands', querystring: ListCommandsQuery, response: { 200: ref('CommandPage'), ...problems(400, 401, 403) } },
    config: { auditRead: READ_AUDITS.commands },
    handler: async (request, reply) => {
      const { limit, offset, ...filters } = request.query;
      const list = await listCommands(ctxOf(request, storage), filters, pageOf({ limit, offset }), listCountCap);
      return sendCommandPage(reply, pageBody(baseUrlOf(request, publicUrl), BASE, request.query, list));
    },
  });

  app.post('/core/api/v1/commands/', {
    schema: {
      tags,
      security,
      summary: 'Create a staged command in a note',
      headers: CreateCommandHeaders,
      body: { content: { 'application/json': { schema: CreateCommandJson }, 'application/x-www-form-urlencoded': { schema: CreateCommandForm } } },
      response: { 201: ref('Command'), ...problems(400, 401, 403, 413, 415, 422) },
    },
    handler: async (request, reply) => {
      // The body schema depends on the content type, so the type provider cannot type it.
      const body = requireBody<CreateCommandBody | CreateCommandFormBody>(request);
      const values = typeof body.values === 'string' ? parseFormValues(body.values) : body.values;
      const outcome = await createCommand(ctxOf(request, storage), { ...body, values }, idempotencyOf(request));
      return sendCommand(reply, outcome);
    },
  });

  app.get(`${BASE}/:uuid`, {
    schema: { tags, security, summary: 'Read a command', params, response: { 200: ref('Command'), ...problems(401, 403, 404) } },
    config: { auditRead: READ_AUDITS.command },
    handler: async (request, reply) => {
      const view = await getCommand(ctxOf(request, storage), commandUuid(request.params.uuid));
      return sendCommand(reply, { status: 200, body: view });
    },
  });

  app.patch(`${BASE}/:uuid/`, {
    schema: {
      tags,
      security,
      summary: 'Change field values of a staged command',
      params,
      headers: IfMatchHeaders,
      body: PatchCommandJson,
      response: { 200: ref('Command'), ...problems(400, 401, 403, 404, 412, 413, 415) },
    },
    handler: async (request, reply) => {
      const uuid = commandUuid(request.params.uuid);
      const outcome = await updateCommand(ctxOf(request, storage), uuid, request.body.values, { ifMatch: ifMatchOf(request) });
      return sendCommand(reply, outcome);
    },
  });

  app.delete(`${BASE}/:uuid/`, {
    schema: {
      tags,
      security,
      summary: 'Delete a staged command',
      params,
      headers: IfMatchHeaders,
      response: { 200: EmptyBody('Empty body'), ...problems(400, 401, 403, 404, 412) },
    },
    handler: async (request, reply) => {
      const uuid = commandUuid(request.params.uuid);
      await deleteCommand(ctxOf(request, storage), uuid, { ifMatch: ifMatchOf(request) });
      return reply.code(200).send();
    },
  });

  // Commit and enter-in-error: a state change with no body, If-Match and Idempotency-Key honoured.
  const transitions = [
    { path: 'commit', summary: 'Commit a staged command', operation: commitCommand },
    { path: 'enter-in-error', summary: 'Mark a committed command entered in error', operation: enterInError },
  ] as const;
  for (const { path, summary, operation } of transitions) {
    app.post(`${BASE}/:uuid/${path}/`, {
      schema: { tags, security, summary, params, headers: TransitionHeaders, response: { 200: ref('Command'), ...problems(400, 401, 403, 404, 412, 422) } },
      handler: async (request, reply) => {
        const uuid = commandUuid(request.params.uuid);
        expectEmptyBody(request);
        return sendCommand(reply, await operation(ctxOf(request, storage), uuid, { ifMatch: ifMatchOf(request) }, idempotencyOf(request)));
      },
    });
  }

  app.get(`${BASE}/:uuid/fields/`, {
    schema: { tags, security, summary: "The fields of the command's kind", params, response: { 200: ref('Fields'), ...problems(401, 403, 404) } },
    handler: async (request) => commandFields(ctxOf(request, storage), commandUuid(request.params.uuid)),
  });

  app.get(`${BASE}/:uuid/fields/:field/autocomplete/`, {
    schema: {
      tags,
      security,
      summary: 'Options for an autocomplete field',
      params: AutocompleteParams,
      querystring: AutocompleteQuery,
      response: { 200: Type.Array(ref('AutocompleteOption')), ...problems(400, 401, 403, 404) },
    },
    handler: async (request) => {
      const { uuid, field } = request.params;
      const { search_term, limit } = request.query;
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
