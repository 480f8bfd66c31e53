// Hooks every request goes through, whatever the feature: safe default headers, the trailing
// slash that POST, PUT, PATCH and DELETE paths need (docs/errors.md: trailing_slash_required),
// and the end of upgrade requests answered over HTTP. Set on the root instance before any feature.
import type { FastifyInstance } from 'fastify';
import { problem } from './problem.ts';
import { PLUGIN_ROUTE_PREFIX } from '@charta/api/constants';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Served without credentials (the authentication hook lets it through). */
    public?: boolean;
  }
}

export function registerHttpHooks(app: FastifyInstance): void {
  // Callback style, not async: no promise on the hot path.
  app.addHook('onRequest', (request, reply, done) => {
    reply.headers({ 'cache-control': 'no-store', 'x-content-type-options': 'nosniff', 'x-request-id': request.id });
    const method = request.method;
    if (method !== 'GET' && method !== 'HEAD' && method !== 'OPTIONS') {
      const path = request.url.split('?', 1)[0]!;
      // A plugin's routes are its own paths, as it declares them (docs/plugins.md, "HTTP routes").
      if (path.startsWith(PLUGIN_ROUTE_PREFIX)) return done();
      if (!path.endsWith('/')) return done(problem('trailing_slash_required', { detail: `A trailing slash is required on ${method} paths: use ${path}/` }));
    }
    done();
  });
  // An upgrade request answered over HTTP instead (401, 403, 400, 404…) has left Node's HTTP
  // parser, so nothing else would ever close its connection: end it once the answer is out.
  app.addHook('onResponse', (request, _reply, done) => {
    if ((request.raw as { upgrade?: boolean }).upgrade === true) request.raw.socket.destroySoon();
    done();
  });
}
