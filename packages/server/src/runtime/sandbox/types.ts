// The sandbox interface (docs/plugins.md, "The sandbox"): load a plugin's bundled module under
// limits, list its handler classes, call one with one JSON event and get JSON effects back.
// Only JSON crosses this boundary, and every failure is a typed result, never a host exception
// carrying a value the plugin made. A backend other than QuickJS implements the same interface.

export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };
export type JsonObject = { [key: string]: JsonValue };

export type SandboxLogLevel = 'debug' | 'info' | 'warning' | 'error';

export interface SandboxLimits {
  /** Heap of one plugin's runtime, in bytes. */
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

/** What one call ended with. */
export type CallOutcome =
  | { kind: 'ok'; effects: JsonObject[] }
  /** The deadline passed (or the handler's promise could never settle). */
  | { kind: 'timeout'; deadlineMs: number }
  | { kind: 'out-of-memory'; memoryBytes: number }
  /** The handler threw (or rejected); `message` is the plugin's, as text. */
  | { kind: 'threw'; message: string }
  /** The handler returned something that is not a list of JSON objects within the size cap. */
  | { kind: 'invalid-result'; message: string }
  | { kind: 'no-such-handler'; handler: string }
  /** The sandbox itself failed under the call (e.g. the WebAssembly stack ran out); it was replaced. */
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
}

export interface LoadedPlugin {
  readonly name: string;
  /** The exported handler classes (classes with a RESPONDS_TO list and a compute method), by export name. */
  handlers(): HandlerInfo[];
  /** Runs the handler as the SDK's runHandler does, with the event and secrets as JSON. */
  call(handler: string, event: JsonObject, secrets: Readonly<Record<string, string>>): Promise<CallResult>;
  dispose(): void;
}

export type LoadResult = { ok: true; plugin: LoadedPlugin } | { ok: false; reasons: string[] };

export interface SandboxBackend {
  /** Evaluates `source` (one ES module, everything inlined) in a fresh runtime of its own. */
  load(name: string, source: string, limits?: Partial<SandboxLimits>): Promise<LoadResult>;
}
