// GET /core/api/v1/logging/ (docs/api.md): the log stream over WebSocket, as one Fastify plugin.
// The upgrade request goes through the usual hooks first, so credentials in the Authorization
// header, scope and query options are checked and refused with a problem (401/403/400) before any
// upgrade. An upgrade without the header (a browser cannot set it) authenticates in its first
// message instead (first-message.ts); credentials are never taken from the URL. A plain GET
// without the upgrade is 426. Other messages from the client are ignored (4 KiB cap).
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import websocket from '@fastify/websocket';
import { Type } from '@sinclair/typebox';
import { PLUGIN_SCOPE, type Principal } from '../auth/principal.ts';
import { closeOnRevocation } from '../auth/revocation.ts';
import { invalid, problem } from '../http/problem.ts';
import { problemResponses } from '../http/schemas.ts';
import { nowMicros, parseTimestampMicros } from '../lib/time.ts';
import { Consumer, DEFAULT_CONSUMER_LIMITS, type ConsumerLimits } from './consumer.ts';
import { FirstMessageGate, type GateOptions } from './first-message.ts';
import { matches, type LogBus, type LogFilter } from './bus.ts';
import { LogRecentPage, LogRecentQuery, LogStreamQuery, type LogStreamOptions } from '@charta/api';
import { normalizePluginName } from '@charta/api/constants';

declare module 'fastify' {
  interface FastifyInstance {
    /** The log stream's bus (per app; relayed between processes on PostgreSQL). */
    logs: LogBus;
  }
}

export const LOGGING_PATH = '/core/api/v1/logging/';
/** The recent entries over plain HTTP, for pages that cannot set a WebSocket's headers (docs/api.md, "Log stream"). */
export const RECENT_LOGS_PATH = '/core/api/v1/logging/recent/';
const DEFAULT_RECENT = 100;
const MAX_RECENT = 1000;
/** Client → server messages are ignored; larger ones close the socket. */
const MAX_PAYLOAD = 4096;
/** How long closing waits for clients to acknowledge before cutting them off. */
const CLOSE_GRACE_MS = 1000;

const UNIT_MICROS: Record<string, number> = { s: 1e6, m: 60e6, h: 3600e6, d: 86_400e6 };

/** `since`: a duration back from now (`30s`, `5m`, `1h`, `2d`) or an ISO 8601 timestamp with zone. */
export function parseSince(text: string, now = nowMicros()): number | undefined {
  const m = /^(\d{1,6})([smhd])$/.exec(text);
  if (m) return now - Number(m[1]) * UNIT_MICROS[m[2]!]!;
  return parseTimestampMicros(text);
}

function filterOf(q: LogStreamOptions): LogFilter {
  const filter: LogFilter = { plugin: q.plugin === undefined ? undefined : normalizePluginName(q.plugin), level: q.level };
  if (q.since !== undefined) {
    const since = parseSince(q.since);
    if (since === undefined)
      throw invalid([{ field: 'querystring.since', message: 'must be a duration (30s, 5m, 1h, 2d) or an ISO 8601 timestamp with zone' }]);
    filter.sinceMicros = since;
  }
  return filter;
}

export async function logRoutes(
  parent: FastifyInstance,
  { limits = DEFAULT_CONSUMER_LIMITS, firstMessage = {} }: { limits?: ConsumerLimits; firstMessage?: GateOptions } = {},
) {
  const app = parent.withTypeProvider<TypeBoxTypeProvider>();
  const bus = app.logs;
  const gate = new FirstMessageGate((token) => app.verifyCredentials(token), firstMessage);
  // The end of upgrade requests answered over HTTP (401, 403, 400, 404…) is http/hooks.ts.
  // Encapsulated (one Fastify plugin): the websocket plugin's hooks wrap only this route, not the whole API.
  await app.register(websocket, {
    options: { maxPayload: MAX_PAYLOAD, perMessageDeflate: false },
    preClose: async function closeSockets() {
      const clients = [...app.websocketServer.clients];
      await Promise.all(
        clients.map(
          (client) =>
            new Promise<void>((resolve) => {
              if (client.readyState === 3) return resolve();
              const timer = setTimeout(() => {
                client.terminate();
                resolve();
              }, CLOSE_GRACE_MS);
              client.on('close', () => {
                clearTimeout(timer);
                resolve();
              });
              client.close(1001, 'server shutting down');
            }),
        ),
      );
    },
  });

  app.get(RECENT_LOGS_PATH, {
    schema: {
      tags: ['Logs'],
      security: [{ apiKey: [] }, { bearer: [] }],
      summary: 'The most recent log entries (the last 1,000 are kept), oldest first',
      querystring: LogRecentQuery,
      response: { 200: LogRecentPage, ...problemResponses(400, 401, 403) },
    },
    handler: async (request) => {
      if (!request.principal?.scopes.includes(PLUGIN_SCOPE)) throw problem('forbidden', { detail: `The log entries need the scope ${PLUGIN_SCOPE}` });
      const { limit: limitAsked, ...options } = request.query;
      const limit = limitAsked ?? DEFAULT_RECENT;
      if (!(limit >= 1 && limit <= MAX_RECENT)) throw invalid([{ field: 'querystring.limit', message: `must be from 1 to ${MAX_RECENT}` }]);
      const filter = filterOf(options);
      const entries = bus.recent(filter).map(({ entry }) => entry);
      return { results: entries.slice(-limit) };
    },
  });

  app.route({
    method: 'GET',
    url: LOGGING_PATH,
    schema: {
      tags: ['Logs'],
      security: [{ apiKey: [] }, { bearer: [] }],
      summary: 'Log stream (WebSocket upgrade; one JSON entry per message)',
      description:
        'Connect with a WebSocket; credentials in the Authorization header (an API key, or a token with the scope system/Plugins.*), ' +
        'or, without that header, in the first message: `{"type":"auth","token":"<API key or token>"}` within 5 seconds, answered by `{"type":"ready"}` ' +
        '(or a close code: 4400 malformed, 4401 unauthorized, 4403 forbidden, 4408 too late, 4413 too large). ' +
        'Each message is then `{"event", "level", "timestamp", "source", "plugin"?, "request_id"?, "handler"?, "event_type"?, "success"?, "fault"?}`.',
      querystring: LogStreamQuery,
      response: {
        101: Type.Null({ description: 'Switching protocols: the stream follows' }),
        ...problemResponses(400, 401, 403),
        426: { ...problemResponses(426)[426], description: 'Not a WebSocket upgrade request' },
      },
    },
    // An upgrade without the Authorization header is let through by auth/hook.ts (principal null): its first message authenticates it.
    config: { firstMessageAuth: true },
    preHandler: (request, _reply, done) => {
      if (request.principal !== null && !request.principal.scopes.includes(PLUGIN_SCOPE))
        return done(problem('forbidden', { detail: `The log stream needs the scope ${PLUGIN_SCOPE}` }));
      try {
        filterOf(request.query);
      } catch (err) {
        return done(err as Error);
      }
      done();
    },
    handler: async () => {
      throw problem('upgrade_required');
    },
    wsHandler: (socket, request) => {
      const filter = filterOf(request.query);
      socket.on('message', () => undefined);
      const streams = request.server.streams;
      if (!streams.admit(socket)) return;
      const follow = (principal: Principal) => {
        if (!streams.follow(socket, principal)) return;
        closeOnRevocation(request.server.signals, socket, principal);
        const consumer = new Consumer(socket, limits, () => bus.dropped());
        // Replay, then follow: both synchronous, so no entry falls between them.
        if (filter.sinceMicros !== undefined) for (const { line } of bus.recent(filter)) consumer.push(line);
        const live: LogFilter = { plugin: filter.plugin, level: filter.level };
        const unsubscribe = bus.subscribe((entry, line) => {
          if (matches(entry, live)) consumer.push(line);
        });
        socket.on('close', unsubscribe);
      };
      if (request.principal !== null) follow(request.principal);
      else gate.admit(socket, follow);
    },
  });
}
