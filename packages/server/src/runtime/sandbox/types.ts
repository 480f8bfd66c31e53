// The sandbox interface (docs/plugins.md, "The sandbox"): load a plugin's code (the package's
// files and its handler entry modules) under limits (one runtime and one memory limit for all of
// them), list their handler classes, call one with one JSON event and get JSON effects back; a
// call may ask the server for a binding (docs/plugins.md, "Bindings").
// Only JSON crosses this boundary, and every failure is a typed result, never a host exception
// carrying a value the plugin made. A backend other than QuickJS implements the same interface
// and is named in sandbox/registry.ts.

/**
 * The backend a plugin runs on unless another is named (the manifest names none yet). Here, not in
 * registry.ts, so that the runner's host side (runner/client.ts) loads no backend: `charta plugin
 * test` runs it in the charta process (docs/plugins.md, "Testing a plugin").
 */
export const DEFAULT_BACKEND = 'quickjs';

export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };
export type JsonObject = { [key: string]: JsonValue };

export type SandboxLogLevel = 'debug' | 'info' | 'warning' | 'error';

export interface SandboxLimits {
  /** Heap of one plugin's runtime (all its modules together), in bytes. */
  memoryBytes: number;
  /** Stack of one plugin's runtime, in bytes (deep recursion fails with "stack overflow"). */
  stackBytes: number;
  /** Deadline of one call (and of evaluating the module at load), in milliseconds. */
  deadlineMs: number;
  /** Longest log message kept, in characters; a longer one is cut and marked. */
  logMessageChars: number;
  /** Log lines kept per call; the lines over it are counted in `droppedLogLines`. */
  logLinesPerCall: number;
  /** Longest JSON text a call may return, in characters. */
  resultChars: number;
}

export const DEFAULT_SANDBOX_LIMITS: Readonly<SandboxLimits> = Object.freeze({
  memoryBytes: 32 * 1024 * 1024,
  stackBytes: 256 * 1024,
  deadlineMs: 1000,
  logMessageChars: 4096,
  logLinesPerCall: 100,
  resultChars: 1024 * 1024,
});

/** Longest JSON text of a binding's arguments, and of its answer, in characters (docs/plugins.md, "Bindings"). */
export const BINDING_JSON_CHARS = 1024 * 1024;
/** Binding calls one handler call may make. */
export const BINDING_CALLS_PER_CALL = 64;

export interface SandboxLogLine {
  level: SandboxLogLevel;
  message: string;
}

/** A handler class the module exports: its export name and the events it responds to. */
export interface HandlerInfo {
  name: string;
  respondsTo: string[];
  /** The class's ROUTES as JSON text (cut at 64 KiB), when it has them: the host parses and checks them (runtime/surface.ts). */
  routes?: string;
  /** The class's SCHEDULE (cut at 200 characters; '' when it is not a string), when it has one. */
  schedule?: string;
}

/** One bundled module of a plugin: its entry path in the package (relative to the manifest) and its text. */
export interface PluginModule {
  entry: string;
  source: string;
}

/**
 * A plugin's code as a backend loads it: text files of the package by path (relative to the
 * manifest), and the handler entry modules among them, in the manifest's order. The QuickJS
 * backend evaluates each entry (a bundle that inlines everything) in a context of its own.
 */
export interface PluginCode {
  files: Record<string, string>;
  entries: string[];
}

/** The code of the given modules: each module's entry is a file and an entry. */
export function codeOf(modules: readonly PluginModule[]): PluginCode {
  return { files: Object.fromEntries(modules.map((m) => [m.entry, m.source])), entries: modules.map((m) => m.entry) };
}

/** A binding's answer as the sandbox gets it: its JSON value, or the text of why it failed (never a server stack). */
export type BindingAnswer = { ok: true; value: JsonValue } | { ok: false; error: string };

/**
 * How a backend asks the server for a binding during a call (docs/plugins.md, "Bindings"): the
 * runner's isolate sends the request to the server process and resolves with its answer. The
 * backend calls it only while a handler call runs, with arguments within BINDING_JSON_CHARS.
 */
export type BindingCaller = (binding: string, args: JsonValue) => Promise<BindingAnswer>;

/** No binding is reachable: what a backend gets when nothing serves bindings (a check, a unit test). */
export const NO_BINDINGS: BindingCaller = (binding) => Promise.resolve({ ok: false, error: `no binding named "${binding}" is available here` });

/** The handler classes one entry module exports. */
export interface ModuleHandlers {
  entry: string;
  handlers: HandlerInfo[];
}

/** What one call ended with. */
export type CallOutcome =
  | { kind: 'ok'; effects: JsonObject[] }
  /**
   * The deadline passed (or the handler's promise could never settle). `ended`: it ran on inside
   * a built-in that never looks at the deadline, and its isolate was ended (docs/plugins.md, "Faults").
   */
  | { kind: 'timeout'; deadlineMs: number; ended?: true }
  | { kind: 'out-of-memory'; memoryBytes: number }
  /** The handler threw (or rejected); `message` is the plugin's, as text. */
  | { kind: 'threw'; message: string }
  /** The handler returned something that is not a list of JSON objects within the size cap. */
  | { kind: 'invalid-result'; message: string }
  | { kind: 'no-such-handler'; handler: string }
  /** The sandbox itself failed under the call (e.g. the WebAssembly stack ran out), or its isolate died; it was replaced. */
  | { kind: 'crashed'; message: string }
  /** The plugin's runtime is gone: disposed, or a reload after a fault failed. */
  | { kind: 'unavailable'; message: string };

export interface CallResult {
  outcome: CallOutcome;
  logs: SandboxLogLine[];
  /** Log lines written past `logLinesPerCall` (or with an unknown level): counted, not kept. */
  droppedLogLines: number;
  /** True when a fault (timeout, out of memory, crash) made the sandbox replace the plugin's runtime. */
  reloaded: boolean;
  /** Milliseconds the call waited for the plugin's earlier requests before it started (set by the runner's host side). */
  queuedMs?: number;
}

export interface LoadedPlugin {
  readonly name: string;
  /** The exported handler classes (classes with a RESPONDS_TO list and a compute method) of each module. */
  handlers(): ModuleHandlers[];
  /** Runs the handler of the entry module as the SDK's runHandler does, with the event and secrets as JSON. */
  call(entry: string, handler: string, event: JsonObject, secrets: Readonly<Record<string, string>>): Promise<CallResult>;
  /** Bytes its runtime holds now. */
  memoryBytes(): number;
  dispose(): void;
}

export type LoadResult = { ok: true; plugin: LoadedPlugin } | { ok: false; reasons: string[] };

export interface SandboxBackend {
  /**
   * Loads the plugin's entry modules in a fresh runtime of the plugin's own (QuickJS: each an ES
   * module, everything inlined, in its own global); a failure lists every reason, each starting
   * with its entry. `bindings` serves the binding calls its handlers make (default: none).
   */
  load(name: string, code: PluginCode, limits?: Partial<SandboxLimits>, bindings?: BindingCaller): Promise<LoadResult>;
}

/**
 * A sandbox backend as the runner knows it (sandbox/registry.ts). `prepare` runs once in the
 * runner child's main thread (QuickJS: compiling its WebAssembly), and what it makes (a value a
 * worker thread can be given: structured-cloneable) is handed to `create` in each plugin's isolate.
 */
export interface BackendEntry<Prepared = unknown> {
  prepare?(): Promise<Prepared>;
  create(prepared: Prepared): SandboxBackend | Promise<SandboxBackend>;
}
