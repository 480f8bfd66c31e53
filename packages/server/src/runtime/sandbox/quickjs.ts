// The QuickJS backend of the sandbox (docs/plugins.md, "The sandbox"). Each loaded plugin gets
// its own WebAssembly instance of QuickJS with one runtime and one context: a memory limit, a
// stack limit, an interrupt handler enforcing the deadline of each call (and of evaluating the
// module), and a module loader that refuses every import. After a timeout or an out-of-memory
// fault the plugin's runtime is thrown away and the bundle is loaded again in a fresh one, so
// the next call starts clean; the result of the faulting call says so (`reloaded`).
import type { QuickJSContext, QuickJSHandle, QuickJSRuntime } from 'quickjs-emscripten';
import { newQuickJSWASMModule } from 'quickjs-emscripten';
import { BOOTSTRAP_SOURCE } from './bootstrap.ts';
import type { CallOutcome, CallResult, HandlerInfo, JsonObject, LoadResult, LoadedPlugin, SandboxBackend, SandboxLimits, SandboxLogLine } from './types.ts';
import { DEFAULT_SANDBOX_LIMITS } from './types.ts';

const BOOTSTRAP_BUDGET_MS = 10_000;
const LEVELS: ReadonlySet<string> = new Set(['debug', 'info', 'warning', 'error']);

type Settled = { state: 'fulfilled'; value: QuickJSHandle } | { state: 'rejected'; error: QuickJSHandle } | { state: 'timeout' } | { state: 'stuck' };

class LoadFailure extends Error {}

/** One plugin's QuickJS instance: runtime, context, the bootstrap's functions and its handlers. */
class Instance {
  private deadline = 0;
  private fired = false;
  private active = false;
  private logs: SandboxLogLine[] = [];
  private dropped = 0;
  private invokeFn!: QuickJSHandle;
  private describeFn!: QuickJSHandle;
  private api!: QuickJSHandle;
  private hostLog!: QuickJSHandle;
  handlers: HandlerInfo[] = [];

  private constructor(
    private readonly runtime: QuickJSRuntime,
    private readonly context: QuickJSContext,
    private readonly limits: SandboxLimits,
  ) {}

  static async create(name: string, source: string, limits: SandboxLimits): Promise<Instance> {
    const wasm = await newQuickJSWASMModule();
    const runtime = wasm.newRuntime();
    runtime.setMemoryLimit(limits.memoryBytes);
    runtime.setMaxStackSize(limits.stackBytes);
    runtime.setModuleLoader((specifier) => ({ error: new Error(`the bundle imports "${specifier}": a plugin bundle must inline everything it imports`) }));
    const instance = new Instance(runtime, runtime.newContext(), limits);
    runtime.setInterruptHandler(() => instance.shouldInterrupt());
    // A failed load is abandoned, not disposed: see abandon().
    instance.start(name, source);
    return instance;
  }

  private shouldInterrupt(): boolean {
    if (!this.active) return true;
    if (Date.now() <= this.deadline) return false;
    this.fired = true;
    return true;
  }

  private begin(budgetMs = this.limits.deadlineMs): void {
    this.deadline = Date.now() + budgetMs;
    this.fired = false;
    this.active = true;
    this.logs = [];
    this.dropped = 0;
  }

  private start(name: string, source: string): void {
    const ctx = this.context;
    this.hostLog = ctx.newFunction('log', (level, message) => this.log(level, message));
    // The bootstrap is the sandbox's own code: it does not spend the plugin's deadline.
    this.begin(BOOTSTRAP_BUDGET_MS);
    try {
      const factory = this.unwrapOrFail(
        ctx.evalCode(BOOTSTRAP_SOURCE, 'charta-bootstrap.js', { type: 'global', strict: true }),
        'running the sandbox bootstrap',
      );
      const limitsJson = ctx.newString(JSON.stringify(this.limits));
      const api = ctx.callFunction(factory, ctx.undefined, this.hostLog, limitsJson);
      factory.dispose();
      limitsJson.dispose();
      this.api = this.unwrapOrFail(api, 'running the sandbox bootstrap');
      this.invokeFn = ctx.getProp(this.api, 'invoke');
      this.describeFn = ctx.getProp(this.api, 'describe');

      this.begin();
      const evaluated = ctx.evalCode(source, `${name}.js`, { type: 'module', strict: true });
      if (evaluated.error) throw new LoadFailure(this.failureText(evaluated.error, 'evaluating the module'));
      const held = [evaluated.value];
      try {
        const namespace = this.settledValue(this.settle(evaluated.value), 'evaluating the module');
        if (namespace !== evaluated.value) held.push(namespace);
        const bind = ctx.getProp(this.api, 'bind');
        held.push(bind);
        const bound = ctx.callFunction(bind, ctx.undefined, namespace);
        if (bound.error) throw new LoadFailure(this.failureText(bound.error, 'listing the exported handlers'));
        held.push(bound.value);
        this.handlers = JSON.parse(ctx.getString(bound.value)) as HandlerInfo[];
      } finally {
        for (const handle of held) if (handle.alive) handle.dispose();
      }
      const leftover = this.drain();
      if (leftover) throw new LoadFailure(this.failureText(leftover, 'evaluating the module'));
      if (this.fired) throw new LoadFailure(`evaluating the module took longer than ${this.limits.deadlineMs} ms`);
    } finally {
      this.active = false;
    }
  }

  private unwrapOrFail(result: { error?: QuickJSHandle; value?: QuickJSHandle }, what: string): QuickJSHandle {
    if (result.error) throw new LoadFailure(this.failureText(result.error, what));
    return result.value!;
  }

  /** The text of a failure at load, with the error handle disposed. */
  private failureText(error: QuickJSHandle, what: string): string {
    if (this.fired) {
      error.dispose();
      return `${what} took longer than ${this.limits.deadlineMs} ms`;
    }
    const { name, message } = this.describe(error);
    if (isOutOfMemory(name, message)) return `${what} ran out of memory (limit ${this.limits.memoryBytes} bytes)`;
    return `${what} failed: ${name}: ${message}`;
  }

  private settledValue(settled: Settled, what: string): QuickJSHandle {
    if (settled.state === 'fulfilled') return settled.value;
    if (settled.state === 'rejected') throw new LoadFailure(this.failureText(settled.error, what));
    if (settled.state === 'timeout') throw new LoadFailure(`${what} took longer than ${this.limits.deadlineMs} ms`);
    throw new LoadFailure(`${what} waits on a promise that can never settle`);
  }

  /** Name and message of an error handle (disposed), read inside the sandbox by the bootstrap. */
  private describe(error: QuickJSHandle): { name: string; message: string } {
    const ctx = this.context;
    try {
      if (ctx.typeof(error) === 'string') return { name: 'Error', message: ctx.getString(error).slice(0, this.limits.logMessageChars) };
      if (!this.describeFn) return { name: 'Error', message: 'the sandbox could not start' };
      const described = ctx.callFunction(this.describeFn, ctx.undefined, error);
      if (described.error) {
        described.error.dispose();
        return { name: 'Error', message: 'a value that cannot be described was thrown' };
      }
      const record = this.readRecord(described.value);
      described.value.dispose();
      return record;
    } finally {
      error.dispose();
    }
  }

  /** A frozen record of strings made by the bootstrap's describe(). */
  private readRecord(handle: QuickJSHandle): { kind: string; name: string; message: string } {
    const ctx = this.context;
    const read = (key: string): string => {
      const h = ctx.getProp(handle, key);
      const text = ctx.typeof(h) === 'string' ? ctx.getString(h) : '';
      h.dispose();
      return text;
    };
    return { kind: read('kind'), name: read('name'), message: read('message') };
  }

  /** Runs pending jobs until `promise` settles, the deadline passes or nothing is left to run. */
  private settle(promise: QuickJSHandle): Settled {
    const ctx = this.context;
    for (;;) {
      const state = ctx.getPromiseState(promise);
      if (state.type === 'fulfilled') return { state: 'fulfilled', value: state.value };
      if (state.type === 'rejected') return { state: 'rejected', error: state.error };
      if (this.fired) return { state: 'timeout' };
      if (!this.runtime.hasPendingJob()) return { state: 'stuck' };
      const ran = this.runtime.executePendingJobs();
      if (ran.error) {
        if (this.fired) {
          ran.error.dispose();
          return { state: 'timeout' };
        }
        return { state: 'rejected', error: ran.error };
      }
    }
  }

  /** Runs what the call left queued, so that nothing outlives it; a fault here is the call's. */
  private drain(): QuickJSHandle | undefined {
    while (this.runtime.hasPendingJob()) {
      const ran = this.runtime.executePendingJobs();
      if (ran.error) return ran.error;
    }
    return undefined;
  }

  private log(levelHandle: QuickJSHandle, messageHandle: QuickJSHandle): void {
    const ctx = this.context;
    if (!this.active) return;
    const level = ctx.typeof(levelHandle) === 'string' ? ctx.getString(levelHandle) : '';
    if (!LEVELS.has(level) || ctx.typeof(messageHandle) !== 'string' || this.logs.length >= this.limits.logLinesPerCall) {
      this.dropped++;
      return;
    }
    let message = ctx.getString(messageHandle);
    if (message.length > this.limits.logMessageChars)
      message = `${message.slice(0, this.limits.logMessageChars)}… [cut at ${this.limits.logMessageChars} characters]`;
    this.logs.push({ level: level as SandboxLogLine['level'], message });
  }

  call(handler: string, eventJson: string, secretsJson: string): { outcome: CallOutcome; logs: SandboxLogLine[]; droppedLogLines: number } {
    const ctx = this.context;
    this.begin();
    let outcome: CallOutcome;
    try {
      const args = [ctx.newString(handler), ctx.newString(eventJson), ctx.newString(secretsJson)];
      const called = ctx.callFunction(this.invokeFn, ctx.undefined, args);
      for (const arg of args) arg.dispose();
      if (called.error) {
        outcome = this.faultOutcome(called.error);
      } else {
        const settled = this.settle(called.value);
        called.value.dispose();
        outcome = this.outcomeOf(settled);
        if (outcome.kind !== 'timeout' && outcome.kind !== 'out-of-memory') {
          const leftover = this.drain();
          if (leftover) outcome = this.faultOutcome(leftover, true);
        }
      }
      // An interrupt inside a promise job rejects that job's promise instead of stopping the
      // call; whatever the call then returned, a deadline that fired makes it a timeout.
      if (this.fired) outcome = this.timeout();
    } finally {
      this.active = false;
    }
    return { outcome, logs: this.logs, droppedLogLines: this.dropped };
  }

  private timeout(): CallOutcome {
    return { kind: 'timeout', deadlineMs: this.limits.deadlineMs };
  }

  /** An error outside the bootstrap's catch: an interrupt, memory exhausted, or a job that threw. */
  private faultOutcome(error: QuickJSHandle, afterCall = false): CallOutcome {
    if (this.fired) {
      error.dispose();
      return this.timeout();
    }
    const { name, message } = this.describe(error);
    if (isOutOfMemory(name, message)) return { kind: 'out-of-memory', memoryBytes: this.limits.memoryBytes };
    return { kind: 'threw', message: afterCall ? `work left queued after compute() failed: ${name}: ${message}` : `${name}: ${message}` };
  }

  private outcomeOf(settled: Settled): CallOutcome {
    const ctx = this.context;
    if (settled.state === 'timeout' || settled.state === 'stuck') return this.timeout();
    if (settled.state === 'rejected') return this.faultOutcome(settled.error);
    const value = settled.value;
    try {
      if (ctx.typeof(value) === 'object') {
        const record = this.readRecord(value);
        if (isOutOfMemory(record.name, record.message)) return { kind: 'out-of-memory', memoryBytes: this.limits.memoryBytes };
        const message = `${record.name}: ${record.message}`;
        return record.kind === 'invalid-result' ? { kind: 'invalid-result', message } : { kind: 'threw', message };
      }
      if (ctx.typeof(value) !== 'string') return { kind: 'invalid-result', message: 'the sandbox returned no JSON' };
      const length = ctx.getProp(value, 'length');
      const chars = ctx.getNumber(length);
      length.dispose();
      if (chars > this.limits.resultChars)
        return { kind: 'invalid-result', message: `the effects are longer than ${this.limits.resultChars} characters of JSON` };
      return effectsOf(ctx.getString(value));
    } finally {
      value.dispose();
    }
  }

  /**
   * Drops the instance without freeing it inside: QuickJS can hold on to objects of a job it was
   * interrupted in, and freeing such a runtime fails an assertion. Each instance has its own
   * WebAssembly module, so dropping every reference to it frees all of it at once.
   */
  abandon(): void {
    this.active = false;
  }

  dispose(): void {
    for (const handle of [this.invokeFn, this.describeFn, this.api, this.hostLog]) if (handle?.alive) handle.dispose();
    try {
      this.context.dispose();
      this.runtime.dispose();
    } catch {
      // A runtime that still holds objects may refuse to free them; the whole WebAssembly
      // instance is dropped with it, so nothing it held survives.
    }
  }
}

function isOutOfMemory(name: string, message: string): boolean {
  return (name === 'InternalError' || name === 'RangeError') && message === 'out of memory';
}

function effectsOf(json: string): CallOutcome {
  const parsed = JSON.parse(json) as unknown;
  if (!Array.isArray(parsed)) return { kind: 'invalid-result', message: 'compute() must return a list of effects' };
  for (const [index, effect] of parsed.entries()) {
    if (typeof effect !== 'object' || effect === null || Array.isArray(effect)) {
      return { kind: 'invalid-result', message: `effect ${index} is not a JSON object` };
    }
  }
  return { kind: 'ok', effects: parsed as JsonObject[] };
}

/** A loaded plugin: serialises its calls, and replaces its instance after a fault. */
class QuickJSPlugin implements LoadedPlugin {
  private queue: Promise<unknown> = Promise.resolve();
  private broken: string | null = null;

  constructor(
    readonly name: string,
    private readonly source: string,
    private readonly limits: SandboxLimits,
    private instance: Instance | null,
  ) {}

  handlers(): HandlerInfo[] {
    return (this.instance?.handlers ?? []).map((h) => ({ name: h.name, respondsTo: [...h.respondsTo] }));
  }

  call(handler: string, event: JsonObject, secrets: Readonly<Record<string, string>>): Promise<CallResult> {
    const next = this.queue.then(() => this.callNow(handler, JSON.stringify(event), JSON.stringify(secrets)));
    this.queue = next.catch(() => undefined);
    return next;
  }

  private async callNow(handler: string, eventJson: string, secretsJson: string): Promise<CallResult> {
    const instance = this.instance;
    if (instance === null) {
      return { outcome: { kind: 'unavailable', message: this.broken ?? 'the plugin was disposed' }, logs: [], droppedLogLines: 0, reloaded: false };
    }
    if (!instance.handlers.some((h) => h.name === handler)) {
      return { outcome: { kind: 'no-such-handler', handler }, logs: [], droppedLogLines: 0, reloaded: false };
    }
    let result: ReturnType<Instance['call']>;
    let crashed = false;
    try {
      result = instance.call(handler, eventJson, secretsJson);
    } catch (err) {
      // Only the host's own errors get here (the WebAssembly stack exhausted, a trap): the
      // instance may be inconsistent, so it is dropped without being touched again.
      crashed = true;
      const message = err instanceof Error ? `${err.name}: ${err.message}` : 'the sandbox failed';
      result = { outcome: { kind: 'crashed', message }, logs: [], droppedLogLines: 0 };
    }
    if (!crashed && result.outcome.kind !== 'timeout' && result.outcome.kind !== 'out-of-memory') return { ...result, reloaded: false };
    instance.abandon();
    this.instance = null;
    const loaded = await loadInstance(this.name, this.source, this.limits);
    if (loaded.ok) this.instance = loaded.instance;
    else this.broken = `reloading after a fault failed: ${loaded.reasons.join('; ')}`;
    return { ...result, reloaded: loaded.ok };
  }

  dispose(): void {
    this.instance?.dispose();
    this.instance = null;
  }
}

async function loadInstance(name: string, source: string, limits: SandboxLimits): Promise<{ ok: true; instance: Instance } | { ok: false; reasons: string[] }> {
  try {
    return { ok: true, instance: await Instance.create(name, source, limits) };
  } catch (err) {
    if (err instanceof LoadFailure) return { ok: false, reasons: [err.message] };
    return { ok: false, reasons: [`the sandbox failed while loading the module: ${err instanceof Error ? `${err.name}: ${err.message}` : 'unknown error'}`] };
  }
}

export const quickjsSandbox: SandboxBackend = {
  async load(name: string, source: string, limits: Partial<SandboxLimits> = {}): Promise<LoadResult> {
    const merged: SandboxLimits = { ...DEFAULT_SANDBOX_LIMITS, ...limits };
    const loaded = await loadInstance(name, source, merged);
    return loaded.ok ? { ok: true, plugin: new QuickJSPlugin(name, source, merged, loaded.instance) } : loaded;
  },
};
