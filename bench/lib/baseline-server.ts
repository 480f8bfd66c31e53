// The baseline: a bare Fastify app (the server's own fastify) with one no-op route, nothing else.
// A second route is the reference point: a primary-key read with better-sqlite3 (a
// prepared statement on the benchmark's seeded SQLite file, opened read-only) behind bare Fastify.
// For the plugin platform: POST /upload reads a multipart upload whole with the server's own
// @fastify/multipart (same limits) and answers 201 — the transfer and parsing an install cannot
// avoid, without inspection or storage; and a bare `ws` server whose emitLogs sends each entry
// (the log stream's JSON shape, serialised once) to every client — the fan-out without Charta's
// bus, per-consumer queues or authentication.
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { WebSocketServer } from 'ws';
import { isoMicros, nowMicros } from '../../packages/server/src/lib/time.ts';
import { DEFAULT_LIMITS } from '../../packages/server/src/inspection/index.ts';
import { serve } from './child.ts';
import { clockMs, fanoutEvent, paced } from './fanout.ts';
import { startProfile, stopProfile } from './profiler.ts';

const serverPackage = path.resolve(import.meta.dirname, '../../packages/server/package.json');
const fastifyEntry = createRequire(serverPackage).resolve('fastify');
const { default: Fastify } = (await import(pathToFileURL(fastifyEntry).href)) as typeof import('fastify');
const multipartEntry = createRequire(serverPackage).resolve('@fastify/multipart');
const { default: multipart } = (await import(pathToFileURL(multipartEntry).href)) as typeof import('@fastify/multipart');

const BetterSqlite3 = createRequire(serverPackage)('better-sqlite3') as typeof import('better-sqlite3');

let byUuid: import('better-sqlite3').Statement | undefined;
const app = Fastify({ logger: false });
app.get('/noop', async () => ({}));
app.get('/pk/:uuid', async (request, reply) => {
  const row = byUuid?.get((request.params as { uuid: string }).uuid);
  return row === undefined ? reply.code(404).send({}) : row;
});
await app.register(async (scope) => {
  await scope.register(multipart, {
    limits: { fileSize: DEFAULT_LIMITS.maxCompressedBytes, files: 2, fields: 5, parts: 8, fieldSize: 1024, headerPairs: 100 },
    throwFileSizeLimit: true,
  });
  scope.post('/upload', async (request, reply) => {
    let size = 0;
    for await (const part of request.parts()) if (part.type === 'file') size += (await part.toBuffer()).length;
    return reply.code(201).send({ size });
  });
});
await app.listen({ host: '127.0.0.1', port: 0 });
const address = app.server.address();
const port = typeof address === 'object' && address ? address.port : 0;

const wss = new WebSocketServer({ host: '127.0.0.1', port: 0, perMessageDeflate: false, maxPayload: 4096 });
await new Promise<void>((resolve) => wss.once('listening', () => resolve()));
const wsPort = (wss.address() as { port: number }).port;
wss.on('connection', (socket) => socket.on('message', () => undefined));

serve({
  url: () => `http://127.0.0.1:${port}`,
  wsUrl: () => `ws://127.0.0.1:${wsPort}/`,
  clock: () => clockMs(),
  emitLogs: ({ rate, seconds, tag }: { rate: number; seconds: number; tag: string }) =>
    paced(rate, seconds, (seq) => {
      const line = JSON.stringify({ event: fanoutEvent(tag, seq), level: 'info', timestamp: isoMicros(nowMicros()), source: 'server' });
      for (const client of wss.clients) client.send(line);
    }),
  openSqlite: ({ file }: { file: string }) => {
    const db = new BetterSqlite3(file, { readonly: true });
    byUuid = db.prepare('SELECT * FROM commands WHERE uuid = ?');
  },
  profileStart: () => startProfile(),
  profileStop: ({ file }: { file: string }) => stopProfile(file),
  close: async () => {
    for (const client of wss.clients) client.terminate();
    await new Promise((resolve) => wss.close(resolve));
    await app.close();
  },
});
