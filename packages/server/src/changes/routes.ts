// GET /core/api/v1/changes/ (docs/api.md, "Change stream"): a WebSocket that tells a client, as
// soon as it is committed on any process, that a command or a note of the patient (or the note)
// it follows changed: what changed, how and by whom, never the content (the client reads that
// through the API, under its usual checks). The credentials and scope are the Commands API's: an
// OAuth token with the clinical scope, in the Authorization header or, from a browser, in the
// first message (logs/first-message.ts). It follows the signal channel (signals/), never the log
// stream: the commands and notes operations signal `record-changed` after their commit.
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import websocket from '@fastify/websocket';
import { Type } from '@sinclair/typebox';
import { CLINICAL_SCOPE } from '../auth/acting-staff.ts';
import type { Principal } from '../auth/principal.ts';
import { closeOnRevocation } from '../auth/revocation.ts';
import { problem } from '../http/problem.ts';
import { problemResponses } from '../http/schemas.ts';
import { FirstMessageGate } from '../logs/first-message.ts';
import type { RecordChanged } from '../signals/bus.ts';

export const CHANGES_PATH = '/core/api/v1/changes/';
/** Client → server messages past the first are ignored; larger ones close the socket. */
const MAX_PAYLOAD = 4096;
/** A client that lets this much pile up unread is closed (1013): it reloads what it shows when it comes back. */
const MAX_BUFFERED_BYTES = 256 * 1024;

const ChangesQuery = Type.Object(
  {
    patient_key: Type.String({ pattern: '^[0-9a-f]{32}$', description: 'The patient whose commands and notes to follow' }),
    note_key: Type.Optional(
      Type.String({ pattern: '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$', description: 'Only the changes of this note and its commands' }),
    ),
  },
  { additionalProperties: false },
);

/** The message of one change: what the client shows as "changed by …" and reads again. */
export function changeMessage(c: RecordChanged): string {
  return JSON.stringify({ type: 'changed', patient_key: c.patient, note_key: c.note, target: c.target, action: c.action, actor: c.actor });
}

export async function changeRoutes(parent: FastifyInstance) {
  const app = parent.withTypeProvider<TypeBoxTypeProvider>();
  const gate = new FirstMessageGate((token) => app.verifyCredentials(token), { scope: CLINICAL_SCOPE, stream: 'change stream' });
  await app.register(websocket, { options: { maxPayload: MAX_PAYLOAD, perMessageDeflate: false } });
  app.route({
    method: 'GET',
    url: CHANGES_PATH,
    schema: {
      tags: ['Commands'],
      security: [{ bearer: [] }],
      summary: "Change stream of a patient's commands and notes (WebSocket upgrade; one JSON message per change)",
      description:
        `Connect with a WebSocket; an OAuth bearer token with the scope ${CLINICAL_SCOPE} in the Authorization header or, without that header, ` +
        'in the first message: `{"type":"auth","token":"<token>"}` within 5 seconds, answered by `{"type":"ready"}` (or a close code: 4400, 4401, 4403, 4408, 4413). ' +
        'Each message is then `{"type":"changed","patient_key","note_key","target":{"type":"command"|"note","id"},"action","actor"}`, sent once the change is committed on any process.',
      querystring: ChangesQuery,
      response: {
        101: Type.Null({ description: 'Switching protocols: the stream follows' }),
        ...problemResponses(400, 401, 403),
        426: { ...problemResponses(426)[426], description: 'Not a WebSocket upgrade request' },
      },
    },
    config: { firstMessageAuth: true },
    preHandler: (request, _reply, done) => {
      if (request.principal !== null && !request.principal.scopes.includes(CLINICAL_SCOPE)) {
        return done(problem('forbidden', { detail: `The change stream needs an OAuth token with the scope ${CLINICAL_SCOPE}` }));
      }
      done();
    },
    handler: async () => {
      throw problem('upgrade_required');
    },
    wsHandler: (socket, request) => {
      const { patient_key: patient, note_key: note } = request.query;
      socket.on('message', () => undefined);
      const streams = request.server.streams;
      if (!streams.admit(socket)) return;
      const follow = (principal: Principal) => {
        if (!streams.follow(socket, principal)) return;
        closeOnRevocation(request.server.signals, socket, principal);
        const unsubscribe = request.server.signals.subscribe((signal) => {
          if (signal.type !== 'record-changed' || signal.patient !== patient || (note !== undefined && signal.note !== note)) return;
          if (socket.bufferedAmount > MAX_BUFFERED_BYTES) return socket.close(1013, 'Too slow: reconnect and read again');
          socket.send(changeMessage(signal));
        });
        socket.on('close', unsubscribe);
      };
      if (request.principal !== null) follow(request.principal);
      else gate.admit(socket, follow);
    },
  });
}
