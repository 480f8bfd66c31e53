// Environment variables (and `charta-server start` flags) → one typed, validated config object.
import path from 'node:path';
import { digest } from './lib/secrets.ts';
import { DEFAULT_LIST_COUNT_CAP } from './http/pagination.ts';
import { MAX_STREAMS, MAX_STREAMS_PER_PRINCIPAL } from './http/open-streams.ts';
import { DEFAULT_EFFECTS_PER_CHANGE, DEFAULT_MAX_EFFECTS_PER_ANSWER } from './runtime/effect-limits.ts';
import { DEFAULT_DATA_READS_PER_CALL, DEFAULT_DATA_ROWS_PER_CALL } from '@charta/api/constants';
import { SecretKey, SecretKeyFormatError } from './lib/sealing.ts';
import type { OpenOptions } from './storage/db.ts';

export interface Config {
  host: string;
  port: number;
  databaseUrl: string;
  dataDir: string;
  publicUrl: string | undefined;
  bootstrapApiKey: string | undefined;
  bootstrapClientId: string | undefined;
  bootstrapClientSecret: string | undefined;
  demo: boolean;
  logLevel: string;
  /** SQLite `synchronous` pragma: `normal` survives a process crash, `full` also a power loss. */
  sqliteSynchronous: 'normal' | 'full';
  /** SQLite: threads that run reads outside a write, each on a connection of its own; 0 = on the event loop (docs/configuration.md). */
  sqliteReadThreads: number;
  /** Largest accepted request body, in bytes. */
  bodyLimit: number;
  /** Token requests allowed per client address per minute (brute-force guard). */
  tokenRateLimit: number;
  /** The longest a client may take to send a whole request, in milliseconds (CHARTA_REQUEST_TIMEOUT, seconds). */
  requestTimeoutMs: number;
  /** Requests a minute one route of one plugin takes, every caller together (docs/plugins.md, "HTTP routes"). */
  pluginRouteRateLimit: number;
  /** Log and change streams one principal keeps open at once (docs/api.md, "Streams open at once"). */
  streamsPerPrincipal: number;
  /** Graceful shutdown: how long in-flight requests may take to finish after SIGTERM, in milliseconds. */
  shutdownTimeoutMs: number;
  /** The most heap a plugin's manifest may ask for, in MiB (docs/configuration.md). */
  pluginMaxMemoryMb: number;
  /** The longest deadline of a handler call a plugin's manifest may ask for, in milliseconds. */
  pluginMaxTimeoutMs: number;
  /** The most memory the plugins loaded in one runner may ask for together, in MiB (CHARTA_PLUGIN_RUNNER_MAX_MEMORY_MB). */
  pluginRunnerMaxMemoryMb: number;
  /** The most effects one answer of a handler may hold that a plugin's manifest may ask for (docs/plugins.md, "Breadth limits"). */
  pluginMaxEffectsPerAnswer: number;
  /** The most effects the whole chain of changes one client change sets off may apply, all plugins together. */
  pluginEffectsPerChange: number;
  /** The most reads, and rows in all, one handler call may make through this.data (a manifest may ask fewer). */
  pluginDataReadsPerCall: number;
  pluginDataRowsPerCall: number;
  /** How many times a POST event is given to a handler whose call keeps failing, before a dead letter (docs/plugins.md, "Delivery and guarantees"). */
  pluginDeliveryAttempts: number;
  /** The wait before the second attempt, in milliseconds; each later wait is 4 times the one before, capped. */
  pluginRetryBaseMs: number;
  /** HTTP processes `start` serves with (docs/configuration.md, "Multi-process serving"); 1 = no fork. */
  workers: number;
  /** Matching rows the commands and notes lists count exactly past the page's offset (docs/api.md, "Pagination"). */
  listCountCap: number;
  /** The built console served at /console/ (docs/console.md); default packages/console/dist. */
  consoleDir: string;
  /** GET /metrics and what feeds it (CHARTA_METRICS, on unless `off`: docs/operations.md, "Monitoring"). */
  metrics: boolean;
  /** SHA-256 of CHARTA_METRICS_TOKEN, the bearer token a scraper may send instead of an admin API key; the token itself is not kept. */
  metricsTokenHash: string | undefined;
  /**
   * CHARTA_SECRET_KEY, parsed (its bytes private: it prints as its id), or CHARTA_SECRET_KEY_FILE,
   * the file holding it (docs/operations.md, "Sealed secrets"); neither: `<data dir>/secret.key`
   * on SQLite (secret-key.ts).
   */
  secretKey: SecretKey | undefined;
  secretKeyFile: string | undefined;
}

export class ConfigError extends Error {}

/** CHARTA_PLUGIN_DELIVERY_ATTEMPTS and CHARTA_PLUGIN_RETRY_BASE_MS when unset (docs/configuration.md). */
export const DEFAULT_PLUGIN_DELIVERY_ATTEMPTS = 5;
export const DEFAULT_PLUGIN_RETRY_BASE_MS = 2000;

/** The most worker processes `--workers` may ask for. */
export const MAX_WORKERS = 64;

/**
 * SQLite's reader threads (docs/configuration.md, "SQLite"): one takes the reads' statements off
 * the event loop (docs/performance.md, "Reads in threads"), and the event loop stays the bound.
 */
export const DEFAULT_SQLITE_READ_THREADS = 1;
export const MAX_SQLITE_READ_THREADS = 16;

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

export function loadConfig(env: NodeJS.ProcessEnv = process.env, flags: Record<string, string | undefined> = {}): Config {
  const get = (flag: string, name: string): string | undefined => flags[flag] ?? (env[name] === '' ? undefined : env[name]);
  const integer = (flag: string, name: string, fallback: number, min: number, max: number): number =>
    integerSetting(get(flag, name) ?? String(fallback), name, min, max);
  const dataDir = path.resolve(get('dataDir', 'CHARTA_DATA_DIR') ?? './data');
  const databaseUrl = get('databaseUrl', 'CHARTA_DATABASE_URL') ?? `sqlite:${path.join(dataDir, 'charta.db')}`;
  if (!/^(sqlite:|postgres(ql)?:\/\/)/.test(databaseUrl)) {
    throw new ConfigError(`CHARTA_DATABASE_URL must start with sqlite: or postgres://, got ${redactUrl(databaseUrl)}`);
  }
  const portText = get('port', 'CHARTA_PORT') ?? '8000';
  const port = Number(portText);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new ConfigError(`CHARTA_PORT must be a port number, got ${portText}`);
  const publicUrl = get('publicUrl', 'CHARTA_PUBLIC_URL')?.replace(/\/+$/, '');
  if (publicUrl !== undefined && !/^https?:\/\/[^\s/]+/.test(publicUrl)) {
    throw new ConfigError(`CHARTA_PUBLIC_URL must be an http(s) URL, got ${publicUrl}`);
  }
  const logLevel = (get('logLevel', 'CHARTA_LOG_LEVEL') ?? 'info').toLowerCase();
  if (!LOG_LEVELS.includes(logLevel)) throw new ConfigError(`CHARTA_LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}`);
  const sync = (get('sqliteSynchronous', 'CHARTA_SQLITE_SYNCHRONOUS') ?? 'normal').toLowerCase();
  if (sync !== 'normal' && sync !== 'full') throw new ConfigError('CHARTA_SQLITE_SYNCHRONOUS must be normal or full');
  const sqliteReadThreads = integer('sqliteReadThreads', 'CHARTA_SQLITE_READ_THREADS', DEFAULT_SQLITE_READ_THREADS, 0, MAX_SQLITE_READ_THREADS);
  const bootstrapClientId = get('bootstrapClientId', 'CHARTA_BOOTSTRAP_CLIENT_ID');
  const bootstrapClientSecret = get('bootstrapClientSecret', 'CHARTA_BOOTSTRAP_CLIENT_SECRET');
  if ((bootstrapClientId === undefined) !== (bootstrapClientSecret === undefined)) {
    throw new ConfigError('CHARTA_BOOTSTRAP_CLIENT_ID and CHARTA_BOOTSTRAP_CLIENT_SECRET must be set together');
  }
  const bootstrapApiKey = get('bootstrapApiKey', 'CHARTA_BOOTSTRAP_API_KEY');
  for (const [name, value] of [
    ['CHARTA_BOOTSTRAP_API_KEY', bootstrapApiKey],
    ['CHARTA_BOOTSTRAP_CLIENT_SECRET', bootstrapClientSecret],
  ] as const) {
    if (value !== undefined && value.length < 16) throw new ConfigError(`${name} must be at least 16 characters`);
  }
  const rateText = get('tokenRateLimit', 'CHARTA_TOKEN_RATE_LIMIT') ?? '30';
  const tokenRateLimit = Number(rateText);
  if (!Number.isInteger(tokenRateLimit) || tokenRateLimit < 1) throw new ConfigError(`CHARTA_TOKEN_RATE_LIMIT must be a positive integer, got ${rateText}`);
  const routeRateText = get('pluginRouteRateLimit', 'CHARTA_PLUGIN_ROUTE_RATE_LIMIT') ?? '600';
  const pluginRouteRateLimit = Number(routeRateText);
  if (!Number.isInteger(pluginRouteRateLimit) || pluginRouteRateLimit < 1) {
    throw new ConfigError(`CHARTA_PLUGIN_ROUTE_RATE_LIMIT must be a positive integer (requests a minute), got ${routeRateText}`);
  }
  const streamsText = get('streamsPerPrincipal', 'CHARTA_STREAMS_PER_PRINCIPAL') ?? String(MAX_STREAMS_PER_PRINCIPAL);
  const streamsPerPrincipal = Number(streamsText);
  if (!Number.isInteger(streamsPerPrincipal) || streamsPerPrincipal < 1 || streamsPerPrincipal > MAX_STREAMS) {
    throw new ConfigError(`CHARTA_STREAMS_PER_PRINCIPAL must be an integer from 1 to ${MAX_STREAMS} (streams open at once), got ${streamsText}`);
  }
  const requestTimeoutText = get('requestTimeout', 'CHARTA_REQUEST_TIMEOUT') ?? '30';
  const requestTimeoutSeconds = Number(requestTimeoutText);
  if (!Number.isFinite(requestTimeoutSeconds) || requestTimeoutSeconds <= 0 || requestTimeoutSeconds > 3600) {
    throw new ConfigError(`CHARTA_REQUEST_TIMEOUT must be a number of seconds above 0 and at most 3600, got ${requestTimeoutText}`);
  }
  const shutdownText = get('shutdownTimeout', 'CHARTA_SHUTDOWN_TIMEOUT') ?? '10';
  const shutdownSeconds = Number(shutdownText);
  if (!Number.isFinite(shutdownSeconds) || shutdownSeconds <= 0 || shutdownSeconds > 3600)
    throw new ConfigError(`CHARTA_SHUTDOWN_TIMEOUT must be a number of seconds above 0 and at most 3600, got ${shutdownText}`);
  const pluginMaxMemoryMb = integer('pluginMaxMemoryMb', 'CHARTA_PLUGIN_MAX_MEMORY_MB', 128, 1, 1024);
  const pluginMaxTimeoutMs = integer('pluginMaxTimeoutMs', 'CHARTA_PLUGIN_MAX_TIMEOUT_MS', 5000, 10, 60000);
  const pluginRunnerMaxMemoryMb = integer('pluginRunnerMaxMemoryMb', 'CHARTA_PLUGIN_RUNNER_MAX_MEMORY_MB', 2048, 1, 65536);
  const pluginMaxEffectsPerAnswer = integer('pluginMaxEffectsPerAnswer', 'CHARTA_PLUGIN_MAX_EFFECTS_PER_ANSWER', DEFAULT_MAX_EFFECTS_PER_ANSWER, 1, 100_000);
  const pluginEffectsPerChange = integer('pluginEffectsPerChange', 'CHARTA_PLUGIN_EFFECTS_PER_CHANGE', DEFAULT_EFFECTS_PER_CHANGE, 1, 1_000_000);
  const pluginDataReadsPerCall = integer('pluginDataReadsPerCall', 'CHARTA_PLUGIN_DATA_READS_PER_CALL', DEFAULT_DATA_READS_PER_CALL, 1, 10_000);
  const pluginDataRowsPerCall = integer('pluginDataRowsPerCall', 'CHARTA_PLUGIN_DATA_ROWS_PER_CALL', DEFAULT_DATA_ROWS_PER_CALL, 1, 1_000_000);
  const pluginDeliveryAttempts = integer('pluginDeliveryAttempts', 'CHARTA_PLUGIN_DELIVERY_ATTEMPTS', DEFAULT_PLUGIN_DELIVERY_ATTEMPTS, 1, 100);
  const pluginRetryBaseMs = integer('pluginRetryBaseMs', 'CHARTA_PLUGIN_RETRY_BASE_MS', DEFAULT_PLUGIN_RETRY_BASE_MS, 1, 60_000);
  const workersText = get('workers', 'CHARTA_WORKERS') ?? '1';
  const workers = /^[0-9]+$/.test(workersText) ? Number(workersText) : NaN;
  if (!(workers >= 1 && workers <= MAX_WORKERS))
    throw new ConfigError(`CHARTA_WORKERS (--workers) must be an integer from 1 to ${MAX_WORKERS}, got ${workersText}`);
  // docs/configuration.md, "Multi-process serving": SQLite is served by one process.
  if (workers > 1 && databaseUrl.startsWith('sqlite:')) {
    throw new ConfigError(
      'CHARTA_WORKERS (--workers) above 1 needs PostgreSQL, the scale-out path: on SQLite every write takes the one lock of the file, a worker waiting for it ' +
        'stalls all its requests (better-sqlite3 is synchronous), and the log stream would split into one per worker (docs/configuration.md, "Multi-process serving")',
    );
  }
  const listCountCap = integer('listCountCap', 'CHARTA_LIST_COUNT_CAP', DEFAULT_LIST_COUNT_CAP, 1, 1_000_000_000);
  const consoleText = get('consoleDir', 'CHARTA_CONSOLE_DIR');
  const consoleDir = consoleText === undefined ? DEFAULT_CONSOLE_DIR : path.resolve(consoleText);
  const metricsText = (get('metrics', 'CHARTA_METRICS') ?? 'on').toLowerCase();
  if (metricsText !== 'on' && metricsText !== 'off') throw new ConfigError(`CHARTA_METRICS must be on or off, got ${metricsText}`);
  const metricsToken = get('metricsToken', 'CHARTA_METRICS_TOKEN');
  // docs/configuration.md: a token a scraper sends as `Authorization: Bearer <token>`; never printed.
  if (metricsToken !== undefined && (metricsToken.length < 16 || metricsToken.length > 512 || /\s/.test(metricsToken)))
    throw new ConfigError('CHARTA_METRICS_TOKEN must be 16 to 512 characters without spaces');
  const secretKeyText = get('secretKey', 'CHARTA_SECRET_KEY');
  const secretKeyFileText = get('secretKeyFile', 'CHARTA_SECRET_KEY_FILE');
  if (secretKeyText !== undefined && secretKeyFileText !== undefined) {
    throw new ConfigError('set CHARTA_SECRET_KEY or CHARTA_SECRET_KEY_FILE, not both: one key seals the plugin secrets');
  }
  let secretKey: SecretKey | undefined;
  try {
    secretKey = secretKeyText === undefined ? undefined : SecretKey.parse(secretKeyText, 'CHARTA_SECRET_KEY');
  } catch (err) {
    throw err instanceof SecretKeyFormatError ? new ConfigError(err.message) : err;
  }
  const secretKeyFile = secretKeyFileText === undefined ? undefined : path.resolve(secretKeyFileText);
  const demoText = get('demo', 'CHARTA_DEMO');
  const demo = demoText === undefined ? databaseUrl.startsWith('sqlite:') : demoText === '1' || demoText === 'true';
  return {
    host: get('host', 'CHARTA_HOST') ?? '127.0.0.1',
    port,
    databaseUrl,
    dataDir,
    publicUrl,
    bootstrapApiKey,
    bootstrapClientId,
    bootstrapClientSecret,
    demo,
    logLevel,
    sqliteSynchronous: sync,
    sqliteReadThreads,
    bodyLimit: 1024 * 1024,
    tokenRateLimit,
    pluginRouteRateLimit,
    streamsPerPrincipal,
    requestTimeoutMs: Math.round(requestTimeoutSeconds * 1000),
    shutdownTimeoutMs: Math.round(shutdownSeconds * 1000),
    pluginMaxMemoryMb,
    pluginMaxTimeoutMs,
    pluginRunnerMaxMemoryMb,
    pluginMaxEffectsPerAnswer,
    pluginEffectsPerChange,
    pluginDataReadsPerCall,
    pluginDataRowsPerCall,
    pluginDeliveryAttempts,
    pluginRetryBaseMs,
    workers,
    listCountCap,
    consoleDir,
    metrics: metricsText === 'on',
    metricsTokenHash: metricsToken === undefined ? undefined : digest(metricsToken),
    secretKey,
    secretKeyFile,
  };
}

/** How the server and its subcommands open the configured database (storage/db.ts). */
export const storageOptionsOf = (config: Config): OpenOptions => ({ synchronous: config.sqliteSynchronous, readThreads: config.sqliteReadThreads });

/** Where `npm ci` (the root `prepare` script) builds the console: packages/console/dist. */
export const DEFAULT_CONSOLE_DIR = path.resolve(import.meta.dirname, '../../console/dist');

function integerSetting(text: string, name: string, min: number, max: number): number {
  const value = Number(text);
  if (!Number.isInteger(value) || value < min || value > max) throw new ConfigError(`${name} must be an integer from ${min} to ${max}, got ${text}`);
  return value;
}

/** A database URL safe to print: any password (in the user info or the query) replaced. */
export function redactUrl(url: string): string {
  if (url.startsWith('sqlite:')) return url;
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    for (const key of [...u.searchParams.keys()]) if (/pass/i.test(key)) u.searchParams.set(key, '***');
    return u.toString();
  } catch {
    return '<unparseable database URL>';
  }
}
