// The runner child process (docs/plugins.md, "The runner process"): one per charta-server
// process, forked by client.ts with an empty environment and an empty working directory of its
// own. Its main thread runs no plugin code: it gives each loaded plugin an isolate of its own (a
// worker thread, isolate.ts, holding the plugin's sandbox on the backend its PluginToLoad names:
// sandbox/registry.ts) and routes requests to it, and routes the binding requests of its calls to
// the host and their answers back (docs/plugins.md, "Bindings").
// Requests on one plugin run in the order they came, one at a time; different plugins run side
// by side. A call's clock starts when it is handed to its isolate; one that runs past its
// deadline and the margin (a built-in that never checks the deadline) ends that isolate alone,
// which is loaded again before the plugin's next call. Isolates start and evaluate their modules
// a few at a time (Loader), and the isolate of a check that passed is kept a while for the load of
// the same code (CheckedIsolates). The main thread stays free, so an answer of any size leaves at
// once. It answers every request exactly once.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { isMainThread, Worker, workerData } from 'node:worker_threads';
import { backendEntry, DEFAULT_BACKEND, registerBackendModules, unknownBackend } from '../sandbox/registry.ts';
import { DEFAULT_SANDBOX_LIMITS, type BindingAnswer, type CallResult } from '../sandbox/types.ts';
import { isIsolate, runIsolate, type IsolateData } from './isolate.ts';
import {
  batchedSender,
  OVERRUN_MARGIN_MS,
  unbatched,
  WORK_DIR_PREFIX,
  type IsolateRequest,
  type IsolateResponse,
  type LoadAnswer,
  type PluginToLoad,
  type RunnerRequest,
  type RunnerResponse,
  type RunnerStats,
} from './protocol.ts';

/** How long a new isolate may take to start (a thread, QuickJS instantiated) before it is given up. */
const START_ALLOWANCE_MS = 20_000;
/** Per module at load, beyond the plugin's deadline: the sandbox's bootstrap of the module's context. */
const BOOTSTRAP_ALLOWANCE_MS = 2000;
/** The V8 heap of an isolate's own thread (the plugin's QuickJS memory is apart, under its own limit). */
const ISOLATE_HEAP_MB = 64;

type Answer =
  | { kind: 'response'; response: IsolateResponse }
  | { kind: 'overran' }
  | { kind: 'died'; why: string }
  /** The isolate ended before it started this request: it never ran, and may be asked of the next one. */
  | { kind: 'cut' };

/** A request the isolate was given: its guard, what to do when the isolate starts it, and who waits for its answer. */
interface Asked {
  guardMs: number;
  /** The host's request id of a call (0 for anything else): what the call's binding requests belong to. */
  tag: number;
  onStart?: () => void;
  resolve(answer: Answer): void;
}

/**
 * One isolate thread: started, given requests that it serves one after another in the order
 * given (several may be sent ahead, so it never waits for the main thread between two calls),
 * each under a guard that starts when the isolate starts it, and ended.
 */
class IsolateThread {
  /** In order; the first is the one the isolate serves now. */
  private readonly asked: Asked[] = [];
  private timer: NodeJS.Timeout | undefined;
  private ended: string | null = null;

  private constructor(
    private readonly worker: Worker,
    /** Where its calls' binding requests go: the host, for a loaded plugin; nowhere, while it is checked. */
    private onBinding: BindingAsked,
  ) {
    worker.on('message', (message: IsolateResponse) => {
      // A binding its call asks for is no answer: the call goes on.
      if (message.op === 'binding-request') this.onBinding(this, message);
      else this.answered({ kind: 'response', response: message });
    });
    worker.on('error', (err) => this.end(`${err.name}: ${err.message}`));
    worker.on('exit', (code) => this.end(`its thread exited with code ${code}`));
  }

  /** A new isolate on the backend, once it is ready, or why it could not start. */
  static async start(backends: Backends, backend: string, onBinding: BindingAsked): Promise<IsolateThread | string> {
    let worker: Worker;
    try {
      const prepared = await backends.prepared(backend);
      worker = new Worker(process.argv[1]!, {
        workerData: { role: 'isolate', backend, prepared, backendModules: backends.modules } satisfies IsolateData,
        env: {},
        resourceLimits: { maxOldGenerationSizeMb: ISOLATE_HEAP_MB },
      });
    } catch (err) {
      return err instanceof UnknownBackend ? err.message : `its isolate could not start: ${err instanceof Error ? err.message : String(err)}`;
    }
    const thread = new IsolateThread(worker, onBinding);
    // Its first message, unasked, says it is ready.
    const ready = await thread.expect(START_ALLOWANCE_MS);
    if (ready.kind === 'response' && ready.response.op === 'ready') return thread;
    thread.terminate();
    return ready.kind === 'overran'
      ? `its isolate did not start within ${START_ALLOWANCE_MS} ms`
      : `its isolate could not start: ${ready.kind === 'died' ? ready.why : 'it answered out of turn'}`;
  }

  /**
   * Sends the request: its answer; `overran` (the thread is ended) when it runs past `guardMs`
   * from the moment the isolate starts it (`onStart`); `died`; or `cut` when the isolate ended
   * before it got to it.
   */
  ask(request: IsolateRequest, guardMs: number, onStart?: () => void, tag = 0): Promise<Answer> {
    if (this.ended !== null) return Promise.resolve({ kind: 'cut' });
    const answer = this.expect(guardMs, onStart, tag);
    this.worker.postMessage(request);
    return answer;
  }

  private expect(guardMs: number, onStart?: () => void, tag = 0): Promise<Answer> {
    return new Promise<Answer>((resolve) => {
      this.asked.push({ guardMs, tag, onStart, resolve });
      if (this.asked.length === 1) this.startFirst();
    });
  }

  private startFirst(): void {
    const first = this.asked[0];
    if (first === undefined) return;
    first.onStart?.();
    this.timer = setTimeout(() => {
      this.answered({ kind: 'overran' });
      this.terminate();
    }, first.guardMs);
  }

  /** The request served now is answered; the next one starts. */
  private answered(answer: Answer): void {
    clearTimeout(this.timer);
    this.asked.shift()?.resolve(answer);
    if (this.ended === null) this.startFirst();
  }

  private end(why: string): void {
    if (this.ended !== null) return;
    this.ended = why;
    clearTimeout(this.timer);
    const [now, ...later] = this.asked.splice(0);
    now?.resolve({ kind: 'died', why });
    for (const waiting of later) waiting.resolve({ kind: 'cut' });
  }

  get alive(): boolean {
    return this.ended === null;
  }

  /** Its calls' binding requests go there from now (a checked isolate taken by the load of its plugin). */
  routeBindings(onBinding: BindingAsked): void {
    this.onBinding = onBinding;
  }

  /**
   * The tag of the request the isolate serves now. An isolate's messages come in the order it
   * sent them, so a binding request arrives while the call that made it is still this one.
   */
  get serving(): number {
    return this.asked[0]?.tag ?? 0;
  }

  /** Hands the host's answer to a binding its call asked for (the isolate's own callId). */
  answerBinding(callId: number, answer: BindingAnswer): void {
    if (this.ended === null) this.worker.postMessage({ op: 'binding-response', callId, answer } satisfies IsolateRequest);
  }

  /** Ends the thread at once, whatever it is running (which answers `died`); its memory goes with it. */
  terminate(why = 'it was ended'): void {
    this.end(why);
    void this.worker.terminate();
  }
}

/** A binding request of an isolate's call. */
type BindingAsked = (thread: IsolateThread, request: Extract<IsolateResponse, { op: 'binding-request' }>) => void;

class UnknownBackend extends Error {}

/**
 * The sandbox backends of this child (sandbox/registry.ts): each prepared once, on first use
 * (QuickJS: its WebAssembly compiled), for every isolate of it; and the modules of backends the
 * host registers beside the built-in ones (tests only), imported here and in each isolate.
 */
class Backends {
  private readonly ready: Promise<void>;
  private readonly preparing = new Map<string, Promise<unknown>>();

  constructor(readonly modules: string[]) {
    this.ready = registerBackendModules(modules);
    this.ready.catch(() => undefined); // each load reports it
  }

  /** What the backend's isolates are given; UnknownBackend when no backend has that name. */
  async prepared(name: string): Promise<unknown> {
    await this.ready;
    const entry = backendEntry(name);
    if (entry === undefined) throw new UnknownBackend(unknownBackend(name));
    let prepared = this.preparing.get(name);
    if (prepared === undefined) {
      prepared = entry.prepare?.() ?? Promise.resolve(undefined);
      this.preparing.set(name, prepared);
    }
    return prepared;
  }
}

const limitsOf = (plugin: PluginToLoad) => ({ ...DEFAULT_SANDBOX_LIMITS, ...plugin.limits });

/** How long evaluating the plugin's modules may take before its isolate is ended. */
const loadGuardMs = (plugin: PluginToLoad) => Math.max(1, plugin.entries.length) * (limitsOf(plugin).deadlineMs + BOOTSTRAP_ALLOWANCE_MS) + OVERRUN_MARGIN_MS;

/**
 * Isolates started and evaluating their plugin's modules at once, at most: a load, a check, a load
 * again after an isolate ended. Evaluating a module is work for a core, and its deadline and guard
 * are wall time: a runner starting with 30 plugins of 700 KB each started 30 isolates at once on
 * a 2-core machine, and nearly every load ran past its guard (docs/performance.md, "Plugin
 * platform"). A load waits here for its turn before its isolate starts; its guards start with it.
 */
const LOADS_AT_ONCE = Math.max(2, os.availableParallelism());

/** Runs at most `size` pieces of work at once; the others wait in the order they came. */
class Slots {
  private free: number;
  private readonly waiting: Array<() => void> = [];

  constructor(size: number) {
    this.free = size;
  }

  async run<T>(work: () => Promise<T>): Promise<T> {
    if (this.free > 0) this.free--;
    else await new Promise<void>((resolve) => this.waiting.push(resolve));
    try {
      return await work();
    } finally {
      const next = this.waiting.shift();
      if (next !== undefined) next();
      else this.free++;
    }
  }
}

type Loaded = { ok: true; thread: IsolateThread; answer: LoadAnswer } | { ok: false; reasons: string[] };

/**
 * How the child starts isolates (each its turn, LOADS_AT_ONCE at a time) and what it counts of
 * them (RunnerStats).
 */
class Loader {
  private readonly slots = new Slots(LOADS_AT_ONCE);
  /** Isolates started since the child started, each evaluating its plugin's modules. */
  started = 0;

  constructor(readonly backends: Backends) {}

  /**
   * Loads the plugin in a new isolate, once its turn comes (`onStart`: then): the isolate, or
   * every reason it failed (the isolate ended).
   */
  load(plugin: PluginToLoad, onBinding: BindingAsked, onStart?: () => void): Promise<Loaded> {
    return this.slots.run(() => {
      onStart?.();
      return this.loadNow(plugin, onBinding);
    });
  }

  private async loadNow(plugin: PluginToLoad, onBinding: BindingAsked): Promise<Loaded> {
    const backends = this.backends;
    if (typeof plugin.backend !== 'string' || backendEntry(plugin.backend) === undefined) {
      // Modules registered by the host may still be on their way: the backend's preparation tells.
      try {
        await backends.prepared(plugin.backend);
      } catch (err) {
        return { ok: false, reasons: [err instanceof Error ? err.message : String(err)] };
      }
    }
    const thread = await IsolateThread.start(backends, plugin.backend, onBinding);
    if (typeof thread === 'string') return { ok: false, reasons: [thread] };
    this.started++;
    const guardMs = loadGuardMs(plugin);
    const answer = await thread.ask({ op: 'load', plugin }, guardMs);
    if (answer.kind === 'response' && answer.response.op === 'loaded' && answer.response.ok) {
      const handlers = answer.response.modules.flatMap((m) => m.handlers.map((h) => ({ entry: m.entry, ...h })));
      return { ok: true, thread, answer: { ok: true, handlers } };
    }
    thread.terminate();
    if (answer.kind === 'overran') {
      return {
        ok: false,
        reasons: [`evaluating its modules ran past ${guardMs} ms without stopping at the deadline (a built-in that never checks it); its isolate was ended`],
      };
    }
    if (answer.kind === 'died') return { ok: false, reasons: [`its isolate died while loading: ${answer.why}`] };
    if (answer.kind === 'cut') return { ok: false, reasons: ['its isolate ended before it could load the plugin'] };
    const response = answer.response;
    if (response.op === 'loaded' && !response.ok) return { ok: false, reasons: response.reasons };
    return { ok: false, reasons: [`its isolate failed: ${response.op === 'failed' ? response.message : 'it answered out of turn'}`] };
  }
}

/** How long the isolate of a check that passed is kept for the load of the same code (docs/plugins.md, "The install check"). */
const KEEP_CHECKED_MS = 10_000;
/** Isolates of checks kept at most; past it, the oldest is ended. */
const KEEP_CHECKED_MAX = 4;

/**
 * Whether two loads run the same code the same way: the same plugin name, backend and entries,
 * the same text of every file, the same limits. Nothing else a load gives a sandbox.
 */
function sameCode(a: PluginToLoad, b: PluginToLoad): boolean {
  if (a.name !== b.name || a.backend !== b.backend) return false;
  if (!Array.isArray(a.entries) || !Array.isArray(b.entries) || a.entries.length !== b.entries.length) return false;
  if (a.entries.some((entry, i) => entry !== b.entries[i])) return false;
  const files = Object.keys(a.files);
  if (files.length !== Object.keys(b.files).length) return false;
  if (!files.every((file) => Object.hasOwn(b.files, file) && typeof a.files[file] === 'string' && a.files[file] === b.files[file])) return false;
  const [la, lb] = [limitsOf(a) as Record<string, unknown>, limitsOf(b) as Record<string, unknown>];
  return [...new Set([...Object.keys(la), ...Object.keys(lb)])].every((key) => la[key] === lb[key]);
}

/**
 * The isolates of checks that passed, kept a while (docs/plugins.md, "The install check"): an
 * install or update checks its package, stores it, and then every process loads it; the load in
 * the process that checked it takes the checked isolate instead of starting another one that
 * evaluates the same modules again, if it loads exactly what was checked (sameCode). Nothing ran
 * in a checked isolate since its modules were evaluated: no call reaches it. Each is ended after
 * KEEP_CHECKED_MS, or when KEEP_CHECKED_MAX newer ones are kept.
 */
class CheckedIsolates {
  private readonly kept: Array<{ plugin: PluginToLoad; thread: IsolateThread; answer: LoadAnswer; timer: NodeJS.Timeout }> = [];
  /** Loads that took a checked isolate since the child started. */
  taken = 0;

  keep(plugin: PluginToLoad, thread: IsolateThread, answer: LoadAnswer): void {
    const entry = { plugin, thread, answer, timer: setTimeout(() => this.end(entry), KEEP_CHECKED_MS) };
    this.kept.push(entry);
    while (this.kept.length > KEEP_CHECKED_MAX) this.end(this.kept[0]!);
  }

  /** The isolate of a check of this very code, taken out (the caller routes its bindings); undefined when none is kept. */
  take(plugin: PluginToLoad): { thread: IsolateThread; answer: LoadAnswer } | undefined {
    const index = this.kept.findIndex((k) => k.thread.alive && sameCode(k.plugin, plugin));
    if (index < 0) return undefined;
    const { thread, answer, timer } = this.kept.splice(index, 1)[0]!;
    clearTimeout(timer);
    this.taken++;
    return { thread, answer };
  }

  get size(): number {
    return this.kept.length;
  }

  private end(entry: (typeof this.kept)[number]): void {
    const index = this.kept.indexOf(entry);
    if (index >= 0) this.kept.splice(index, 1);
    clearTimeout(entry.timer);
    entry.thread.terminate('no load of its plugin took it');
  }
}

const unavailable = (message: string): CallResult => ({ outcome: { kind: 'unavailable', message }, logs: [], droppedLogLines: 0, reloaded: false });

type Job = { kind: 'request'; request: RunnerRequest } | { kind: 'memory'; answer: (bytes: number | null) => void };

/** Calls of one plugin sent to its isolate ahead of their turn, at most. */
const CALLS_AHEAD = 8;

/** One plugin in the child: its isolate and the queue of its requests. */
class Plugin {
  private thread: IsolateThread | null = null;
  /** What runs in the isolate: loaded again after the isolate was ended. */
  private loaded: PluginToLoad | null = null;
  /** Why it cannot run: loading it again after its isolate ended failed (until the next load). */
  private broken: string | null = null;
  /** The load of a new isolate after the last one ended, while it is under way. */
  private reloading: Promise<void> | null = null;
  private readonly queue: Job[] = [];
  private running = false;

  constructor(
    readonly name: string,
    private readonly loader: Loader,
    /** The isolates of checks that passed: a load of what was checked takes its isolate. */
    private readonly checked: CheckedIsolates,
    private readonly reply: (response: RunnerResponse) => void,
    private readonly forget: (plugin: Plugin) => void,
    /** Passes a binding request of this plugin's calls on to the host. */
    private readonly onBinding: BindingAsked,
  ) {}

  enqueue(job: Job): void {
    this.queue.push(job);
    if (!this.running) void this.drain();
  }

  /**
   * Serves the queue in order. Calls are given to the isolate as they come, up to CALLS_AHEAD
   * ahead of the one it runs; any other request waits until every call before it is answered.
   */
  private async drain(): Promise<void> {
    this.running = true;
    const calls = new Set<Promise<void>>();
    try {
      for (;;) {
        const job = this.queue.shift();
        if (job === undefined) {
          if (calls.size === 0) break;
          await Promise.race(calls);
          continue;
        }
        if (job.kind === 'request' && job.request.op === 'call') {
          while (calls.size >= CALLS_AHEAD) await Promise.race(calls);
          const request = job.request;
          const answered: Promise<void> = this.call(request).then(
            (result) => this.reply({ id: request.id, op: 'called', result }),
            (err: unknown) => this.reply({ id: request.id, op: 'failed', message: describeError(err) }),
          );
          calls.add(answered);
          void answered.finally(() => calls.delete(answered));
          continue;
        }
        await Promise.all(calls);
        if (job.kind === 'memory') {
          job.answer(await this.askMemory());
          continue;
        }
        const { request } = job;
        // A load begins when its isolate starts (its turn among the loads: Loader).
        if (request.op !== 'load') this.reply({ id: request.id, op: 'begin' });
        let response: RunnerResponse;
        try {
          response = await this.serve(request);
        } catch (err) {
          response = { id: request.id, op: 'failed', message: describeError(err) };
        }
        this.reply(response);
      }
    } finally {
      this.running = false;
    }
    if (this.loaded === null && this.thread === null) this.forget(this);
  }

  private async serve(request: RunnerRequest): Promise<RunnerResponse> {
    switch (request.op) {
      case 'load': {
        // A new version gets a new isolate; a load that fails leaves the one loaded before in place.
        await this.reloading;
        const kept = this.checked.take(request.plugin);
        let result: Loaded;
        if (kept === undefined) result = await this.loader.load(request.plugin, this.onBinding, () => this.reply({ id: request.id, op: 'begin' }));
        else {
          this.reply({ id: request.id, op: 'begin' });
          kept.thread.routeBindings(this.onBinding);
          result = { ok: true, ...kept };
        }
        if (!result.ok) return { id: request.id, op: 'loaded', answer: result };
        this.thread?.terminate();
        this.thread = result.thread;
        this.loaded = request.plugin;
        this.broken = null;
        return { id: request.id, op: 'loaded', answer: result.answer };
      }
      case 'unload':
        await this.reloading;
        this.thread?.terminate();
        this.thread = null;
        this.loaded = null;
        return { id: request.id, op: 'unloaded' };
      case 'call':
      case 'end-isolate':
      case 'stats':
      case 'check':
      case 'binding-response':
        return { id: request.id, op: 'failed', message: `${request.op} is not served here` };
    }
  }

  /** One call: the host hears `begin` when its isolate starts it, and the result. */
  private async call(request: Extract<RunnerRequest, { op: 'call' }>): Promise<CallResult> {
    const { entry, handler, event, secrets } = request;
    for (;;) {
      await this.ensureIsolate();
      const thread = this.thread;
      if (this.loaded === null || thread === null) return unavailable(this.broken ?? `the plugin ${this.name} is not loaded`);
      const deadlineMs = limitsOf(this.loaded).deadlineMs;
      const answer = await thread.ask(
        { op: 'call', entry, handler, event, secrets },
        deadlineMs + OVERRUN_MARGIN_MS,
        () => this.reply({ id: request.id, op: 'begin' }),
        request.id,
      );
      // The isolate ended before this call's turn: it never ran, so the next isolate runs it.
      if (answer.kind === 'cut') continue;
      if (answer.kind === 'response' && answer.response.op === 'called') return answer.response.result;
      thread.terminate();
      void this.ensureIsolate();
      if (answer.kind === 'overran') {
        return { outcome: { kind: 'timeout', deadlineMs, ended: true }, logs: [], droppedLogLines: 0, reloaded: false };
      }
      const why = answer.kind === 'died' ? answer.why : answer.response.op === 'failed' ? answer.response.message : 'it answered out of turn';
      return {
        outcome: { kind: 'crashed', message: `the plugin's isolate failed (${why}); it is loaded again` },
        logs: [],
        droppedLogLines: 0,
        reloaded: false,
      };
    }
  }

  /** After its isolate ended, the plugin is loaded again in a new one (once, whoever asks). */
  private ensureIsolate(): Promise<void> {
    if (this.thread !== null && this.thread.alive) return Promise.resolve();
    this.thread = null;
    if (this.loaded === null || this.broken !== null) return Promise.resolve();
    this.reloading ??= this.reload().finally(() => (this.reloading = null));
    return this.reloading;
  }

  private async reload(): Promise<void> {
    const loaded = this.loaded!;
    let reasons: string[];
    try {
      const result = await this.loader.load(loaded, this.onBinding);
      if (result.ok && this.loaded === loaded) {
        this.thread = result.thread;
        return;
      }
      if (result.ok) result.thread.terminate();
      reasons = result.ok ? ['it was unloaded meanwhile'] : result.reasons;
    } catch (err) {
      reasons = [describeError(err)];
    }
    this.broken = `the plugin ${this.name} could not be loaded again after its isolate was ended: ${reasons.join('; ')}`;
    // The host hears of it now, not at the plugin's next call: it is not running any more.
    this.reply({ id: 0, op: 'lost', name: this.name, reason: this.broken });
  }

  /** Ends its isolate now, whatever it runs (for tests and diagnostics): a call under way fails, the next one loads the plugin again. */
  endNow(): void {
    this.thread?.terminate('it was ended on request');
  }

  /**
   * Bytes its runtime holds, asked between its calls; null while it has no isolate, or when its
   * queue does not get there within a second.
   */
  memoryBytes(): Promise<number | null> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve(null), 1000);
      this.enqueue({
        kind: 'memory',
        answer: (bytes) => {
          clearTimeout(timer);
          resolve(bytes);
        },
      });
    });
  }

  private async askMemory(): Promise<number | null> {
    if (this.thread === null || !this.thread.alive) return null;
    const answer = await this.thread.ask({ op: 'memory' }, 1000);
    return answer.kind === 'response' && answer.response.op === 'memory' ? answer.response.bytes : null;
  }

  get hasIsolate(): boolean {
    return this.thread !== null && this.thread.alive;
  }
}

const describeError = (err: unknown): string => (err instanceof Error ? `${err.name}: ${err.message}` : 'unknown error');

/** The modules of backends the host registers beside the built-in ones: the child's one argument, a JSON list of file URLs (tests only). */
function backendModulesOf(arg: string | undefined): string[] {
  if (arg === undefined) return [];
  const list = JSON.parse(arg) as unknown;
  return Array.isArray(list) ? list.filter((url): url is string => typeof url === 'string') : [];
}

function serveChild(): void {
  const backends = new Backends(backendModulesOf(process.argv[2]));
  // The default backend is prepared at once (QuickJS's WebAssembly compiled for every isolate);
  // requests that come meanwhile wait for it where they need it. Each load reports a failure.
  backends.prepared(DEFAULT_BACKEND).catch(() => undefined);
  const loader = new Loader(backends);
  const checked = new CheckedIsolates();
  const plugins = new Map<string, Plugin>();
  const send = batchedSender<RunnerResponse>((batch) => void process.send?.(batch));

  // Binding requests passed to the host, by the child's own callId: the isolate that asked and its
  // callId. The plugin's name is the child's, never the isolate's word (docs/plugins.md, "Bindings").
  const bindingRoutes = new Map<number, { thread: IsolateThread; callId: number }>();
  let nextBindingId = 1;
  const askHost =
    (plugin: string): BindingAsked =>
    (thread, request) => {
      const callId = nextBindingId++;
      bindingRoutes.set(callId, { thread, callId: request.callId });
      send({ id: 0, op: 'binding-request', callId, call: thread.serving, plugin, binding: request.binding, args: request.args });
    };
  const noBinding: BindingAsked = (thread, request) =>
    thread.answerBinding(request.callId, { ok: false, error: 'no binding can be called while a plugin is checked' });

  const pluginOf = (name: string): Plugin => {
    let plugin = plugins.get(name);
    if (plugin === undefined) {
      plugin = new Plugin(
        name,
        loader,
        checked,
        send,
        (p) => {
          if (plugins.get(p.name) === p) plugins.delete(p.name);
        },
        askHost(name),
      );
      plugins.set(name, plugin);
    }
    return plugin;
  };

  const check = async (request: Extract<RunnerRequest, { op: 'check' }>): Promise<void> => {
    const result = await loader.load(request.plugin, noBinding, () => send({ id: request.id, op: 'begin' }));
    if (result.ok) checked.keep(request.plugin, result.thread, result.answer);
    send({ id: request.id, op: 'loaded', answer: result.ok ? result.answer : result });
  };

  const stats = async (request: Extract<RunnerRequest, { op: 'stats' }>): Promise<void> => {
    send({ id: request.id, op: 'begin' });
    const loaded = [...plugins.values()].filter((p) => p.hasIsolate);
    const bytes = await Promise.all(loaded.map((p) => p.memoryBytes()));
    const answer: RunnerStats = {
      rssBytes: process.memoryUsage().rss,
      plugins: loaded.map((p, i) => ({ name: p.name, memoryBytes: bytes[i]! })),
      isolatesStarted: loader.started,
      loadsAtOnce: LOADS_AT_ONCE,
      checkedTaken: checked.taken,
      checkedKept: checked.size,
    };
    send({ id: request.id, op: 'stats', stats: answer });
  };

  process.on('message', (message: unknown) => {
    for (const request of unbatched<RunnerRequest>(message)) serve(request);
  });
  const serve = (request: RunnerRequest): void => {
    if (typeof request !== 'object' || request === null || typeof request.id !== 'number') return;
    const fail = (err: unknown) => send({ id: request.id, op: 'failed', message: err instanceof Error ? `${err.name}: ${err.message}` : 'unknown error' });
    if (request.op === 'binding-response') {
      // Out of every queue: the call waiting for it is under way.
      const route = bindingRoutes.get(request.callId);
      bindingRoutes.delete(request.callId);
      route?.thread.answerBinding(route.callId, request.answer);
    } else if (request.op === 'end-isolate') {
      // Out of the plugin's queue: it ends what the isolate runs now.
      send({ id: request.id, op: 'begin' });
      plugins.get(request.name)?.endNow();
      send({ id: request.id, op: 'unloaded' });
    } else if (request.op === 'check') void check(request).catch(fail);
    else if (request.op === 'stats') void stats(request).catch(fail);
    else if (request.op === 'load') pluginOf(request.plugin.name).enqueue({ kind: 'request', request });
    else pluginOf(request.name).enqueue({ kind: 'request', request });
  };
}

// The host is gone (or closed the channel): nothing is left to serve. A host that was killed
// cannot remove the working directory it made for this process, so the child removes it, only
// if it is still empty (rmdir refuses anything else) and has the name the host gives it.
function leaveWithHost(): void {
  process.on('disconnect', () => {
    const cwd = process.cwd();
    if (path.basename(cwd).startsWith(WORK_DIR_PREFIX)) {
      try {
        fs.rmdirSync(cwd);
      } catch {
        // not empty, or already gone
      }
    }
    process.exit(0);
  });
}

if (!isMainThread && isIsolate(workerData)) {
  runIsolate();
} else if (isMainThread) {
  leaveWithHost();
  serveChild();
}
