// The plugin runtime of one process, assembled (docs/plugins.md, "Delivery and guarantees"): the
// runner process (started when the first plugin needs it), the package reader and check, the
// secrets, and the host that dispatches events. app.ts creates it; it starts with the app and
// stops with it.
import type { Config } from '../config.ts';
import type { Storage } from '../storage/db.ts';
import type { LogBus } from '../logs/bus.ts';
import type { SignalBus } from '../signals/bus.ts';
import { pluginSecretValues } from '../storage/plugin-secrets-repository.ts';
import { PluginRunner } from './runner/client.ts';
import { Bindings } from './bindings.ts';
import { registerDataReads } from './data-reads.ts';
import { registerCache } from './cache-database.ts';
import { SIGNATURE_BINDING, signatureBinding } from './signature.ts';
import { runnablePlugin } from './runnable.ts';
import { checkPackageSurface } from './check.ts';
import { PluginHost } from './host.ts';
import { pluginPollMs, schedulerClock, schedulerMs } from '../lib/test-hooks.ts';
import { SCHEDULER_MS } from './scheduler.ts';
import type { Keyring } from '../lib/sealing.ts';

/** Total time of the handlers of one PRE or after-search event, in milliseconds. */
export const PRE_BUDGET_MS = 2000;
/** The longest chain of events that effects may cause (a client's change is depth 0). */
export const MAX_EVENT_DEPTH = 5;
/** How often each process looks for plugin changes and undelivered events on its own (signals tell it sooner: docs/architecture.md, "Signals"). */
export const POLL_MS = 500;

export function createPluginRuntime(config: Config, storage: Storage, logs: LogBus, signals: SignalBus, keyring: Keyring): PluginHost {
  const bindings = new Bindings();
  registerDataReads(bindings, { storage, logs });
  registerCache(bindings, storage);
  bindings.register(SIGNATURE_BINDING, signatureBinding);
  const runner = new PluginRunner({
    bindings,
    onNotice: (level, message) => logs.emit({ level, event: `plugin runtime: ${message}`, ...(level === 'error' ? { success: false } : {}) }),
    maxTotalMemoryBytes: config.pluginRunnerMaxMemoryMb * 1024 * 1024,
  });
  const limits = { maxMemoryMb: config.pluginMaxMemoryMb, maxTimeoutMs: config.pluginMaxTimeoutMs, maxEffectsPerAnswer: config.pluginMaxEffectsPerAnswer };
  return new PluginHost({
    storage,
    logs,
    signals,
    runner,
    readRunnable: (pkg) => runnablePlugin(pkg, limits),
    checkPackage: (pkg) => checkPackageSurface(runner, pkg, limits),
    // Opened only here, for the plugin's handlers (this.secrets): docs/operations.md, "Sealed secrets".
    secretsOf: (db, name) => pluginSecretValues(db, keyring, name),
    preBudgetMs: PRE_BUDGET_MS,
    maxDepth: MAX_EVENT_DEPTH,
    pollMs: pluginPollMs(POLL_MS),
    retry: { attempts: config.pluginDeliveryAttempts, baseMs: config.pluginRetryBaseMs },
    effects: { maxPerAnswer: config.pluginMaxEffectsPerAnswer, perChange: config.pluginEffectsPerChange },
    data: { maxReads: config.pluginDataReadsPerCall, maxRows: config.pluginDataRowsPerCall },
    scheduler: { now: schedulerClock(), periodMs: schedulerMs(SCHEDULER_MS) },
  });
}
