// The authentication hook: every request to a route not marked `public` (route config) carries
// credentials, a token or an API key (docs/api.md, Authentication), resolved to `request.principal`.
// Set on the root instance after the HTTP hooks (http/hooks.ts) and before any feature.
// A route marked `ownCredentials` (GET /metrics) checks the header itself.
// A route marked `firstMessageAuth` (the log stream) also takes a WebSocket upgrade without the
// Authorization header, which a browser cannot set: its principal stays null and the route
// authenticates the socket's first message with `app.verifyCredentials` (docs/api.md, "Log stream").
import type { FastifyInstance } from 'fastify';
import type { Storage } from '../storage/db.ts';
import { Authenticator } from './authenticate.ts';
import { watchRevocations } from './revocation.ts';
import type { Principal } from './principal.ts';

declare module 'fastify' {
  interface FastifyRequest {
    principal: Principal | null;
  }
  interface FastifyInstance {
    /** Resolves an Authorization header value (or a bare API key or token) to its principal; throws the 401 problem otherwise. */
    verifyCredentials(authorization: string): Promise<Principal>;
  }
  interface FastifyContextConfig {
    /** A WebSocket upgrade without an Authorization header is let through unauthenticated: the route authenticates its first message. */
    firstMessageAuth?: boolean;
    /**
     * The route checks the Authorization header itself, as strictly (GET /metrics also takes the
     * operator's metrics token, which is no API key: metrics/routes.ts). Never a way to be public.
     */
    ownCredentials?: boolean;
  }
}

export function registerAuthentication(app: FastifyInstance, storage: Storage): void {
  app.decorateRequest('principal', null);
  const authenticator = new Authenticator(storage);
  app.decorate('verifyCredentials', (authorization: string) => authenticator.authenticate(authorization));
  // A revoked key or client is refused on its next request, on every process (docs/configuration.md, "Credentials").
  app.signals.subscribe((signal) => {
    if (signal.type === 'credential-revoked') authenticator.forget(signal.credential);
  });
  // ... and one revoked by another program (charta-server revoke-api-key) within a second.
  const stopWatching = watchRevocations(storage, app.signals);
  app.addHook('onClose', () => stopWatching());
  // Callback style, not async: a cached credential costs no promise on the hot path.
  app.addHook('onRequest', (request, _reply, done) => {
    const config = request.routeOptions.config;
    if (config.public === true || config.ownCredentials === true || request.is404) return done();
    if (config.firstMessageAuth === true && request.headers.authorization === undefined && isWebSocketUpgrade(request.raw)) return done();
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

function isWebSocketUpgrade(raw: { upgrade?: boolean; headers: Record<string, string | string[] | undefined> }): boolean {
  const upgrade = raw.headers.upgrade;
  return raw.upgrade === true && typeof upgrade === 'string' && upgrade.toLowerCase() === 'websocket';
}
