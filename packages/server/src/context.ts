// What an operation knows about the request it serves: storage, caller, request id. No HTTP.
// It lives at the top of src/ (beside app.ts and config.ts) because it joins feature folders
// (auth/, logs/) that lower layers must not import; storage/transaction.ts declares the narrow
// part it needs itself.
import type { Principal } from './auth/principal.ts';
import type { Storage } from './storage/db.ts';
import type { LogBus } from './logs/bus.ts';
import type { Signals } from './signals/bus.ts';
import type { PluginRuntime } from './runtime/types.ts';
import type { Keyring } from './lib/sealing.ts';

export interface Ctx {
  storage: Storage;
  principal: Principal;
  requestId: string;
  /** The log stream's bus; operations emit after their transaction committed. A sink: nothing reacts to its lines. */
  logs?: LogBus;
  /** The signal channel (signals/): what the runtime reacts to, emitted after the transaction committed. */
  signals?: Signals;
  /** The process's secret keys, which seal plugin secrets (docs/operations.md, "Sealed secrets"); absent: no secret can be set. */
  keyring?: Keyring;
  /** The plugin runtime (runtime/): absent where no plugin may run (unit tests of operations). */
  runtime?: PluginRuntime;
  /** How deep in a chain of plugin effects this operation runs (0, or absent, for a client's request). */
  eventDepth?: number;
  /** The event at the root of that chain (absent for a client's request, whose own event is the root). */
  eventRoot?: string;
}
