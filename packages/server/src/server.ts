// Starting an instance: open storage, migrate, find and check the secret key (secret-key.ts), make
// sure credentials exist, listen. On a first start (no credentials at all) prints the generated
// ones exactly once, and the path of the secret key it made (never the key).
import type { FastifyInstance } from 'fastify';
import type { Config } from './config.ts';
import { redactUrl, storageOptionsOf } from './config.ts';
import { openStorage, type Storage } from './storage/db.ts';
import { migrate } from './storage/migrations/index.ts';
import { loadStarterTerminology } from './terminology/starter.ts';
import { countApiKeys } from './storage/auth-repository.ts';
import { purgeIdempotent } from './storage/idempotency-repository.ts';
import { purgeEffectBudgets } from './storage/plugin-effect-budgets-repository.ts';
import { IDEMPOTENCY_TTL_MICROS } from './storage/transaction.ts';
import { createApiKey } from './auth/create-api-key.ts';
import { createClient } from './auth/create-client.ts';
import { ensureBootstrap } from './auth/bootstrap.ts';
import { seedDemo, type DemoData } from './demo/seed.ts';
import { loadDispenseUnits } from './reference/starter.ts';
import { nowMicros } from './lib/time.ts';
import { buildApp } from './app.ts';
import { startPgRelay, type PgRelay } from './logs/pg-relay.ts';
import { startSignalRelay, type SignalRelay } from './signals/pg-relay.ts';
import { openSecretKey, prepareSecretKey, type SecretKeyReady } from './secret-key.ts';

export interface Running {
  app: FastifyInstance;
  storage: Storage;
  url: string;
  /**
   * Graceful shutdown (docs/configuration.md, "Stopping"): stop accepting, let in-flight requests
   * finish (at most `shutdownTimeoutMs`, then their connections are cut), close the log stream's
   * WebSockets with a close frame, the log and signal relays and the database. `complete` is false if the
   * timeout cut requests off.
   */
  close(): Promise<{ complete: boolean }>;
}

/** What a start against an empty database made: credentials (unless bootstrapped) and demo data. */
export interface FirstStart {
  credentials?: { apiKey: string; clientId: string; clientSecret: string };
  demo?: DemoData;
}

/**
 * Storage ready for use: migrated, the secret key checked against it (a wrong or missing key
 * refuses the start: SecretKeyError) and plaintext of an earlier version sealed, bootstrap
 * credentials in place, first-start credentials made.
 */
export async function prepareStorage(config: Config): Promise<{ storage: Storage; firstStart?: FirstStart; secretKey: SecretKeyReady }> {
  const storage = openStorage(config.databaseUrl, storageOptionsOf(config));
  try {
    await migrate(storage);
    const secretKey = await prepareSecretKey(storage, config);
    await loadStarterTerminology(storage);
    const fresh = (await countApiKeys(storage.db)) === 0;
    await ensureBootstrap(storage, config);
    await loadDispenseUnits(storage); // prescribe.type_to_dispense needs them on every instance
    let firstStart: FirstStart | undefined;
    if (fresh) {
      firstStart = {};
      if (config.bootstrapApiKey === undefined && config.bootstrapClientId === undefined) {
        const { key } = await createApiKey(storage, 'first start');
        const client = await createClient(storage, { name: 'first start' });
        firstStart.credentials = { apiKey: key, clientId: client.clientId, clientSecret: client.clientSecret };
      }
      if (config.demo) firstStart.demo = await seedDemo(storage);
    }
    await purgeExpired(storage);
    await storage.optimize();
    return { storage, firstStart, secretKey };
  } catch (err) {
    await storage.close();
    throw err;
  }
}

/**
 * Forgets what is kept 24 hours: Idempotency-Key answers, and the effects each chain of plugin
 * changes spent (docs/plugins.md, "Breadth limits"; a chain lives far less than a day).
 */
async function purgeExpired(storage: Storage): Promise<void> {
  const before = nowMicros() - IDEMPOTENCY_TTL_MICROS;
  await purgeIdempotent(storage.db, before);
  await purgeEffectBudgets(storage.db, before);
}

export interface StartOptions {
  /**
   * A worker of `--workers` (workers.ts): the primary has prepared the storage (migrations,
   * bootstrap, first-start credentials, demo data) and announces; this process only opens it.
   */
  prepared?: boolean;
}

export async function startServer(
  config: Config,
  announce: (text: string) => void = (t) => process.stdout.write(t),
  options: StartOptions = {},
): Promise<Running> {
  // A worker's primary has prepared the storage and checked the key: the worker only reads the key.
  const { storage, firstStart, secretKey } = options.prepared
    ? {
        secretKey: { keyring: openSecretKey(config), lines: [] },
        storage: openStorage(config.databaseUrl, storageOptionsOf(config)),
        firstStart: undefined,
      }
    : await prepareStorage(config);
  const app = await buildApp(config, storage, secretKey.keyring);
  // The log stream and the signals across processes (PostgreSQL LISTEN/NOTIFY, each on its own
  // channel and dedicated connection: docs/architecture.md, "Signals"). On SQLite there is one
  // process (`--workers` above 1 is refused): the signals stay in it.
  let relay: PgRelay | undefined;
  let signalRelay: SignalRelay | undefined;
  const stopRelays = async () => {
    await relay?.stop();
    await signalRelay?.stop();
  };
  if (storage.engine === 'postgres') {
    try {
      relay = await startPgRelay(
        config.databaseUrl,
        app.logs,
        (err) => app.log.warn({ err }, 'log relay: connection trouble'),
        (stats) => app.log.warn(stats, 'log relay: reconnected and listening again; entries relayed, dropped and unheard so far'),
      );
      signalRelay = await startSignalRelay(
        config.databaseUrl,
        app.signals,
        (err) => app.log.warn({ err }, 'signal relay: connection trouble'),
        (stats) => app.log.warn(stats, 'signal relay: reconnected and listening again; signals relayed and dropped so far'),
      );
    } catch (err) {
      await stopRelays();
      await app.close();
      await storage.close();
      throw err;
    }
  }
  // Housekeeping: forget expired idempotency keys and effect budgets hourly; keep planner statistics fresh.
  const purge = setInterval(() => void purgeExpired(storage).catch(() => undefined), 3_600_000);
  const optimize = setInterval(() => void storage.optimize().catch(() => undefined), 600_000);
  purge.unref();
  optimize.unref();
  // While closing, every answer ends its keep-alive connection, so none outlives the shutdown.
  let closing = false;
  app.addHook('onSend', (_request, reply, payload, done) => {
    if (closing) reply.header('connection', 'close');
    done(null, payload);
  });
  try {
    await app.listen({ host: config.host, port: config.port });
  } catch (err) {
    // Nothing of a failed start outlives it: the relays' connections, the app, the database.
    await stopRelays();
    await app.close().catch(() => undefined);
    await storage.close().catch(() => undefined);
    throw err;
  }
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  const url = `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}`;
  announce(welcome(url, config, firstStart, secretKey.lines));
  return {
    app,
    storage,
    url,
    close: async () => {
      clearInterval(purge);
      clearInterval(optimize);
      let complete = true;
      closing = true;
      const deadline = setTimeout(() => {
        complete = false;
        app.server.closeAllConnections();
      }, config.shutdownTimeoutMs);
      // A connection whose last answer was already on its way when closing began goes idle later.
      const idle = setInterval(() => app.server.closeIdleConnections(), 100);
      try {
        await app.close();
      } finally {
        clearTimeout(deadline);
        clearInterval(idle);
        await stopRelays();
        await storage.close();
      }
      return { complete };
    },
  };
}

/**
 * What a start prints on stdout: where it listens, the secret key's lines (where it is, a key made,
 * values sealed: never a key), and on a first start the credentials and demo keys.
 */
export function welcome(url: string, config: Config, first: FirstStart | undefined, secretKeyLines: string[] = []): string {
  const served = config.workers > 1 ? `, ${config.workers} worker processes` : '';
  const lines = [
    `Charta is listening on ${url} (database ${redactUrl(config.databaseUrl)}${served})`,
    `API reference: ${url}/docs`,
    `Console: ${url}/console/ (sign in with the API key or the OAuth client)`,
    ...secretKeyLines,
  ];
  const c = first?.credentials;
  if (c) {
    lines.push(
      '',
      'First start: these credentials are shown ONCE and stored only as hashes. Keep them now.',
      `  API key (plugin tool):   ${c.apiKey}`,
      `  OAuth client id:         ${c.clientId}`,
      `  OAuth client secret:     ${c.clientSecret}`,
    );
  }
  const clientId = c?.clientId ?? config.bootstrapClientId ?? '<client id>';
  if (first?.demo) {
    const n = first.demo.notes;
    lines.push(
      '',
      'Get a token and create a command:',
      `  curl -s -X POST ${url}/auth/token/ -d grant_type=client_credentials -d client_id=${clientId} -d client_secret=<secret>`,
      `  curl -s -X POST ${url}/core/api/v1/commands/ -H "Authorization: Bearer <token>" -H 'Content-Type: application/json' \\`,
      `       -d '{"schemaKey":"plan","noteKey":"${n.encounter}","values":{"narrative":"Follow up in two weeks"}}'`,
      '',
      `Demo patient ${first.demo.patientKey}; notes:`,
      `  encounter (unlocked)  ${n.encounter}`,
      `  review                ${n.review}`,
      `  data import           ${n.data_import}`,
      `  encounter (locked)    ${n.locked_encounter}`,
      `  encounter (deleted)   ${n.deleted_encounter}`,
      `  letter (no commands)  ${n.letter}`,
    );
  }
  return lines.join('\n') + '\n';
}
