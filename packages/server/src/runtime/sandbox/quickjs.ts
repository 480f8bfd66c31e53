// The QuickJS backend of the sandbox (docs/plugins.md, "The sandbox"). Each loaded plugin gets
// its own WebAssembly instance of QuickJS with ONE runtime (one memory limit, one stack limit,
// one interrupt handler enforcing the deadline of each call and of evaluating its modules) and
// one context per entry module (each module its own global), with a module loader that refuses
// every import. After a timeout or an out-of-memory fault the plugin's instance is thrown away
// and its modules are loaded again in a fresh one, so the next call starts clean; the result of
// the faulting call says so (`reloaded`). The compiled WebAssembly module is shared: each
// instance only instantiates it (docs/plugins.md, "The runner process").
import fs from 'node:fs';
import { createRequire } from 'node:module';
import type { QuickJSContext, QuickJSDeferredPromise, QuickJSHandle, QuickJSRuntime } from 'quickjs-emscripten';
import { newQuickJSWASMModuleFromVariant, newVariant, RELEASE_SYNC } from 'quickjs-emscripten';
import { BOOTSTRAP_SOURCE } from './bootstrap.ts';
import type {
  BackendEntry,
  BindingAnswer,
  BindingCaller,
  CallOutcome,
  CallResult,
  HandlerInfo,
  JsonObject,
  LoadResult,
  LoadedPlugin,
  ModuleHandlers,
  PluginCode,
  PluginModule,
  SandboxBackend,
  SandboxLimits,
  SandboxLogLine,
} from './types.ts';
import { BINDING_CALLS_PER_CALL, BINDING_JSON_CHARS, DEFAULT_SANDBOX_LIMITS, NO_BINDINGS } from './types.ts';
import { LOG_LEVELS } from '@charta/api/constants';

const BOOTSTRAP_BUDGET_MS = 10_000;
/** WebAssembly pages are 64 KiB. */
const PAGE_BYTES = 65_536;
/** The interpreter's own memory before any plugin code: its stack, static data and first heap (the build's initial memory). */
export const INTERPRETER_BYTES = 16 * 1024 * 1024;
const LEVELS: ReadonlySet<string> = new Set(LOG_LEVELS);

type Settled = { state: 'fulfilled'; value: QuickJSHandle } | { state: 'rejected'; error: QuickJSHandle } | { state: 'timeout' } | { state: 'stuck' };

class LoadFailure extends Error {}

let compiled: Promise<WebAssembly.Module> | undefined;

/** QuickJS's WebAssembly module, compiled once per thread (or handed over by the thread that compiled it). */
export function compiledQuickJS(): Promise<WebAssembly.Module> {
  if (compiled === undefined) {
    const require = createRequire(createRequire(import.meta.url).resolve('quickjs-emscripten'));
    compiled = WebAssembly.compile(fs.readFileSync(require.resolve('@jitl/quickjs-wasmfile-release-sync/wasm')));
  }
  return compiled;
}

/** Uses a module compiled elsewhere (a worker is given its parent's, which it can instantiate without compiling). */
export function useCompiledQuickJS(module: WebAssembly.Module): void {
  compiled = Promise.resolve(module);
}

/** The state of the call (or load) under way in one plugin's runtime: its deadline and its log lines. */
class Clock {
  deadline = 0;
  fired = false;
  active = false;
  logs: SandboxLogLine[] = [];
  dropped = 0;
  /** A handler call runs (not a load): only then may the plugin call a binding (docs/plugins.md, "Bindings"). */
  inCall = false;
  /** Counts the calls: an answer to a binding of an earlier call is dropped. */
  callNumber = 0;
  /** Binding calls made by the call under way. */
  bindingCalls = 0;
  /** The promises of the call's binding calls not answered yet, by id. */
  readonly waiting = new Map<number, { binding: string; deferred: QuickJSDeferredPromise }>();
  /** Answers that came, not yet handed to the plugin. */
  answers: Array<{ id: number; answer: BindingAnswer }> = [];
  private wake: (() => void) | null = null;

  begin(budgetMs: number): void {
    this.deadline = Date.now() + budgetMs;
    this.fired = false;
    this.active = true;
    this.logs = [];
    this.dropped = 0;
  }

  /** A handler call starts: bindings may be called. */
  beginCall(budgetMs: number): void {
    this.begin(budgetMs);
    this.callNumber++;
    this.inCall = true;
    this.bindingCalls = 0;
  }

  /** The call ended: binding promises never answered stay pending for good; a late answer is dropped. */
  endCall(): void {
    this.inCall = false;
    for (const { deferred } of this.waiting.values()) deferred.dispose();
    this.waiting.clear();
    this.answers = [];
    this.wake = null;
  }

  answered(callNumber: number, id: number, answer: BindingAnswer): void {
    if (callNumber !== this.callNumber || !this.inCall || !this.waiting.has(id)) return;
    this.answers.push({ id, answer });
    this.wake?.();
  }

  /** Waits for an answer to come (true) or for the deadline to pass (false). */
  nextAnswer(): Promise<boolean> {
    if (this.answers.length > 0) return Promise.resolve(true);
    const left = this.deadline - Date.now();
    if (left < 0) return Promise.resolve(false);
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.wake = null;
        resolve(false);
      }, left + 1);
      this.wake = () => {
        clearTimeout(timer);
        this.wake = null;
        resolve(true);
      };
    });
  }

  shouldInterrupt(): boolean {
    if (!this.active) return true;
    if (Date.now() <= this.deadline) return false;
    this.fired = true;
    return true;
  }
}

/** A handler's description as the bootstrap made it, with only the members a HandlerInfo has (strings checked). */
function handlerInfo(h: HandlerInfo): HandlerInfo {
  const info: HandlerInfo = { name: String(h.name), respondsTo: h.respondsTo.map(String) };
  if (typeof h.routes === 'string') info.routes = h.routes;
  if (typeof h.schedule === 'string') info.schedule = h.schedule;
  return info;
}

/** One entry module of a plugin: its context, the bootstrap's functions and its handlers. */
class ModuleContext {
  private invokeFn!: QuickJSHandle;
  private describeFn!: QuickJSHandle;
  private api!: QuickJSHandle;
  private hostLog!: QuickJSHandle;
  private hostBinding!: QuickJSHandle;
  handlers: HandlerInfo[] = [];

  constructor(
    private readonly runtime: QuickJSRuntime,
    readonly context: QuickJSContext,
    private readonly clock: Clock,
    private readonly limits: SandboxLimits,
    private readonly bindings: BindingCaller,
  ) {}

  start(name: string, source: string): void {
    const ctx = this.context;
    const clock = this.clock;
    this.hostLog = ctx.newFunction('log', (level, message) => this.log(level, message));
    this.hostBinding = ctx.newFunction('binding', (binding, args) => this.binding(binding, args));
    // The bootstrap is the sandbox's own code: it does not spend the plugin's deadline.
    clock.begin(BOOTSTRAP_BUDGET_MS);
    try {
      const factory = this.unwrapOrFail(
        ctx.evalCode(BOOTSTRAP_SOURCE, 'charta-bootstrap.js', { type: 'global', strict: true }),
        'running the sandbox bootstrap',
      );
      const limitsJson = ctx.newString(JSON.stringify(this.limits));
      const api = ctx.callFunction(factory, ctx.undefined, this.hostLog, limitsJson, this.hostBinding);
      factory.dispose();
      limitsJson.dispose();
      this.api = this.unwrapOrFail(api, 'running the sandbox bootstrap');
      this.invokeFn = ctx.getProp(this.api, 'invoke');
      this.describeFn = ctx.getProp(this.api, 'describe');

      clock.begin(this.limits.deadlineMs);
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
      if (clock.fired) throw new LoadFailure(`evaluating the module took longer than ${this.limits.deadlineMs} ms`);
    } finally {
      clock.active = false;
    }
  }

  private unwrapOrFail(result: { error?: QuickJSHandle; value?: QuickJSHandle }, what: string): QuickJSHandle {
    if (result.error) throw new LoadFailure(this.failureText(result.error, what));
    return result.value!;
  }

  /** The text of a failure at load, with the error handle disposed. */
  private failureText(error: QuickJSHandle, what: string): string {
    if (this.clock.fired) {
      error.dispose();
      return `${what} took longer than ${this.limits.deadlineMs} ms`;
    }
    const { name, message } = this.describe(error);
    if (isOutOfMemory(name, message)) return `${what} ran out of memory (limit ${this.limits.memoryBytes} bytes, shared by the plugin's modules)`;
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
      if (this.clock.fired) return { state: 'timeout' };
      if (!this.runtime.hasPendingJob()) return { state: 'stuck' };
      const ran = this.runtime.executePendingJobs();
      if (ran.error) {
        if (this.clock.fired) {
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

  /**
   * The bootstrap's binding call (docs/plugins.md, "Bindings"): the binding's name and its
   * arguments as JSON text, checked here (the plugin's wrapper is not trusted); a promise the
   * answer settles, or an error the plugin's call of __charta_binding rejects with.
   */
  private binding(nameHandle: QuickJSHandle, argsHandle: QuickJSHandle): QuickJSHandle | { error: QuickJSHandle } {
    const ctx = this.context;
    const clock = this.clock;
    const refuse = (name: string, message: string) => ({ error: ctx.newError({ name, message }) });
    if (!clock.active || !clock.inCall) return refuse('Error', 'a binding can be called only while a handler call runs');
    if (ctx.typeof(nameHandle) !== 'string' || ctx.typeof(argsHandle) !== 'string')
      return refuse('TypeError', 'a binding is called with its name and JSON arguments');
    const name = ctx.getString(nameHandle);
    if (!/^[a-z][a-z0-9._-]{0,63}$/.test(name))
      return refuse('TypeError', 'a binding name is 1 to 64 characters of a-z, 0-9, ".", "_" and "-", starting with a letter');
    const length = ctx.getProp(argsHandle, 'length');
    const chars = ctx.getNumber(length);
    length.dispose();
    if (chars > BINDING_JSON_CHARS) {
      return refuse('RangeError', `the arguments of binding ${name} are longer than ${BINDING_JSON_CHARS} characters of JSON (the limit)`);
    }
    if (clock.bindingCalls >= BINDING_CALLS_PER_CALL) {
      return refuse('RangeError', `a handler call may call bindings ${BINDING_CALLS_PER_CALL} times at most`);
    }
    let args: JsonObject[string];
    try {
      args = JSON.parse(ctx.getString(argsHandle)) as JsonObject[string];
    } catch {
      return refuse('TypeError', `the arguments of binding ${name} are not JSON`);
    }
    clock.bindingCalls++;
    const id = clock.bindingCalls;
    const callNumber = clock.callNumber;
    const deferred = ctx.newPromise();
    clock.waiting.set(id, { binding: name, deferred });
    this.bindings(name, args).then(
      (answer) => clock.answered(callNumber, id, answer),
      () => clock.answered(callNumber, id, { ok: false, error: `binding ${name} failed` }),
    );
    // Returned to the plugin, this handle is the library's to dispose (its resolve and reject stay in `waiting`).
    return deferred.handle;
  }

  /** Settles the promises of the binding answers that came. */
  private deliverAnswers(): void {
    const ctx = this.context;
    const clock = this.clock;
    for (const { id, answer } of clock.answers.splice(0)) {
      const waiting = clock.waiting.get(id);
      if (waiting === undefined) continue;
      clock.waiting.delete(id);
      const { binding, deferred } = waiting;
      let json = answer.ok ? JSON.stringify(answer.value) : undefined;
      if (answer.ok && json === undefined) json = 'null';
      if (json !== undefined && json.length <= BINDING_JSON_CHARS) {
        const text = ctx.newString(json);
        deferred.resolve(text);
        text.dispose();
      } else {
        const error = answer.ok
          ? ctx.newError({
              name: 'RangeError',
              message: `the answer of binding ${binding} is longer than ${BINDING_JSON_CHARS} characters of JSON (the limit)`,
            })
          : ctx.newError({ name: 'Error', message: answer.error.slice(0, this.limits.logMessageChars) });
        deferred.reject(error);
        error.dispose();
      }
      deferred.dispose();
    }
  }

  /** settle(), waiting for binding answers while the call has nothing else to run (within its deadline). */
  private async settleCall(promise: QuickJSHandle): Promise<Settled> {
    for (;;) {
      const settled = this.settle(promise);
      if (settled.state !== 'stuck' || this.clock.waiting.size === 0) return settled;
      // An answer that comes after the deadline is too late: the call has timed out.
      if (!(await this.clock.nextAnswer()) || Date.now() > this.clock.deadline) {
        this.clock.fired = true;
        return { state: 'timeout' };
      }
      this.deliverAnswers();
    }
  }

  private log(levelHandle: QuickJSHandle, messageHandle: QuickJSHandle): void {
    const ctx = this.context;
    const clock = this.clock;
    if (!clock.active) return;
    const level = ctx.typeof(levelHandle) === 'string' ? ctx.getString(levelHandle) : '';
    if (!LEVELS.has(level) || ctx.typeof(messageHandle) !== 'string' || clock.logs.length >= this.limits.logLinesPerCall) {
      clock.dropped++;
      return;
    }
    let message = ctx.getString(messageHandle);
    if (message.length > this.limits.logMessageChars)
      message = `${message.slice(0, this.limits.logMessageChars)}… [cut at ${this.limits.logMessageChars} characters]`;
    clock.logs.push({ level: level as SandboxLogLine['level'], message });
  }

  async call(handler: string, eventJson: string, secretsJson: string): Promise<CallOutcome> {
    const ctx = this.context;
    const clock = this.clock;
    clock.beginCall(this.limits.deadlineMs);
    let outcome: CallOutcome;
    try {
      const args = [ctx.newString(handler), ctx.newString(eventJson), ctx.newString(secretsJson)];
      const called = ctx.callFunction(this.invokeFn, ctx.undefined, args);
      for (const arg of args) arg.dispose();
      if (called.error) {
        outcome = this.faultOutcome(called.error);
      } else {
        const settled = await this.settleCall(called.value);
        called.value.dispose();
        outcome = this.outcomeOf(settled);
        // Work left queued may not start a binding: the call is over.
        clock.endCall();
        if (outcome.kind !== 'timeout' && outcome.kind !== 'out-of-memory') {
          const leftover = this.drain();
          if (leftover) outcome = this.faultOutcome(leftover, true);
        }
      }
      // An interrupt inside a promise job rejects that job's promise instead of stopping the
      // call; whatever the call then returned, a deadline that fired makes it a timeout.
      if (clock.fired) outcome = this.timeout();
    } finally {
      clock.endCall();
      clock.active = false;
    }
    return outcome;
  }

  private timeout(): CallOutcome {
    return { kind: 'timeout', deadlineMs: this.limits.deadlineMs };
  }

  /** An error outside the bootstrap's catch: an interrupt, memory exhausted, or a job that threw. */
  private faultOutcome(error: QuickJSHandle, afterCall = false): CallOutcome {
    if (this.clock.fired) {
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

  dispose(): void {
    for (const handle of [this.invokeFn, this.describeFn, this.api, this.hostLog, this.hostBinding]) if (handle?.alive) handle.dispose();
    this.context.dispose();
  }
}

/** One plugin's QuickJS: one WebAssembly instance and runtime, a context per entry module. */
class Instance {
  private readonly clock = new Clock();
  readonly modules = new Map<string, ModuleContext>();

  private constructor(
    private readonly runtime: QuickJSRuntime,
    private readonly memory: WebAssembly.Memory,
    private readonly limits: SandboxLimits,
    private readonly bindings: BindingCaller,
  ) {}

  /** A fresh instance with every module evaluated, or the reasons of each module that failed (each after a failure in a fresh instance of its own). */
  static async create(
    name: string,
    modules: PluginModule[],
    limits: SandboxLimits,
    bindings: BindingCaller,
  ): Promise<{ ok: true; instance: Instance } | { ok: false; reasons: string[] }> {
    const reasons: string[] = [];
    if (modules.length === 0) return { ok: false, reasons: ['the plugin has no handler module'] };
    let instance = await Instance.empty(limits, bindings);
    for (const { entry, source } of modules) {
      try {
        instance.add(`${name}/${entry}`, entry, source);
      } catch (err) {
        reasons.push(`${entry}: ${err instanceof LoadFailure ? err.message : `the sandbox failed while loading the module: ${describeHostError(err)}`}`);
        // A module that failed may leave the runtime out of memory or interrupted: the next
        // module is evaluated in a fresh instance, so that its reasons are its own.
        instance.abandon();
        instance = await Instance.empty(limits, bindings);
      }
    }
    if (reasons.length > 0) {
      instance.abandon();
      return { ok: false, reasons };
    }
    return { ok: true, instance };
  }

  private static async empty(limits: SandboxLimits, bindings: BindingCaller): Promise<Instance> {
    // QuickJS's own limit refuses one allocation larger than it, but its count of the bytes in use
    // does not grow under WebAssembly (the allocator reports no sizes), so many smaller ones would
    // pass it. The instance's memory itself is capped instead: it cannot grow past the plugin's
    // limit plus the interpreter's own, and an allocation that would is QuickJS's out of memory.
    const wasmMemory = new WebAssembly.Memory({
      initial: INTERPRETER_BYTES / PAGE_BYTES,
      maximum: Math.ceil((INTERPRETER_BYTES + limits.memoryBytes) / PAGE_BYTES),
    });
    const wasm = await newQuickJSWASMModuleFromVariant(newVariant(RELEASE_SYNC, { wasmModule: await compiledQuickJS(), wasmMemory }));
    const runtime = wasm.newRuntime();
    runtime.setMemoryLimit(limits.memoryBytes);
    runtime.setMaxStackSize(limits.stackBytes);
    runtime.setModuleLoader((specifier) => ({ error: new Error(`the bundle imports "${specifier}": a plugin bundle must inline everything it imports`) }));
    const instance = new Instance(runtime, wasmMemory, limits, bindings);
    runtime.setInterruptHandler(() => instance.clock.shouldInterrupt());
    return instance;
  }

  private add(name: string, entry: string, source: string): void {
    const module = new ModuleContext(this.runtime, this.runtime.newContext(), this.clock, this.limits, this.bindings);
    this.modules.set(entry, module);
    module.start(name, source);
  }

  handlers(): ModuleHandlers[] {
    return [...this.modules].map(([entry, m]) => ({ entry, handlers: m.handlers.map((h) => handlerInfo(h)) }));
  }

  async call(
    module: ModuleContext,
    handler: string,
    eventJson: string,
    secretsJson: string,
  ): Promise<{ outcome: CallOutcome; logs: SandboxLogLine[]; droppedLogLines: number }> {
    const outcome = await module.call(handler, eventJson, secretsJson);
    return { outcome, logs: this.clock.logs, droppedLogLines: this.clock.dropped };
  }

  /** Bytes of the instance's WebAssembly memory: what it costs the runner (it grows, it never shrinks). */
  memoryBytes(): number {
    return this.memory.buffer.byteLength;
  }

  /**
   * Drops the instance without freeing it inside: QuickJS can hold on to objects of a job it was
   * interrupted in, and freeing such a runtime fails an assertion. Each instance has its own
   * WebAssembly memory, so dropping every reference to it frees all of it at once.
   */
  abandon(): void {
    this.clock.active = false;
  }

  dispose(): void {
    try {
      for (const module of this.modules.values()) module.dispose();
      this.runtime.dispose();
    } catch {
      // A runtime that still holds objects may refuse to free them; the whole WebAssembly
      // instance is dropped with it, so nothing it held survives.
    }
  }
}

function describeHostError(err: unknown): string {
  return err instanceof Error ? `${err.name}: ${err.message}` : 'unknown error';
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

const noRun = (outcome: CallOutcome): CallResult => ({ outcome, logs: [], droppedLogLines: 0, reloaded: false });

/** A loaded plugin: serialises its calls, and replaces its instance after a fault. */
class QuickJSPlugin implements LoadedPlugin {
  private queue: Promise<unknown> = Promise.resolve();
  private broken: string | null = null;

  constructor(
    readonly name: string,
    private readonly modules: PluginModule[],
    private readonly limits: SandboxLimits,
    private readonly bindings: BindingCaller,
    private instance: Instance | null,
  ) {}

  handlers(): ModuleHandlers[] {
    return this.instance?.handlers() ?? [];
  }

  memoryBytes(): number {
    return this.instance?.memoryBytes() ?? 0;
  }

  call(entry: string, handler: string, event: JsonObject, secrets: Readonly<Record<string, string>>): Promise<CallResult> {
    const next = this.queue.then(() => this.callNow(entry, handler, JSON.stringify(event), JSON.stringify(secrets)));
    this.queue = next.catch(() => undefined);
    return next;
  }

  private async callNow(entry: string, handler: string, eventJson: string, secretsJson: string): Promise<CallResult> {
    const instance = this.instance;
    if (instance === null) return noRun({ kind: 'unavailable', message: this.broken ?? 'the plugin was disposed' });
    const module = instance.modules.get(entry);
    if (module === undefined || !module.handlers.some((h) => h.name === handler)) {
      return noRun({ kind: 'no-such-handler', handler: `${entry}:${handler}` });
    }
    let result: Awaited<ReturnType<Instance['call']>>;
    let crashed = false;
    try {
      result = await instance.call(module, handler, eventJson, secretsJson);
    } catch (err) {
      // Only the host's own errors get here (the WebAssembly stack exhausted, a trap): the
      // instance may be inconsistent, so it is dropped without being touched again.
      crashed = true;
      result = {
        outcome: { kind: 'crashed', message: err instanceof Error ? `${err.name}: ${err.message}` : 'the sandbox failed' },
        logs: [],
        droppedLogLines: 0,
      };
    }
    if (!crashed && result.outcome.kind !== 'timeout' && result.outcome.kind !== 'out-of-memory') return { ...result, reloaded: false };
    instance.abandon();
    this.instance = null;
    const loaded = await loadInstance(this.name, this.modules, this.limits, this.bindings);
    if (loaded.ok) this.instance = loaded.instance;
    else this.broken = `reloading after a fault failed: ${loaded.reasons.join('; ')}`;
    return { ...result, reloaded: loaded.ok };
  }

  dispose(): void {
    this.instance?.dispose();
    this.instance = null;
  }
}

async function loadInstance(
  name: string,
  modules: PluginModule[],
  limits: SandboxLimits,
  bindings: BindingCaller,
): Promise<{ ok: true; instance: Instance } | { ok: false; reasons: string[] }> {
  try {
    return await Instance.create(name, modules, limits, bindings);
  } catch (err) {
    return { ok: false, reasons: [`the sandbox failed while loading the plugin: ${describeHostError(err)}`] };
  }
}

export const quickjsSandbox: SandboxBackend = {
  async load(name: string, code: PluginCode, limits: Partial<SandboxLimits> = {}, bindings: BindingCaller = NO_BINDINGS): Promise<LoadResult> {
    const merged: SandboxLimits = { ...DEFAULT_SANDBOX_LIMITS, ...limits };
    // Each entry is a bundle that inlines everything it imports: its file's text is the module.
    const modules: PluginModule[] = [];
    const missing: string[] = [];
    for (const entry of code.entries) {
      const source = Object.hasOwn(code.files, entry) ? code.files[entry] : undefined;
      if (typeof source === 'string') modules.push({ entry, source });
      else missing.push(`${entry}: not a file of the plugin's code`);
    }
    if (missing.length > 0) return { ok: false, reasons: missing };
    const loaded = await loadInstance(name, modules, merged, bindings);
    return loaded.ok ? { ok: true, plugin: new QuickJSPlugin(name, modules, merged, bindings, loaded.instance) } : loaded;
  },
};

/** The registry's entry (sandbox/registry.ts): the runner child compiles the WebAssembly once, each isolate instantiates it. */
export const quickjsBackend: BackendEntry<WebAssembly.Module> = {
  prepare: compiledQuickJS,
  create(wasm) {
    useCompiledQuickJS(wasm);
    return quickjsSandbox;
  },
};
