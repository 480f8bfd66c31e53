// The authentication hook: every request to a route not marked `public` (route config) carries
// credentials, a token or an API key (docs/api.md, Authentication), resolved to `request.principal`.
// Set on the root instance after the HTTP hooks (http/hooks.ts) and before any feature.
import type { FastifyInstance } from 'fastify';
import type { Storage } from '../storage/db.ts';
import { Authenticator } from './authenticate.ts';
import type { Principal } from './principal.ts';

declare module 'fastify' {
  interface FastifyRequest {
    principal: Principal | null;
  }
}

export function registerAuthentication(app: FastifyInstance, storage: Storage): void {
  app.decorateRequest('principal', null);
  const authenticator = new Authenticator(storage);
  // Callback style, not async: a cached credential costs no promise on the hot path.
  app.addHook('onRequest', (request, _reply, done) => {
    if (request.routeOptions.config.public === true || request.is404) return done();
    const principal = authenticator.cached(request.headers.authorization);
    if (principal !== undefined) {
      request.principal = principal;
      return done();
    }
    authenticator.authenticate(request.headers.authorization).then((p) => {
      request.principal = p;
      done();
    }, done);
  });
}
