// The messages between the host (client.ts) and the runner child process (child.ts), and between
// the child's main thread and each plugin's isolate, a worker thread of its own (isolate.ts)
// (docs/plugins.md, "The runner process"). Only JSON crosses from the host: the child is forked
// with IPC in JSON serialisation, so nothing but plain data (no functions, no Buffers) can be sent.
// A binding (docs/plugins.md, "Bindings") goes the other way: an isolate asks (binding-request),
// the child adds the plugin's name and passes it on to the host, whose answer (binding-response)
// the child routes back to that isolate.
import type { BindingAnswer, CallResult, JsonObject, JsonValue, ModuleHandlers, SandboxLimits } from '../sandbox/types.ts';

export type { PluginModule } from '../sandbox/types.ts';

/** The name of the child's working directory starts so (a new empty directory under the system's temporary directory). */
export const WORK_DIR_PREFIX = 'charta-runner-';

/**
 * How long past its deadline a call (or the evaluation of a module at load) may run in its
 * isolate before the child ends the isolate: the interrupt handler stops ordinary code at the
 * deadline; this margin catches a built-in that never looks at it (docs/plugins.md, "Faults").
 */
export const OVERRUN_MARGIN_MS = 500;

/** What the child needs to load a plugin: the backend it runs on (sandbox/registry.ts) and its code (sandbox/types.ts PluginCode). */
export interface PluginToLoad {
  name: string;
  backend: string;
  files: Record<string, string>;
  entries: string[];
  limits: Partial<SandboxLimits>;
}

/** A handler class the loaded plugin exports: the entry module, the export name, its RESPONDS_TO. */
export interface RunnerHandler {
  entry: string;
  name: string;
  respondsTo: string[];
  /** Its ROUTES and SCHEDULE as the sandbox read them (sandbox/types.ts HandlerInfo), for the host to check. */
  routes?: string;
  schedule?: string;
}

/** The answer to a load or a check: every handler of every module, or every reason it failed. */
export type LoadAnswer = { ok: true; handlers: RunnerHandler[] } | { ok: false; reasons: string[] };

/** What the runner holds (its process's resident memory, and each loaded plugin's runtime) and what it counts of its isolates. */
export interface RunnerStats {
  rssBytes: number;
  plugins: Array<{ name: string; memoryBytes: number | null }>;
  /** Isolates the child started since it started, each evaluating its plugin's modules: for a load, a check, a load again after an isolate ended. */
  isolatesStarted: number;
  /** Isolates that start and evaluate their plugin's modules at once, at most (the others wait their turn). */
  loadsAtOnce: number;
  /** Loads that took the isolate of a check of the same code instead of starting one (docs/plugins.md, "The install check"). */
  checkedTaken: number;
  /** Isolates of checks kept now for a load of their plugin. */
  checkedKept: number;
}

export type RunnerRequest =
  | { id: number; op: 'load'; plugin: PluginToLoad }
  | { id: number; op: 'check'; plugin: PluginToLoad }
  | { id: number; op: 'unload'; name: string }
  | { id: number; op: 'call'; name: string; entry: string; handler: string; event: JsonObject; secrets: Record<string, string> }
  | { id: number; op: 'stats' }
  /** Ends the plugin's isolate at once, whatever it runs (for tests and diagnostics); the next call loads it again. */
  | { id: number; op: 'end-isolate'; name: string }
  /** The host's answer to the child's binding-request of that callId (no answer of its own). */
  | { id: 0; op: 'binding-response'; callId: number; answer: BindingAnswer };

export type RunnerResponse =
  /** The child started working on the request (the host's guard timer starts here, not at sending). */
  | { id: number; op: 'begin' }
  | { id: number; op: 'loaded'; answer: LoadAnswer }
  | { id: number; op: 'unloaded' }
  | { id: number; op: 'called'; result: CallResult }
  | { id: number; op: 'stats'; stats: RunnerStats }
  /** The child's own code failed while serving the request (never a plugin's value). */
  | { id: number; op: 'failed'; message: string }
  /** Unasked (id 0): a loaded plugin whose isolate ended could not be loaded again; it answers `unavailable` until the next load. */
  | { id: 0; op: 'lost'; name: string; reason: string }
  /**
   * Unasked (id 0): a call of the plugin asks for a binding; the host answers with a
   * binding-response of the same callId. `call`: the id of the host's call request it belongs to
   * (the one the plugin's isolate runs now), or 0 when none (the host then knows no call context).
   */
  | { id: 0; op: 'binding-request'; callId: number; call: number; plugin: string; binding: string; args: JsonValue };

/**
 * Messages between the host and the child go in batches: those sent in one turn of the event loop
 * leave as one array, in order (one write to the channel instead of one per message), and each
 * side takes an array apart in order. A single message is accepted too. With `leaveAt`, a batch
 * leaves at once when it has that many messages (a turn that sends many does not hold them all
 * until it ends).
 */
export function batchedSender<M>(send: (batch: M[]) => void, leaveAt = Infinity): (message: M) => void {
  let batch: M[] = [];
  let scheduled = false;
  const flush = () => {
    if (batch.length === 0) return;
    const out = batch;
    batch = [];
    send(out);
  };
  return (message) => {
    batch.push(message);
    if (batch.length >= leaveAt) flush();
    else if (!scheduled) {
      scheduled = true;
      setImmediate(() => {
        scheduled = false;
        flush();
      });
    }
  };
}

/** The messages of what the channel delivered: a batch, or one message. */
export const unbatched = <M>(received: unknown): M[] => (Array.isArray(received) ? (received as M[]) : [received as M]);

/** The main thread → an isolate (in the order sent; it serves one at a time). */
export type IsolateRequest =
  | { op: 'load'; plugin: PluginToLoad }
  | { op: 'call'; entry: string; handler: string; event: JsonObject; secrets: Record<string, string> }
  | { op: 'memory' }
  /** The answer to the isolate's binding-request of that callId: handed to the call at once, out of the request order. */
  | { op: 'binding-response'; callId: number; answer: BindingAnswer };

/** An isolate → the main thread: `ready` once, then one answer per request. */
export type IsolateResponse =
  | { op: 'ready' }
  | { op: 'loaded'; ok: true; modules: ModuleHandlers[] }
  | { op: 'loaded'; ok: false; reasons: string[] }
  | { op: 'called'; result: CallResult }
  | { op: 'memory'; bytes: number }
  | { op: 'failed'; message: string }
  /** Unasked, while a call runs: a binding the call asks for (the isolate's own callId). */
  | { op: 'binding-request'; callId: number; binding: string; args: JsonValue };
