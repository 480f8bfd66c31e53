// Commands on the wire: a command's ETag (docs/api.md, ETag, If-Match and 412), which replies carry
// and If-Match sends back, and the JSON of a command or a page written from its stored data.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { commandJson, commandPageJson, etagOf, isStoredView, type CommandView } from './representation.ts';

// Fastify sets this itself only when it serializes; with a reply's own serializer it is said here.
const JSON_TYPE = 'application/json; charset=utf-8';

/** The If-Match header, when sent once. */
export function ifMatchOf(request: FastifyRequest): string | undefined {
  const value = request.headers['if-match'];
  return typeof value === 'string' ? value : undefined;
}

/** Sends a command (or a replayed outcome) with its ETag. */
export function sendCommand(reply: FastifyReply, outcome: { status: number; body: { uuid: string; updated_at: string } | null; replayed?: boolean }) {
  if (outcome.body !== null) reply.header('etag', etagOf(outcome.body));
  if (outcome.replayed) reply.header('idempotent-replayed', 'true');
  // A fresh view sends its stored data as it is; a replayed body goes through the schema.
  if (isStoredView(outcome.body)) reply.type(JSON_TYPE).serializer(commandJson);
  return reply.code(outcome.status).send(outcome.body ?? '');
}

/** Sends a page of commands, each written from its stored data (commandPageJson). */
export function sendCommandPage<P extends { results: CommandView[] }>(reply: FastifyReply, page: P) {
  return reply.type(JSON_TYPE).serializer(commandPageJson).send(page);
}
