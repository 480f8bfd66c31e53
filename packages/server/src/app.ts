// Builds the Fastify instance (no listen, so tests can inject or listen on port 0). It only
// assembles the pieces: the HTTP layer (http/: body parsers, hooks, error handling, OpenAPI),
// authentication (auth/hook.ts), then each feature as one Fastify plugin owning its routes and
// schemas. The layout is described in the README.
import crypto from 'node:crypto';
import Fastify, { LogController, type FastifyInstance } from 'fastify';
import { AjvCompiler } from '@fastify/ajv-compiler';
import type { Config } from './config.ts';
import type { Storage } from './storage/db.ts';
import { lazyRequestLogger } from './http/request-logger.ts';
import { sharedSchemas } from './http/schemas.ts';
import { registerBodyParsers } from './http/body.ts';
import { redactLogArguments, serializeError, serializeRequest } from './http/log-redaction.ts';
import { registerHttpHooks } from './http/hooks.ts';
import { frameworkErrors, registerErrorHandling } from './http/error-handler.ts';
import { registerOpenApi } from './http/openapi.ts';
import type { FeatureOptions } from './http/request.ts';
import { credentialRoutes } from './auth/credential-routes.ts';
import { registerAuthentication } from './auth/hook.ts';
import { authRoutes } from './auth/routes.ts';
import { commandRoutes } from './commands/routes.ts';
import { noteRoutes } from './notes/routes.ts';
import { patientRoutes } from './patients/routes.ts';
import { chartRoutes } from './chart/routes.ts';
import { pluginRoutes } from './plugins/routes.ts';
import { pluginIoRoutes } from './plugin-io/routes.ts';
import { referenceRoutes } from './reference/routes.ts';
import { auditRoutes } from './audit/routes.ts';
import { registerReadAudit } from './audit/reads.ts';
import { LogBus } from './logs/bus.ts';
import { SignalBus } from './signals/bus.ts';
import { logRoutes } from './logs/routes.ts';
import { OpenStreams } from './http/open-streams.ts';
import { changeRoutes } from './changes/routes.ts';
import { healthRoutes } from './health/routes.ts';
import { consoleRoutes } from './console/routes.ts';
import { createPluginRuntime } from './runtime/index.ts';
import { registerAutocompleteProviders } from './autocomplete-providers.ts';
import type { PluginHost } from './runtime/host.ts';
import { Metrics } from './metrics/registry.ts';
import { metricsRoutes, recordRequests } from './metrics/routes.ts';
import type { Keyring } from './lib/sealing.ts';

declare module 'fastify' {
  interface FastifyInstance {
    /** The plugin runtime of this process (runtime/): loaded on ready, stopped on close. */
    pluginRuntime: PluginHost;
    /** The signal channel of this process (signals/): what the runtime reacts to. */
    signals: SignalBus;
    /** The metrics of this app (metrics/), null with CHARTA_METRICS=off. */
    metrics: Metrics | null;
    /** The secret keys of this process (secret-key.ts): plugin secrets are sealed and opened with them. */
    keyring: Keyring;
  }
}

export const VERSION = '0.1.0';

/** How Fastify asks for a route part's validator (`@fastify/ajv-compiler`'s declared types name only the schema). */
type CompileRoutePart = (route: { schema: unknown; httpPart?: string }) => Validate;
type ValidatorPool = (externalSchemas: unknown, options: { customOptions?: object }) => CompileRoutePart;
/** A compiled validator, as Fastify calls it: false with its `errors` when the data is refused. */
type Validate = ((data: unknown) => unknown) & { errors?: unknown };
const validators = AjvCompiler() as unknown as ValidatorPool;

/** Decimal integers only, as a query string writes them (no exponent, sign of zero, hex or spaces). */
const DECIMAL = /^-?[0-9]{1,15}$/;

/** The query parameters a querystring schema declares as integers. */
function integerParameters(schema: unknown): string[] {
  const properties = (schema as { properties?: Record<string, { type?: unknown }> } | undefined)?.properties ?? {};
  return Object.keys(properties).filter((name) => properties[name]?.type === 'integer');
}

/**
 * Bodies are validated as sent (no coercion: `"1"` is not a number), but a query string has only
 * text: a parameter its schema declares an integer (`limit`, `offset`, http/pagination.ts) is
 * turned into one when it is written as a decimal integer, then checked (range included) like any
 * other. Anything else (`1e999`, `0x10`, `2.0`, `abc`) stays text and is refused as not an integer,
 * so its schema says what it takes and the OpenAPI document shows integers.
 */
const queryCoercingValidator: ValidatorPool = (externalSchemas, options) => {
  const compile = validators(externalSchemas, options);
  return (route) => {
    const validate = compile(route);
    const integers = route.httpPart === 'querystring' ? integerParameters(route.schema) : [];
    if (integers.length === 0) return validate;
    const withIntegers: Validate = (data) => {
      if (typeof data === 'object' && data !== null) {
        const query = data as Record<string, unknown>;
        for (const name of integers) {
          const text = query[name];
          if (typeof text === 'string' && DECIMAL.test(text)) query[name] = Number(text);
        }
      }
      const ok = validate(data);
      withIntegers.errors = validate.errors;
      return ok;
    };
    return withIntegers;
  };
};

export async function buildApp(config: Config, storage: Storage, keyring: Keyring): Promise<FastifyInstance> {
  // The options of AutocompleteFields come from the features that own the data (autocomplete-providers.ts).
  registerAutocompleteProviders();
  const verbose = config.logLevel === 'debug' || config.logLevel === 'trace';
  const app = Fastify({
    logger: {
      level: config.logLevel,
      // Headers logged by the server or a plugin of it (the multipart parser logs its options at trace).
      redact: { paths: ['req.headers.authorization', 'req.headers.cookie', '*.headers.authorization', '*.headers.cookie'], censor: '[redacted]' },
      // Credentials sent in query strings never reach the log (http/log-redaction.ts).
      serializers: { req: serializeRequest, err: serializeError },
      hooks: { logMethod: redactLogArguments },
    },
    // Request logging at info costs most of the throughput; it is there at debug.
    logController: new LogController({ disableRequestLogging: !verbose }),
    // request.log is made at its first log call, not for every request (http/request-logger.ts).
    childLoggerFactory: lazyRequestLogger,
    bodyLimit: config.bodyLimit,
    // A client that takes longer than this to send its whole request (a slow body on a plugin's
    // route, a trickled upload) is answered 408 and its connection closed (docs/configuration.md).
    requestTimeout: config.requestTimeoutMs,
    // Given to Node's server when it is created too (Node 20 keeps what it was created with), and
    // how often it looks for requests past it (its default, 30 s, would let one run on that long).
    http: { requestTimeout: config.requestTimeoutMs, connectionsCheckingInterval: Math.min(1000, config.requestTimeoutMs) },
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 200 },
    ajv: { customOptions: { removeAdditional: false, coerceTypes: false, useDefaults: false, allErrors: true } },
    schemaController: { compilersFactory: { buildValidator: queryCoercingValidator as never } },
    genReqId: () => crypto.randomUUID(),
    frameworkErrors,
    trustProxy: false,
  });

  app.decorate('logs', new LogBus()); // the log stream's bus (logs/): a sink
  app.decorate('signals', new SignalBus()); // what the runtime reacts to (signals/)
  app.decorate('streams', new OpenStreams(config.streamsPerPrincipal)); // the log and change streams open (http/open-streams.ts)
  app.decorate('keyring', keyring); // plugin secrets are sealed with it (docs/operations.md, "Sealed secrets")
  const runtime = createPluginRuntime(config, storage, app.logs, app.signals, keyring);
  app.decorate('pluginRuntime', runtime);
  app.addHook('onReady', () => runtime.start());
  app.addHook('onClose', () => runtime.close());
  // GET /metrics and what feeds it (docs/operations.md, "Monitoring"): counters on the request's
  // path and the plugin calls, gauges read at a scrape; nothing at all with CHARTA_METRICS=off.
  const metrics = config.metrics ? new Metrics({ storage, logs: app.logs, runnerStats: () => runtime.runner.stats() }) : null;
  app.decorate('metrics', metrics);
  if (metrics !== null) {
    storage.observe(metrics.storage);
    runtime.calls.onCall = (handler, outcome, seconds) => metrics.pluginCall(handler.plugin, handler.id, outcome, seconds);
    recordRequests(app, metrics);
  }
  // Shared schemas at the root, before any feature, so every encapsulated feature can $ref them.
  for (const schema of sharedSchemas) app.addSchema(schema);
  registerBodyParsers(app);
  registerHttpHooks(app);
  registerAuthentication(app, storage);
  registerErrorHandling(app);
  registerReadAudit(app, storage);
  await registerOpenApi(app, VERSION, config.publicUrl);

  const features: FeatureOptions = { storage, publicUrl: config.publicUrl, listCountCap: config.listCountCap };
  await app.register(authRoutes, { ...features, tokenRateLimit: config.tokenRateLimit });
  await app.register(patientRoutes, features);
  await app.register(chartRoutes, features);
  await app.register(noteRoutes, features);
  await app.register(commandRoutes, features);
  await app.register(pluginRoutes, features);
  await app.register(pluginIoRoutes, { ...features, pluginRouteRateLimit: config.pluginRouteRateLimit });
  await app.register(referenceRoutes, features);
  await app.register(auditRoutes, features);
  await app.register(credentialRoutes, features);
  await app.register(logRoutes);
  await app.register(changeRoutes);
  await app.register(healthRoutes, features);
  if (metrics !== null) await app.register(metricsRoutes, { metrics, tokenHash: config.metricsTokenHash });
  await app.register(consoleRoutes, { dir: config.consoleDir });
  return app;
}
