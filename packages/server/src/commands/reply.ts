// A command's ETag on the wire (docs/api.md, ETag, If-Match and 412): replies carry it, If-Match sends it back.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { etagOf } from './representation.ts';

/** The If-Match header, when sent once. */
export function ifMatchOf(request: FastifyRequest): string | undefined {
  const value = request.headers['if-match'];
  return typeof value === 'string' ? value : undefined;
}

/** Sends a command (or a replayed outcome) with its ETag. */
export function sendCommand(reply: FastifyReply, outcome: { status: number; body: { uuid: string; updated_at: string } | null; replayed?: boolean }) {
  if (outcome.body !== null) reply.header('etag', etagOf(outcome.body));
  if (outcome.replayed) reply.header('idempotent-replayed', 'true');
  return reply.code(outcome.status).send(outcome.body ?? '');
}
