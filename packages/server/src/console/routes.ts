// The console at /console/ (docs/console.md): the built static files, and its icon at
// /favicon.ico, as one Fastify plugin. They are the only unauthenticated things it adds: the page
// holds no data, and every call it makes goes to the authenticated API. index.html is revalidated
// on every load, hashed assets are cached for a year, and every answer carries the console's
// Content-Security-Policy.
import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { catalog, problem } from '../http/problem.ts';
import { loadConsoleFiles, type ConsoleFile } from './files.ts';
import { contentSecurityPolicy } from './policy.ts';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';

/** The path of a file under /console/ (relative to the build directory): served files, not the API's wire. */
const ConsoleFileParams = Type.Object({ '*': Type.String({ maxLength: 300 }) });

export const CONSOLE_PATH = '/console/';

export interface ConsoleOptions {
  /** The build directory (CHARTA_CONSOLE_DIR). */
  dir: string;
}

function send(request: FastifyRequest, reply: FastifyReply, file: ConsoleFile) {
  const gzip = file.gzip !== undefined && /\bgzip\b/.test(String(request.headers['accept-encoding'] ?? ''));
  reply
    .header('content-type', file.contentType)
    .header('cache-control', file.immutable ? 'public, max-age=31536000, immutable' : 'no-cache')
    .header('vary', 'accept-encoding');
  if (gzip) reply.header('content-encoding', 'gzip');
  return reply.send(gzip ? file.gzip : file.body);
}

export async function consoleRoutes(parent: FastifyInstance, { dir }: ConsoleOptions) {
  const app = parent.withTypeProvider<TypeBoxTypeProvider>();
  const files = loadConsoleFiles(dir);
  const config = { public: true };
  const schema = { hide: true };

  app.addHook('onRequest', (request, reply, done) => {
    reply.header('content-security-policy', contentSecurityPolicy(request.headers.host));
    reply.header('referrer-policy', 'no-referrer');
    reply.header('x-frame-options', 'DENY');
    done();
  });

  const serve = (request: FastifyRequest, reply: FastifyReply, rest: string) => {
    if (files === undefined) throw problem('console_not_built', { detail: `${catalog.console_not_built.detail} (looked in ${dir})` });
    // Every page of the console is index.html; the page itself reads the hash.
    const file = files.get(rest === '' ? 'index.html' : rest);
    if (file === undefined) throw problem('route_not_found', { detail: 'No such file in the console' });
    return send(request, reply, file);
  };

  // The router ignores trailing slashes: this is /console/ and /console, which is sent to /console/.
  app.get('/console', { config, schema }, (request, reply) =>
    request.url.startsWith(CONSOLE_PATH) ? serve(request, reply, '') : reply.redirect(CONSOLE_PATH, 301),
  );
  app.get(`${CONSOLE_PATH}*`, { config, schema: { ...schema, params: ConsoleFileParams } }, (request, reply) => serve(request, reply, request.params['*']));
  // Browsers ask the site's root for /favicon.ico whatever the page links: the build's own icon
  // (public/favicon.ico of the console), without credentials like the rest of the build, rather
  // than a 404 on every page (docs/console.md, "How it is built and served").
  app.get('/favicon.ico', { config, schema }, (request, reply) => serve(request, reply, 'favicon.ico'));
}
