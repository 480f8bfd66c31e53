// The baseline: a bare Fastify app (the server's own fastify) with one no-op route, nothing else.
// A second route is the reference point: a primary-key read with better-sqlite3 (a
// prepared statement on the benchmark's seeded SQLite file, opened read-only) behind bare Fastify.
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { serve } from './child.ts';
import { startProfile, stopProfile } from './profiler.ts';

const serverPackage = path.resolve(import.meta.dirname, '../../packages/server/package.json');
const fastifyEntry = createRequire(serverPackage).resolve('fastify');
const { default: Fastify } = (await import(pathToFileURL(fastifyEntry).href)) as typeof import('fastify');

const BetterSqlite3 = createRequire(serverPackage)('better-sqlite3') as typeof import('better-sqlite3');

let byUuid: import('better-sqlite3').Statement | undefined;
const app = Fastify({ logger: false });
app.get('/noop', async () => ({}));
app.get('/pk/:uuid', async (request, reply) => {
  const row = byUuid?.get((request.params as { uuid: string }).uuid);
  return row === undefined ? reply.code(404).send({}) : row;
});
await app.listen({ host: '127.0.0.1', port: 0 });
const address = app.server.address();
const port = typeof address === 'object' && address ? address.port : 0;

serve({
  url: () => `http://127.0.0.1:${port}`,
  openSqlite: ({ file }: { file: string }) => {
    const db = new BetterSqlite3(file, { readonly: true });
    byUuid = db.prepare('SELECT * FROM commands WHERE uuid = ?');
  },
  profileStart: () => startProfile(),
  profileStop: ({ file }: { file: string }) => stopProfile(file),
  close: () => app.close(),
});
