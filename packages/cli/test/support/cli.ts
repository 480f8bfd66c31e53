// Test helpers: the real `charta` binary as a subprocess (stdin not a terminal), a temporary
// config directory, and an in-memory IO with scripted prompt answers for run() unit tests.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { IO, Prompter } from '../../src/io.ts';
import type { Envelope } from '../../src/output.ts';

export const BIN = path.resolve(import.meta.dirname, '../../bin/charta.js');

export interface Result {
  code: number | null;
  stdout: string;
  stderr: string;
  /** stdout parsed line by line; the helper fails the test if a line is not JSON. */
  lines: Envelope[];
}

/** Directories made by tempDir(), removed by one exit listener (one per directory would pile up). */
const made: string[] = [];
process.once('exit', () => {
  for (const dir of made) fs.rmSync(dir, { recursive: true, force: true });
});

/** A fresh directory; removed when the process exits. */
export function tempDir(prefix = 'charta-cli-'): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  made.push(dir);
  return dir;
}

/** This process's environment without the charta settings of whoever runs the tests, plus `env`. */
function childEnv(env: Record<string, string | undefined>): NodeJS.ProcessEnv {
  const merged: NodeJS.ProcessEnv = { ...process.env };
  for (const key of ['CHARTA_CONFIG_DIR', 'CHARTA_HOST', 'CHARTA_API_KEY', 'XDG_CONFIG_HOME', 'CHARTA_DEBUG']) delete merged[key];
  for (const [key, value] of Object.entries(env)) {
    if (value === undefined) delete merged[key];
    else merged[key] = value;
  }
  return merged;
}

/**
 * Runs `node bin/charta.js ...args` with the given extra environment and no terminal. Every
 * stdout line must be JSON unless `text` is set (help output).
 */
export function charta(args: string[], env: Record<string, string | undefined>, text = false): Promise<Result> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: childEnv(env) });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => {
      const lines = (text ? '' : stdout)
        .split('\n')
        .filter((line) => line.trim() !== '')
        .map((line) => {
          try {
            return JSON.parse(line) as Envelope;
          } catch {
            assert.fail(`stdout line is not JSON: ${line}\n(stderr: ${stderr})`);
          }
        });
      resolve({ code, stdout, stderr, lines });
    });
  });
}

/** Exactly one JSON line, the given exit code, and no stack trace anywhere. */
export function single(result: Result, code: number): Envelope {
  const context = `stdout: ${result.stdout}\nstderr: ${result.stderr}`;
  assert.equal(result.code, code, context);
  assert.equal(result.lines.length, 1, context);
  assert.ok(!/\n\s+at /.test(result.stderr + result.stdout), `no stack trace\n${context}`);
  assert.equal(typeof result.lines[0]!.success, 'boolean');
  return result.lines[0]!;
}

export const mode = (file: string) => fs.statSync(file).mode & 0o777;

export interface Answers {
  input?: string[];
  password?: string[];
  confirm?: boolean[];
}

export interface FakeIO extends IO {
  asked: string[];
  out(): Envelope[];
  err(): string;
}

/** An IO whose prompts answer from `answers` (failing the test if one runs out). */
export function fakeIO(env: Record<string, string | undefined>, answers: Answers = {}, isTTY = true): FakeIO {
  let out = '';
  let err = '';
  const asked: string[] = [];
  const next = <T>(kind: keyof Answers, message: string): T => {
    asked.push(`${kind}: ${message}`);
    const queue = answers[kind] as T[] | undefined;
    if (!queue?.length) assert.fail(`unexpected ${kind} prompt: ${message}`);
    return queue.shift()!;
  };
  const prompt: Prompter = {
    async input({ message, default: fallback, validate }) {
      // An empty answer is Enter on the prompt: the default, as @inquirer/prompts gives it.
      const typed = next<string>('input', message);
      const value = typed === '' && fallback !== undefined ? fallback : typed;
      if (validate) assert.equal(validate(value), true, `the prompt accepts ${value}`);
      return value;
    },
    async password({ message }) {
      return next<string>('password', message);
    },
    async confirm({ message }) {
      return next<boolean>('confirm', message);
    },
  };
  return {
    stdout: { write: (chunk: string) => (out += chunk) },
    stderr: { write: (chunk: string) => (err += chunk) },
    stdin: process.stdin,
    isTTY,
    env,
    prompt,
    asked,
    out: () =>
      out
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as Envelope),
    err: () => err,
  };
}

/** A port nothing listens on. */
export async function closedPort(): Promise<number> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

export interface Follower {
  child: ChildProcess;
  lines: Envelope[];
  stderr(): string;
  /** Waits until a line satisfies `test` (or fails after `ms`). */
  waitFor(test: (line: Envelope) => boolean, ms?: number): Promise<Envelope>;
  exited: Promise<number | null>;
}

const children = new Set<ChildProcess>();

/** Kills every follower still running (for an after() hook). */
export function killFollowers(): void {
  for (const child of children) child.kill('SIGKILL');
}

/** `charta logs …` left running, its stdout parsed line by line as it arrives. */
export function follow(args: string[], env: Record<string, string>): Follower {
  const child = spawn(process.execPath, [BIN, 'logs', ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: childEnv(env) });
  children.add(child);
  const lines: Envelope[] = [];
  const waiters = new Set<() => void>();
  let pending = '';
  let stderr = '';
  child.stderr!.on('data', (chunk) => (stderr += chunk));
  child.stdout!.on('data', (chunk) => {
    pending += chunk;
    let newline: number;
    while ((newline = pending.indexOf('\n')) >= 0) {
      const line = pending.slice(0, newline);
      pending = pending.slice(newline + 1);
      if (line.trim() === '') continue;
      try {
        lines.push(JSON.parse(line) as Envelope);
      } catch {
        lines.push({ success: false, message: `NOT JSON: ${line}` });
      }
    }
    for (const w of waiters) w();
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => (children.delete(child), resolve(code))));
  return {
    child,
    lines,
    stderr: () => stderr,
    exited,
    waitFor: (test, ms = 8000) =>
      new Promise((resolve, reject) => {
        const check = () => {
          const found = lines.find(test);
          if (!found) return;
          waiters.delete(check);
          clearTimeout(timer);
          resolve(found);
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`no matching line in ${ms} ms: ${JSON.stringify(lines)}\nstderr: ${stderr}`));
        }, ms);
        waiters.add(check);
        check();
      }),
  };
}

export const event = (line: Envelope) =>
  typeof line.message === 'object' && line.message !== null ? String((line.message as { event?: unknown }).event ?? '') : '';
