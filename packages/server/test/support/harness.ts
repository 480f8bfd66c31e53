// Real instances for tests: a server on port 0 over a fresh SQLite file or a fresh PostgreSQL
// database (created here, dropped on close), with credentials ready to use.
import { describe } from 'node:test';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import crypto from 'node:crypto';
import pg from 'pg';
import { loadConfig, type Config } from '../../src/config.ts';
import { startServer, type Running } from '../../src/server.ts';
import type { Engine } from '../../src/storage/db.ts';
import { SecretKey } from '../../src/lib/sealing.ts';
import { createKeyFile } from '../../src/lib/secret-key-files.ts';

/** Engines the storage tests run on; CHARTA_TEST_ENGINES=sqlite narrows it for a quick local run. */
export const ENGINES: Engine[] = (process.env.CHARTA_TEST_ENGINES ?? 'sqlite,postgres').split(',').map((e) => e.trim() as Engine);

export const PG_ADMIN_URL = process.env.CHARTA_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

export interface TestDatabase {
  url: string;
  dataDir: string;
  /**
   * What a process on it needs in its environment besides the URL and the data directory: on
   * PostgreSQL the secret key's file (CHARTA_SECRET_KEY_FILE, made here; docs/operations.md, "Sealed
   * secrets"); on SQLite nothing (the first start makes `<data dir>/secret.key`).
   */
  env: Record<string, string>;
  drop(): Promise<void>;
}

/** Drops a PostgreSQL database of this server, whoever is connected to it. */
export async function dropPostgresDatabase(name: string): Promise<void> {
  const c = new pg.Client({ connectionString: PG_ADMIN_URL });
  await c.connect();
  try {
    await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  } finally {
    await c.end();
  }
}

/** A new, empty database of the engine; drop() removes it. */
export async function createDatabase(engine: Engine): Promise<TestDatabase> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'charta-test-'));
  if (engine === 'sqlite') {
    return { url: `sqlite:${path.join(dataDir, 'charta.db')}`, dataDir, env: {}, drop: async () => fs.rmSync(dataDir, { recursive: true, force: true }) };
  }
  const keyFile = path.join(dataDir, 'postgres-secret.key');
  createKeyFile(keyFile, SecretKey.generate());
  const name = `charta_test_${crypto.randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: PG_ADMIN_URL });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(PG_ADMIN_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    dataDir,
    env: { CHARTA_SECRET_KEY_FILE: keyFile },
    drop: async () => {
      await dropPostgresDatabase(name);
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export const TEST_API_KEY = 'test-api-key-0123456789abcdef0123456789';
export const TEST_CLIENT_ID = 'test-client';
export const TEST_CLIENT_SECRET = 'test-client-secret-0123456789abcdef';

export function testConfig(db: TestDatabase, overrides: Partial<Config> = {}): Config {
  return {
    ...loadConfig({
      CHARTA_DATABASE_URL: db.url,
      CHARTA_DATA_DIR: db.dataDir,
      CHARTA_PORT: '0',
      CHARTA_LOG_LEVEL: 'silent',
      CHARTA_DEMO: '0',
      CHARTA_BOOTSTRAP_API_KEY: TEST_API_KEY,
      CHARTA_BOOTSTRAP_CLIENT_ID: TEST_CLIENT_ID,
      CHARTA_BOOTSTRAP_CLIENT_SECRET: TEST_CLIENT_SECRET,
      ...db.env,
    }),
    ...overrides,
  };
}

export interface Instance extends Running {
  engine: Engine;
  db: TestDatabase;
  token: string;
  /** Calls the instance with the test token unless `token` says otherwise. */
  call(method: string, urlPath: string, options?: CallOptions): Promise<Reply>;
  /** A patient and a note of the type, through the API. */
  note(noteType?: string): Promise<{ patientKey: string; noteKey: string }>;
  /** A staged command (default: an empty plan) in a new encounter note. */
  command(schemaKey?: string, values?: Record<string, unknown>): Promise<Reply & { uuid: string; noteKey: string }>;
  stop(): Promise<void>;
}

export interface CallOptions {
  body?: unknown;
  /** Sent as is (not JSON-encoded), with this content type. */
  raw?: { contentType: string; data: string };
  token?: string | null;
  authorization?: string;
  headers?: Record<string, string>;
}

export interface Reply {
  status: number;
  headers: Headers;
  text: string;
  json: any;
}

export async function startInstance(engine: Engine, overrides: Partial<Config> = {}): Promise<Instance> {
  const db = await createDatabase(engine);
  const running = await startServer(testConfig(db, overrides), () => undefined);
  const call = (method: string, urlPath: string, options: CallOptions = {}) => request(running.url, method, urlPath, options, token);
  const token = await tokenFor(running.url);
  const instance: Instance = {
    ...running,
    engine,
    db,
    token,
    call,
    async note(noteType = 'encounter') {
      const p = await call('POST', '/core/api/v1/patients/', { body: { firstName: 'Test', lastName: 'Patient' } });
      if (p.status !== 201) throw new Error(`patient: ${p.status} ${p.text}`);
      const n = await call('POST', '/core/api/v1/notes/', { body: { patientKey: p.json.key, noteType } });
      if (n.status !== 201) throw new Error(`note: ${n.status} ${n.text}`);
      return { patientKey: p.json.key, noteKey: n.json.uuid };
    },
    async command(schemaKey = 'plan', values = {}) {
      const { noteKey } = await instance.note();
      const r = await call('POST', '/core/api/v1/commands/', { body: { schemaKey, noteKey, values } });
      if (r.status !== 201) throw new Error(`command: ${r.status} ${r.text}`);
      return { ...r, uuid: r.json.uuid, noteKey };
    },
    async stop() {
      await running.close();
      await db.drop();
    },
  };
  return instance;
}

export async function request(base: string, method: string, urlPath: string, options: CallOptions, defaultToken: string): Promise<Reply> {
  const headers: Record<string, string> = { ...options.headers };
  const token = options.token === undefined ? defaultToken : options.token;
  if (options.authorization !== undefined) headers.authorization = options.authorization;
  else if (token) headers.authorization = `Bearer ${token}`;
  let body: string | undefined;
  if (options.raw) {
    headers['content-type'] = options.raw.contentType;
    body = options.raw.data;
  } else if (options.body !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(options.body);
  }
  return toReply(await fetch(base + urlPath, { method, headers, body }));
}

/** A fetch Response read whole: text, and JSON when the text is JSON. */
export async function toReply(res: Response): Promise<Reply> {
  const text = await res.text();
  let json: unknown;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, text, json };
}

/** Runs `fn` once per engine as a describe-style group name prefix. */
/** A suite that needs PostgreSQL (several processes on one database): declared when the run includes that engine (CHARTA_TEST_ENGINES). */
export function describeOnPostgres(name: string, body: () => void): void {
  if (ENGINES.includes('postgres')) describe(name, body);
}

export function eachEngine(fn: (engine: Engine) => void) {
  for (const engine of ENGINES) fn(engine);
}

/** A bearer token of the test client from the instance at `url` (client credentials, form-encoded). */
export async function tokenFor(url: string): Promise<string> {
  const r = await request(
    url,
    'POST',
    '/auth/token/',
    {
      raw: {
        contentType: 'application/x-www-form-urlencoded',
        data: `grant_type=client_credentials&client_id=${TEST_CLIENT_ID}&client_secret=${TEST_CLIENT_SECRET}`,
      },
      token: null,
    },
    '',
  );
  if (r.status !== 200) throw new Error(`token: ${r.status} ${r.text}`);
  return r.json.access_token as string;
}
