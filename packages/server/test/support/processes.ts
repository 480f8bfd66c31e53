// Real `charta-server` processes for tests that need more than one process (crash recovery,
// several servers on one PostgreSQL database): a free port, start and wait until it listens,
// a token, and every child killed when the test process ends.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';
import { TEST_API_KEY, TEST_CLIENT_ID, TEST_CLIENT_SECRET, tokenFor, type TestDatabase } from './harness.ts';

/** How long a server process may take to say it listens: generous, for a loaded CI machine (two of its starts once took over 30 s). */
const START_TIMEOUT_MS = 60_000;

export { tokenFor };

const ROOT = path.resolve(import.meta.dirname, '../../../..');
const BIN = path.join(ROOT, 'packages/server/bin/charta-server.js');

/** What a program run to its exit said. */
export interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** `program` with `args` to its exit, from the repository's root, with this process's environment minus Charta's settings, plus `env`. */
export function runProgram(program: string, args: string[], env: NodeJS.ProcessEnv = {}): Promise<Ran> {
  return new Promise((resolve, reject) => {
    const clean: NodeJS.ProcessEnv = {};
    for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('CHARTA_') && k !== 'NODE_TEST_CONTEXT') clean[k] = v;
    const child = spawn(program, args, { cwd: ROOT, env: { ...clean, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (c) => (stdout += c));
    child.stderr!.on('data', (c) => (stderr += c));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** `charta-server` with `args` to its exit (runProgram). */
export const runChartaServer = (args: string[], env: NodeJS.ProcessEnv = {}): Promise<Ran> => runProgram(process.execPath, [BIN, ...args], env);

/** Every child started here, so `after` (and process exit) can kill whatever is left. */
export const children = new Set<ChildProcess>();
export const killAll = () => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
};
process.once('exit', killAll);
/** Kills every child left and waits until each has exited (for `after`). */
export async function stopAll(): Promise<void> {
  killAll();
  await Promise.all([...children].map((c) => (c.exitCode === null && c.signalCode === null ? new Promise((r) => c.once('exit', r)) : Promise.resolve())));
  children.clear();
}

export async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const address = server.address();
  assert.ok(address && typeof address === 'object');
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return address.port;
}

export interface ServerProcess {
  child: ChildProcess;
  url: string;
  /** What the process wrote so far (for failure messages). */
  output(): string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** `charta-server start` on the database (with `extraEnv` on top, and `args` after `start`); resolves once it listens. */
export async function startServerProcess(db: TestDatabase, extraEnv: NodeJS.ProcessEnv = {}, args: string[] = []): Promise<ServerProcess> {
  const port = await freePort();
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('CHARTA_') && k !== 'NODE_TEST_CONTEXT') env[k] = v;
  Object.assign(env, {
    CHARTA_DATABASE_URL: db.url,
    CHARTA_DATA_DIR: db.dataDir,
    CHARTA_HOST: '127.0.0.1',
    CHARTA_PORT: String(port),
    CHARTA_LOG_LEVEL: 'error',
    CHARTA_DEMO: '0',
    CHARTA_BOOTSTRAP_API_KEY: TEST_API_KEY,
    CHARTA_BOOTSTRAP_CLIENT_ID: TEST_CLIENT_ID,
    CHARTA_BOOTSTRAP_CLIENT_SECRET: TEST_CLIENT_SECRET,
    ...db.env,
    ...extraEnv,
  });
  const child = spawn(process.execPath, [BIN, 'start', ...args], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  children.add(child);
  let out = '';
  child.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (out += chunk.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  const url = `http://127.0.0.1:${port}`;
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start within ${START_TIMEOUT_MS / 1000} s:\n${out}`)), START_TIMEOUT_MS);
    const onData = () => {
      if (out.includes('Charta is listening on')) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout!.on('data', onData);
    void exited.then(({ code, signal }) => {
      clearTimeout(timer);
      reject(new Error(`server exited before listening (code ${code}, signal ${signal}):\n${out}`));
    });
  });
  return { child, url, output: () => out, exited };
}

/** `charta-server` with these arguments, to its exit: the environment is `env` alone (with `CHARTA_PORT` 0), no `CHARTA_*` of this process. */
export const runBinary = (args: string[], env: NodeJS.ProcessEnv): Promise<Ran> => runChartaServer(args, { CHARTA_PORT: '0', ...env });
