// `@charta/plugin-sdk/testing`: a plugin's tests call its handlers in the sandbox the instance
// runs them in (docs/plugins.md, "Testing a plugin"). `charta plugin test` builds the plugin's
// package, loads it as an instance loads it (the same QuickJS sandbox in a runner process, the
// same limits, `this.data` answered from a fixture under the same scope and budget) and runs the
// project's tests with CHARTA_PLUGIN_SANDBOX set to where runInSandbox sends each call. Outside
// `charta plugin test` runInSandbox throws rather than run the handler in Node, where timers,
// `require` and unbounded memory exist: a test that passes there proves nothing about the instance.
// Node only (it reads files and speaks HTTP): never import it from a handler.
import fs from 'node:fs';
import path from 'node:path';
import type { DataFixture } from '@charta/api';
import type { LogLevel } from '@charta/api/constants';
import type { Effect } from './effects.ts';
import type { EventName, PluginEvent } from './events.ts';
import type { HandlerClass, Secrets } from './handler.ts';

export type { DataFixture } from '@charta/api';

/** The environment variable `charta plugin test` sets for the tests it runs: where runInSandbox sends a call. */
export const SANDBOX_ENV = 'CHARTA_PLUGIN_SANDBOX';

/** What runInSandbox sends (POST `<CHARTA_PLUGIN_SANDBOX>call`, JSON). */
export interface SandboxRequest {
  /** The handler's class name, or `<entry>:<class>` as the manifest names it. */
  handler: string;
  event: PluginEvent;
  secrets: Secrets;
  data: DataFixture | null;
  grants: string[];
}

/** A line the handler logged, as the instance's log stream shows it. */
export interface SandboxLogLine {
  level: LogLevel;
  message: string;
}

/** A read the handler made, as the instance's audit trail would record it (`charta plugin reads`). */
export interface SandboxRead {
  /** `chart.get`, `commands.list`… */
  read: string;
  patient_key: string | null;
  keys: string[];
  rows: number;
  /** Why it was refused (out of scope); null for a read answered. */
  refused: string | null;
}

/** How a call ended, as the instance names its faults (docs/plugins.md, "Faults"). */
export type SandboxOutcome =
  'ok' | 'timeout' | 'out-of-memory' | 'threw' | 'invalid-result' | 'no-such-handler' | 'crashed' | 'unavailable' | 'budget-exceeded';

/** What `charta plugin test` answers a call (200); a request it cannot serve answers 400 `{error}`. */
export interface SandboxAnswer {
  /** `<entry>:<class>`. */
  handler: string;
  /** Whether the instance would give this event to the handler at all (its manifest's events, its RESPONDS_TO). */
  called: boolean;
  /** The event name it was given (a kind's event reaches a handler of the generic event under the generic name); null when not called. */
  type: string | null;
  outcome: SandboxOutcome | null;
  effects: Effect[];
  /** The instance's fault line (`plugin …: handler … on … threw …`); null when the call answered. */
  fault: string | null;
  logs: SandboxLogLine[];
  reads: SandboxRead[];
}

/** A call that answered. */
export interface SandboxRun {
  handler: string;
  /** false when the instance would not give the event to this handler: nothing ran, no effects. */
  called: boolean;
  effects: Effect[];
  logs: SandboxLogLine[];
  reads: SandboxRead[];
}

/** A call that did not answer: it threw, timed out, ran out of memory, went over its read budget… */
export class SandboxFault extends Error {
  constructor(
    message: string,
    /** The fault, as the instance's fault line names it (`threw`, `timeout`, `budget-exceeded`…). */
    readonly kind: SandboxOutcome,
    readonly handler: string,
    readonly logs: SandboxLogLine[],
    readonly reads: SandboxRead[],
  ) {
    super(message);
    this.name = 'SandboxFault';
  }
}

export interface SandboxOptions {
  /** `this.secrets`: only names the manifest's `secrets` declares (as on the instance). */
  secrets?: Secrets;
  /** What `this.data` reads: a fixture, or the path of its JSON file (relative to the project). None: an empty record. */
  data?: DataFixture | string;
  /** The grants an administrator gave the plugin: `data:instance` lets a manifest asking `data.scope: instance` read any patient. */
  grants?: string[];
}

/**
 * Runs one handler on one event in the instance's sandbox, as the instance runs it: only if the
 * manifest lists the event for it (and its RESPONDS_TO does), within the plugin's limits, with
 * `this.data` reading `options.data` under the manifest's scope and budget. Resolves with its
 * effects, log lines and reads; rejects with a SandboxFault when the call faults as it would on
 * the instance (a ReferenceError for `setTimeout`, an uncaught out-of-scope read, a budget
 * overrun, a deadline passed…). Only under `charta plugin test`.
 */
export async function runInSandbox<E extends EventName>(
  handler: HandlerClass<E> | string,
  event: PluginEvent<E>,
  options: SandboxOptions = {},
): Promise<SandboxRun> {
  const base = process.env[SANDBOX_ENV];
  if (base === undefined || base === '') {
    throw new Error(
      'runInSandbox runs a handler in the sandbox of `charta plugin test`: run the tests with `charta plugin test` (docs/plugins.md, "Testing a plugin")',
    );
  }
  const name = typeof handler === 'string' ? handler : handler.name;
  if (name === '') throw new TypeError('runInSandbox: name the handler by its class or by "<entry>:<class>"');
  let data: DataFixture | null = null;
  if (typeof options.data === 'string') {
    const file = path.resolve(options.data);
    try {
      data = JSON.parse(fs.readFileSync(file, 'utf8')) as DataFixture;
    } catch (err) {
      throw new Error(`runInSandbox: cannot read the fixture ${file}: ${(err as Error).message}`);
    }
  } else if (options.data !== undefined) data = options.data;
  const request: SandboxRequest = { handler: name, event: event as PluginEvent, secrets: options.secrets ?? {}, data, grants: options.grants ?? [] };
  let response: Response;
  try {
    response = await fetch(new URL('call', base), { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(request) });
  } catch (err) {
    throw new Error(`runInSandbox: the sandbox of \`charta plugin test\` (${base}) did not answer: ${(err as Error).message}`);
  }
  const body = (await response.json().catch(() => ({}))) as Partial<SandboxAnswer> & { error?: string };
  if (!response.ok || body.error !== undefined) throw new Error(`runInSandbox: ${body.error ?? `the sandbox answered ${response.status}`}`);
  const answer = body as SandboxAnswer;
  if (answer.called && answer.outcome !== 'ok') {
    throw new SandboxFault(answer.fault ?? `handler ${answer.handler} failed`, answer.outcome ?? 'crashed', answer.handler, answer.logs, answer.reads);
  }
  return { handler: answer.handler, called: answer.called, effects: answer.effects, logs: answer.logs, reads: answer.reads };
}
