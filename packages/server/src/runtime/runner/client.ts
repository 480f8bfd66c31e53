// The host side of the runner child process (docs/plugins.md, "The runner process"). One
// PluginRunner per charta-server process forks one child (child.ts), lazily on the first
// request, with an empty environment, a new empty working directory of its own, stdin ignored
// and JSON-only IPC; the child gives each plugin an isolate of its own and ends it alone. Every
// request resolves exactly once: with the child's answer, or, if the child dies (a crash,
// SIGKILL, running out of memory) or stops answering, with a failure. A dead child is restarted
// (at once the first time, then with a growing delay while it keeps dying) and every plugin that
// was loaded is loaded again, each on its own: one that fails is reported (onReloadFailed) and
// the others run. The plugins loaded together stay within the runner's memory maximum. The binding
// requests of the plugins' calls are served here, from the runner's binding table (runtime/
// bindings.ts; docs/plugins.md, "Bindings"). close() leaves nothing behind.
import { fork, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Bindings } from '../bindings.ts';
import type { CallContext } from '../calls.ts';
import type { RunnablePlugin } from '../runnable.ts';
import { BINDING_JSON_CHARS, codeOf, DEFAULT_BACKEND, DEFAULT_SANDBOX_LIMITS, type BindingAnswer, type CallResult, type JsonObject } from '../sandbox/types.ts';
import {
  batchedSender,
  OVERRUN_MARGIN_MS,
  unbatched,
  WORK_DIR_PREFIX,
  type LoadAnswer,
  type PluginToLoad,
  type RunnerRequest,
  type RunnerResponse,
  type RunnerStats,
} from './protocol.ts';

export type { LoadAnswer, RunnerHandler, RunnerStats } from './protocol.ts';

export type NoticeLevel = 'info' | 'warning' | 'error';

/** The child's entry point: child.ts's bundle, or child.ts through tsx (docs/architecture.md, "Bundled entry points"). */
const CHILD_ENTRY = fileURLToPath(new URL('../../../bin/runner-child.js', import.meta.url));

/** How long a load may take the child beyond its modules' deadlines (an isolate's start, the sandbox bootstrap); the child itself ends a load sooner. */
const LOAD_ALLOWANCE_MS = 30_000;
/** A child that dies sooner than this after its start counts as dying again (the restart delay grows). */
const STABLE_AFTER_MS = 10_000;
const MAX_RESTART_DELAY_MS = 30_000;
/**
 * Requests leave for the child as soon as this many are waiting, not only at the next turn of the
 * event loop: a SQLite group-commit batch runs its writes in one go, and without this their PRE
 * calls would all leave after the last write, the runner idle until then and the server idle
 * after (docs/performance.md, "Results (plugin isolation)").
 */
const REQUESTS_AT_ONCE = 8;
/** Longest stderr text of the child passed on as one notice. */
const STDERR_NOTICE_CHARS = 2000;

export interface PluginRunnerOptions {
  /** A line for the log stream: the child died, a plugin could not be reloaded, the child's stderr. */
  onNotice?: (level: NoticeLevel, message: string) => void;
  /** A plugin that was loaded could not be loaded again (after the child restarted, or after its isolate was ended): it does not run any more. */
  onReloadFailed?: (name: string, reasons: string[]) => void;
  /**
   * Added to a call's deadline before the host gives up on the child itself (default: the
   * child's own margin plus 5 s; the child ends an overrunning plugin's isolate well before).
   */
  guardMarginMs?: number;
  /** The most memory the plugins loaded together may ask for (their `memoryBytes` limits), in bytes. */
  maxTotalMemoryBytes?: number;
  /** What the plugins' calls may ask the server for (runtime/bindings.ts); none by default. */
  bindings?: Bindings;
  /**
   * Tests only (no configuration sets it): modules (file URLs of plain JavaScript) each exporting
   * `name` and `backend`, a sandbox backend the child registers beside the built-in ones (sandbox/registry.ts).
   */
  backendModules?: string[];
  /** The backend each plugin is loaded on (default: quickjs); the manifest names none yet. */
  backend?: string;
}

type Answer =
  { kind: 'response'; response: RunnerResponse; queuedMs?: number } | { kind: 'died'; why: string } | { kind: 'hung'; why: string } | { kind: 'closed' };

interface Pending {
  request: RunnerRequest;
  /** A call's context: what its binding requests are served for. */
  context?: CallContext;
  /** Milliseconds the child may work on it once it began. */
  guardMs: number;
  sent: boolean;
  /** When it was made, and when the child began it (its queue time is the difference). */
  madeAt: number;
  begunAt?: number;
  timer?: NodeJS.Timeout;
  settle: (answer: Answer) => void;
}

interface ChildState {
  process: ChildProcess;
  /** Sends a request in the batch of this turn of the event loop, or of REQUESTS_AT_ONCE (protocol.ts `batchedSender`). */
  send: (request: RunnerRequest) => void;
  dir: string;
  startedAt: number;
  exited: Promise<void>;
}

export class PluginRunner {
  onNotice: (level: NoticeLevel, message: string) => void;
  onReloadFailed: (name: string, reasons: string[]) => void;
  private readonly guardMarginMs: number;
  private readonly maxTotalMemoryBytes: number;
  private readonly bindings: Bindings;
  private readonly backendModules: string[];
  private readonly backend: string;
  private child: ChildState | null = null;
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  /** The plugins loaded (the last load of each name that succeeded): loaded again after a restart. */
  private readonly plugins = new Map<string, RunnablePlugin>();
  private closed = false;
  private restartTimer: NodeJS.Timeout | null = null;
  private quickDeaths = 0;
  /** How many unloads of each name were asked for. */
  private readonly unloads = new Map<string, number>();

  constructor(options: PluginRunnerOptions = {}) {
    this.onNotice = options.onNotice ?? (() => undefined);
    this.onReloadFailed = options.onReloadFailed ?? (() => undefined);
    this.guardMarginMs = options.guardMarginMs ?? OVERRUN_MARGIN_MS + 5000;
    this.maxTotalMemoryBytes = options.maxTotalMemoryBytes ?? Infinity;
    this.bindings = options.bindings ?? new Bindings();
    this.backendModules = options.backendModules ?? [];
    this.backend = options.backend ?? DEFAULT_BACKEND;
  }

  /** The child's process id while it runs (read-only; for tests and diagnostics). */
  get pid(): number | undefined {
    return this.child?.process.pid;
  }

  /** How many requests the child is working on now (read-only; for tests and diagnostics). */
  get begun(): number {
    let n = 0;
    for (const p of this.pending.values()) if (p.timer) n++;
    return n;
  }

  /** Names of the plugins loaded. */
  loadedPlugins(): string[] {
    return [...this.plugins.keys()];
  }

  /** Loads (or replaces) the plugin; a failed load leaves the version already loaded in place. */
  async load(plugin: RunnablePlugin): Promise<LoadAnswer> {
    const over = this.overMemory(plugin);
    if (over !== null) return { ok: false, reasons: [over] };
    const unloads = this.unloads.get(plugin.name) ?? 0;
    const answer = await this.loadRequest('load', plugin);
    // An unload asked for while this load was under way ran after it in the child: it wins.
    if (answer.ok && !this.closed && (this.unloads.get(plugin.name) ?? 0) === unloads) this.plugins.set(plugin.name, plugin);
    return answer;
  }

  /** Why the plugin cannot be loaded beside the others within the runner's memory maximum; null when it can. */
  private overMemory(plugin: RunnablePlugin): string | null {
    const bytes = (p: RunnablePlugin) => p.limits.memoryBytes ?? DEFAULT_SANDBOX_LIMITS.memoryBytes;
    let others = 0;
    for (const loaded of this.plugins.values()) if (loaded.name !== plugin.name) others += bytes(loaded);
    if (others + bytes(plugin) <= this.maxTotalMemoryBytes) return null;
    const mib = (n: number) => Math.round(n / 1024 / 1024);
    return `the plugins loaded already ask for ${mib(others)} MiB of the runner's ${mib(this.maxTotalMemoryBytes)} MiB, so its ${mib(bytes(plugin))} MiB do not fit (CHARTA_PLUGIN_RUNNER_MAX_MEMORY_MB)`;
  }

  /** Memory the runner holds: its process, and each loaded plugin's runtime. */
  async stats(): Promise<RunnerStats | null> {
    if (this.closed || this.child === null) return null;
    const answer = await this.request({ id: this.nextId++, op: 'stats' }, LOAD_ALLOWANCE_MS);
    return answer.kind === 'response' && answer.response.op === 'stats' ? answer.response.stats : null;
  }

  /** Ends the plugin's isolate at once, whatever it runs (tests and diagnostics); its next call loads it again. */
  async endIsolate(name: string): Promise<void> {
    if (this.closed || this.child === null) return;
    await this.request({ id: this.nextId++, op: 'end-isolate', name }, LOAD_ALLOWANCE_MS);
  }

  /** Loads the plugin in fresh runtimes, answers its handlers or every reason it fails, and disposes it. */
  check(plugin: RunnablePlugin): Promise<LoadAnswer> {
    return this.loadRequest('check', plugin);
  }

  async unload(name: string): Promise<void> {
    this.plugins.delete(name);
    this.unloads.set(name, (this.unloads.get(name) ?? 0) + 1);
    if (this.closed || (this.child === null && this.pending.size === 0)) return;
    await this.request({ id: this.nextId++, op: 'unload', name }, LOAD_ALLOWANCE_MS);
  }

  async call(
    name: string,
    entry: string,
    handler: string,
    event: JsonObject,
    secrets: Readonly<Record<string, string>>,
    context?: CallContext,
  ): Promise<CallResult> {
    const fail = (outcome: CallResult['outcome'], reloaded = false): CallResult => ({ outcome, logs: [], droppedLogLines: 0, reloaded });
    if (this.closed) return fail({ kind: 'unavailable', message: 'the plugin runner is closed' });
    const deadlineMs = this.plugins.get(name)?.limits.deadlineMs ?? DEFAULT_SANDBOX_LIMITS.deadlineMs;
    const answer = await this.request(
      { id: this.nextId++, op: 'call', name, entry, handler, event, secrets: { ...secrets } },
      deadlineMs + this.guardMarginMs,
      context,
    );
    if (answer.kind === 'closed') return fail({ kind: 'unavailable', message: 'the plugin runner is closed' });
    if (answer.kind !== 'response') return fail({ kind: 'crashed', message: answer.why }, this.plugins.has(name));
    const { response } = answer;
    if (response.op === 'called') return answer.queuedMs === undefined ? response.result : { ...response.result, queuedMs: answer.queuedMs };
    return fail({
      kind: 'crashed',
      message: response.op === 'failed' ? `the plugin runner failed: ${response.message}` : 'the plugin runner answered out of turn',
    });
  }

  /** Kills the child and removes its directory; later requests answer that the runner is closed. */
  async close(): Promise<void> {
    this.closed = true;
    if (this.restartTimer) clearTimeout(this.restartTimer);
    this.restartTimer = null;
    this.plugins.clear();
    for (const [id, p] of this.pending) {
      this.pending.delete(id);
      if (p.timer) clearTimeout(p.timer);
      p.settle({ kind: 'closed' });
    }
    const child = this.child;
    if (child) {
      child.process.kill('SIGKILL');
      await child.exited;
    }
  }

  private async loadRequest(op: 'load' | 'check', plugin: RunnablePlugin): Promise<LoadAnswer> {
    if (this.closed) return { ok: false, reasons: ['the plugin runner is closed'] };
    const wire: PluginToLoad = { name: plugin.name, backend: this.backend, ...codeOf(plugin.modules), limits: plugin.limits };
    const deadlineMs = plugin.limits.deadlineMs ?? DEFAULT_SANDBOX_LIMITS.deadlineMs;
    const guardMs = LOAD_ALLOWANCE_MS + Math.max(1, wire.entries.length) * (2000 + deadlineMs);
    const answer = await this.request({ id: this.nextId++, op, plugin: wire }, guardMs);
    if (answer.kind === 'closed') return { ok: false, reasons: ['the plugin runner is closed'] };
    if (answer.kind !== 'response') return { ok: false, reasons: [answer.why] };
    const { response } = answer;
    if (response.op === 'loaded') return response.answer;
    return { ok: false, reasons: [response.op === 'failed' ? `the plugin runner failed: ${response.message}` : 'the plugin runner answered out of turn'] };
  }

  private request(request: RunnerRequest, guardMs: number, context?: CallContext): Promise<Answer> {
    return new Promise<Answer>((resolve) => {
      const pending: Pending = { request, context, guardMs, sent: false, madeAt: Date.now(), settle: resolve };
      this.pending.set(request.id, pending);
      if (this.child) this.sendNow(this.child, pending);
      else if (this.restartTimer === null) this.start();
    });
  }

  private sendNow(child: ChildState, pending: Pending): void {
    pending.sent = true;
    child.send(pending.request);
  }

  private start(): void {
    this.restartTimer = null;
    if (this.closed) return;
    let dir: string;
    let proc: ChildProcess;
    try {
      dir = fs.mkdtempSync(path.join(os.tmpdir(), WORK_DIR_PREFIX));
    } catch (err) {
      this.cannotStart(`its working directory could not be made: ${err instanceof Error ? err.message : String(err)}`);
      return;
    }
    try {
      proc = fork(CHILD_ENTRY, this.backendModules.length > 0 ? [JSON.stringify(this.backendModules)] : [], {
        cwd: dir,
        env: {},
        execArgv: [],
        stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
        serialization: 'json',
      });
    } catch (err) {
      fs.rmSync(dir, { recursive: true, force: true });
      this.cannotStart(err instanceof Error ? err.message : String(err));
      return;
    }
    let exitedResolve!: () => void;
    const child: ChildState = {
      process: proc,
      // A send on a channel that just closed fails here; the child's exit settles the requests.
      send: batchedSender<RunnerRequest>((batch) => {
        if (proc.connected) proc.send(batch, (err) => void err);
      }, REQUESTS_AT_ONCE),
      dir,
      startedAt: Date.now(),
      exited: new Promise((r) => (exitedResolve = r)),
    };
    this.child = child;
    let gone = false;
    const onGone = (why: string): void => {
      if (gone) return;
      gone = true;
      fs.rmSync(dir, { recursive: true, force: true });
      this.died(child, why);
      exitedResolve();
    };
    proc.on('exit', (code, signal) => onGone(signal ? `signal ${signal}` : `exit code ${code}`));
    proc.on('error', (err) => {
      // The fork itself failed (no 'exit' follows), or a kill failed on a process already gone.
      if (proc.exitCode === null && proc.signalCode === null && proc.pid === undefined) onGone(`it could not start: ${err.message}`);
    });
    proc.on('message', (message) => {
      for (const response of unbatched<RunnerResponse>(message)) this.receive(child, response);
    });
    proc.stderr?.setEncoding('utf8');
    proc.stderr?.on('data', (text: string) => {
      const trimmed = text.trim();
      if (trimmed) this.onNotice('warning', `plugin runner: ${trimmed.slice(0, STDERR_NOTICE_CHARS)}`);
    });
    // The plugins that were loaded go first, then what waited for the child.
    for (const plugin of this.plugins.values()) this.reload(plugin);
    for (const pending of this.pending.values()) if (!pending.sent) this.sendNow(child, pending);
  }

  /** The child could not even be forked: what waits for it fails now; the next request tries again. */
  private cannotStart(why: string): void {
    this.onNotice('error', `the plugin runner process could not start: ${why}`);
    for (const [id, pending] of this.pending) {
      this.pending.delete(id);
      pending.settle({ kind: 'died', why: `the plugin runner process could not start: ${why}` });
    }
  }

  private reload(plugin: RunnablePlugin): void {
    void this.loadRequest('load', plugin).then((answer) => {
      if (answer.ok || this.closed || this.plugins.get(plugin.name) !== plugin) return;
      this.plugins.delete(plugin.name);
      this.onNotice('error', `plugin ${plugin.name} could not be loaded again after the plugin runner restarted: ${answer.reasons.join('; ')}`);
      this.onReloadFailed(plugin.name, answer.reasons);
    });
  }

  private receive(child: ChildState, response: RunnerResponse): void {
    if (this.child !== child || typeof response !== 'object' || response === null) return;
    if (response.op === 'lost') {
      if (this.plugins.has(response.name)) this.onReloadFailed(response.name, [response.reason]);
      return;
    }
    if (response.op === 'binding-request') {
      this.serveBinding(child, response);
      return;
    }
    const pending = this.pending.get(response.id);
    if (!pending) return;
    if (response.op === 'begin') {
      pending.begunAt = Date.now();
      pending.timer = setTimeout(() => this.hung(child, pending), pending.guardMs);
      return;
    }
    if (pending.timer) clearTimeout(pending.timer);
    this.pending.delete(response.id);
    pending.settle({ kind: 'response', response, ...(pending.begunAt === undefined ? {} : { queuedMs: pending.begunAt - pending.madeAt }) });
  }

  /**
   * A binding one of the plugin's calls asks for (docs/plugins.md, "Bindings"): answered to the
   * child that asked (if it is still the one running). The sandbox ends the call at its deadline;
   * a binding still running past the deadline and the child's margin is answered as failed, so
   * that nothing waits for it.
   */
  private serveBinding(child: ChildState, request: Extract<RunnerResponse, { op: 'binding-request' }>): void {
    if (typeof request.callId !== 'number') return;
    const answer = (a: BindingAnswer) => {
      if (this.child === child) child.send({ id: 0, op: 'binding-response', callId: request.callId, answer: a });
    };
    const plugin = typeof request.plugin === 'string' ? this.plugins.get(request.plugin) : undefined;
    if (plugin === undefined) {
      answer({ ok: false, error: 'the plugin is not loaded' });
      return;
    }
    const limits = { ...DEFAULT_SANDBOX_LIMITS, ...plugin.limits };
    // The call it belongs to, if the child named one of this plugin's calls that is still waiting.
    const call = typeof request.call === 'number' ? this.pending.get(request.call) : undefined;
    const context = call?.request.op === 'call' && call.request.name === plugin.name ? call.context : undefined;
    void this.bindings
      .serve(plugin.name, request.binding, request.args, { deadlineMs: limits.deadlineMs + OVERRUN_MARGIN_MS, maxChars: BINDING_JSON_CHARS }, context)
      .then(answer, () => answer({ ok: false, error: `binding failed` }));
  }

  /** The child worked on one request for longer than its guard: it is killed (and restarted). */
  private hung(child: ChildState, pending: Pending): void {
    if (this.child !== child || !this.pending.has(pending.request.id)) return;
    this.pending.delete(pending.request.id);
    const why = `the plugin runner process did not answer within ${pending.guardMs} ms; it was killed and is restarted`;
    this.onNotice('error', `${describeRequest(pending.request)}: ${why}`);
    pending.settle({ kind: 'hung', why });
    // It counts as dead from now: requests go to the next child, not to this one while it exits.
    this.died(child, 'it stopped answering and was killed');
    child.process.kill('SIGKILL');
  }

  private died(child: ChildState, how: string): void {
    if (this.child !== child) return;
    this.child = null;
    const why = `the plugin runner process died (${how}); it is restarted`;
    for (const [id, pending] of this.pending) {
      if (!pending.sent) continue;
      this.pending.delete(id);
      if (pending.timer) clearTimeout(pending.timer);
      pending.settle({ kind: 'died', why });
    }
    if (this.closed) return;
    this.quickDeaths = Date.now() - child.startedAt < STABLE_AFTER_MS ? this.quickDeaths + 1 : 1;
    const delay = this.quickDeaths <= 1 ? 0 : Math.min(MAX_RESTART_DELAY_MS, 250 * 2 ** (this.quickDeaths - 2));
    this.onNotice(
      'error',
      `the plugin runner process died (${how}); restarting it${delay ? ` in ${delay} ms` : ''} and loading ${this.plugins.size} plugin(s) again`,
    );
    // Nothing to load and nothing waiting: the next request starts a child.
    if (this.plugins.size === 0 && this.pending.size === 0) return;
    this.restartTimer = setTimeout(() => this.start(), delay);
  }
}

function describeRequest(request: RunnerRequest): string {
  switch (request.op) {
    case 'call':
      return `plugin ${request.name}: calling ${request.handler} of ${request.entry}`;
    case 'unload':
      return `plugin ${request.name}: unloading`;
    case 'end-isolate':
      return `plugin ${request.name}: ending its isolate`;
    case 'stats':
      return "reading the runner's memory";
    case 'load':
    case 'check':
      return `plugin ${request.plugin.name}: ${request.op === 'load' ? 'loading' : 'checking'}`;
    case 'binding-response':
      return 'answering a binding';
  }
}
