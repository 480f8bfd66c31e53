// The sandbox interface (docs/plugins.md, "The sandbox"): load a plugin's bundled modules under
// limits (one runtime and one memory limit for all of them), list their handler classes, call one
// with one JSON event and get JSON effects back.
// Only JSON crosses this boundary, and every failure is a typed result, never a host exception
// carrying a value the plugin made. A backend other than QuickJS implements the same interface.

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

export interface SandboxLogLine {
  level: SandboxLogLevel;
  message: string;
}

/** A handler class the module exports: its export name and the events it responds to. */
export interface HandlerInfo {
  name: string;
  respondsTo: string[];
}

/** One bundled module of a plugin: its entry path in the package (relative to the manifest) and its text. */
export interface PluginModule {
  entry: string;
  source: string;
}

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
   * Evaluates each module (an ES module, everything inlined) in a fresh runtime of the plugin's
   * own, each in its own global; a failure lists every reason, each starting with its entry.
   */
  load(name: string, modules: PluginModule[], limits?: Partial<SandboxLimits>): Promise<LoadResult>;
}
