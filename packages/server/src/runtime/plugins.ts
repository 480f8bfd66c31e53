// The plugin registry of one charta-server process (docs/plugins.md, "Events" and "Faults"): which
// enabled plugins are loaded in the runner process and where each stands (loading, running,
// failing, cannot-run), in step with the database (PluginHost calls sync on a signal and on its
// poll: docs/architecture.md, "Signals"), each loading on its own: a plugin whose load fails is
// failing (its handlers answer `unavailable`) and is tried again with back-off. It indexes the
// handlers by event, for dispatch (runtime/dispatch.ts), the outbox (runtime/outbox.ts) and
// delivery (runtime/delivery.ts), and runs their calls (HandlerCalls' CallRunner).
import type { Storage } from '../storage/db.ts';
import type { Kysely } from 'kysely';
import type { Database } from '../storage/schema.ts';
import { getPluginPackage, pluginStates } from '../storage/plugins-repository.ts';
import type { LogBus } from '../logs/bus.ts';
import type { PackageToCheck, PluginRuntimeStatus } from './types.ts';
import type { CallResult, JsonObject } from './sandbox/types.ts';
import type { ActiveHandler, CallContext, CallRunner } from './calls.ts';
import type { PluginRunner } from './runner/client.ts';
import { declaredHandlers, type Runnability } from './runnable.ts';
import { SecretUnreadableError } from '../storage/plugin-secrets-repository.ts';

export interface RegistryOptions {
  storage: Storage;
  logs: LogBus;
  runner: PluginRunner;
  /** The package's code and manifest (runtime/runnable.ts). */
  readRunnable(pkg: PackageToCheck): Promise<Runnability>;
  /** Every secret value of a plugin, opened; SecretUnreadableError for one that cannot be. */
  secretsOf(db: Kysely<Database>, name: string): Promise<Record<string, string>>;
  /** The most effects one answer may hold on this instance (docs/plugins.md, "Breadth limits"). */
  maxEffectsPerAnswer: number;
  /** The most reads, and rows, one call may make on this instance (docs/plugins.md, "Reading the record"). */
  maxDataReads: number;
  maxDataRows: number;
  /** Called when the handlers change (a plugin loaded, stopped, failing): the scheduler looks again. */
  onChange?: () => void;
}

/** Which handlers listen to an event, and a way to bring them in step with the database: what dispatch, the outbox and delivery need. */
export interface HandlerIndex {
  /** The handlers of these events, in a stable order (plugin name, then manifest order): a failing plugin's too. */
  handlersOf(type: string): ActiveHandler[];
  /** Brings the loaded plugins in step with the database. */
  sync(): Promise<void>;
}

interface EnabledPlugin extends PluginRuntimeStatus {
  name: string;
  version: string;
  /** checksum and updated_at: a change of either (package, enabled, secrets) reloads the plugin. */
  revision: string;
  /** running: its handlers; failing: the handlers its manifest declares, whose calls answer `unavailable`. */
  handlers: ActiveHandler[];
  timer?: NodeJS.Timeout;
}

/** The wait before the next load of a plugin whose load failed `failures` times in a row: 1 s, doubling, at most 5 minutes. */
const loadRetryDelayMs = (failures: number): number => Math.min(300_000, 1000 * 2 ** Math.max(0, failures - 1));

const callFailed = (outcome: CallResult['outcome']): CallResult => ({ outcome, logs: [], droppedLogLines: 0, reloaded: false });

export class PluginRegistry implements HandlerIndex, CallRunner {
  /** The enabled plugins this process knows, whatever their state. */
  private plugins = new Map<string, EnabledPlugin>();
  private byEvent = new Map<string, ActiveHandler[]>();
  private syncing: Promise<void> | null = null;
  private syncAgain = false;
  private closed = false;

  constructor(private readonly options: RegistryOptions) {
    // A plugin the runner could not load again (after its process restarted, or its isolate ended) is failing from now.
    options.runner.onReloadFailed = (name, reasons) => this.lost(name, reasons.join('; '));
  }

  /** Stops following changes: no load starts, no retry is waiting. */
  async close(): Promise<void> {
    this.closed = true;
    for (const plugin of this.plugins.values()) clearTimeout(plugin.timer);
    await this.syncing?.catch(() => undefined);
  }

  /** The handlers of these events, in a stable order (plugin name, then manifest order): a failing plugin's too. */
  handlersOf(type: string): ActiveHandler[] {
    return this.byEvent.get(type) ?? [];
  }

  hasHandlers(): boolean {
    return this.byEvent.size > 0;
  }

  /** Where the plugin stands in this process's runtime; undefined when it is not there (disabled, or not seen enabled yet). */
  status(name: string): PluginRuntimeStatus | undefined {
    const plugin = this.plugins.get(name);
    if (plugin === undefined) return undefined;
    const { state, detail, since, retryAt, failedLoads } = plugin;
    return { state, detail, since, retryAt, failedLoads };
  }

  /** Brings the loaded plugins in step with the database soon (a signal, the poll, a failed load's retry). */
  pluginsChanged(): void {
    if (this.closed) return;
    void this.sync().catch((err: unknown) => this.runtimeError(`could not read the plugins: ${err instanceof Error ? err.message : String(err)}`));
  }

  /**
   * A handler call (HandlerCalls' runner): a failing plugin answers `unavailable` without running;
   * a running plugin whose isolate could not be loaded again is failing from then on.
   */
  async call(
    name: string,
    entry: string,
    handler: string,
    event: JsonObject,
    secrets: Readonly<Record<string, string>>,
    context?: CallContext,
  ): Promise<CallResult> {
    const plugin = this.plugins.get(name);
    if (plugin?.state === 'failing') {
      return callFailed({
        kind: 'unavailable',
        message: `the plugin ${name} is failing to load (${plugin.detail}); next try at ${new Date(plugin.retryAt!).toISOString()}`,
      });
    }
    const result = await this.options.runner.call(name, entry, handler, event, secrets, context);
    if (result.outcome.kind === 'unavailable' && !this.closed) this.lost(name, result.outcome.message);
    return result;
  }

  /** Brings the loaded plugins in step with the database; one sync at a time, repeated when asked meanwhile. */
  sync(): Promise<void> {
    if (this.syncing !== null) {
      this.syncAgain = true;
      return this.syncing;
    }
    this.syncing = (async () => {
      try {
        do {
          this.syncAgain = false;
          await this.syncOnce();
        } while (this.syncAgain && !this.closed);
      } finally {
        this.syncing = null;
      }
    })();
    return this.syncing;
  }

  private async syncOnce(): Promise<void> {
    const states = await pluginStates(this.options.storage.reader);
    const enabled = new Map(states.filter((s) => s.is_enabled !== 0).map((s) => [s.name, s]));
    let changed = false;
    const stopped = [...this.plugins.values()].filter((plugin) => !enabled.has(plugin.name));
    if (stopped.length > 0) {
      // Out of the index first: no event is handed to a plugin while it is being unloaded.
      for (const plugin of stopped) {
        this.plugins.delete(plugin.name);
        clearTimeout(plugin.timer);
      }
      this.index();
      for (const plugin of stopped) {
        await this.options.runner.unload(plugin.name);
        if (plugin.state === 'running') this.info(plugin.name, `plugin runtime: ${plugin.name} ${plugin.version} stopped`);
      }
    }
    const now = Date.now();
    const due = [...enabled.values()].filter((state) => {
      const known = this.plugins.get(state.name);
      return known === undefined || known.revision !== `${state.checksum}:${state.updated_at}` || (known.state === 'failing' && known.retryAt! <= now);
    });
    // Each plugin loads on its own, all at once: one that hangs or fails holds up no other.
    if (due.length > 0 && !this.closed) {
      changed = true;
      await Promise.all(due.map((state) => this.load(state.name, state.version, `${state.checksum}:${state.updated_at}`)));
    }
    if (changed) this.index();
  }

  private async load(name: string, version: string, revision: string): Promise<void> {
    const known = this.plugins.get(name);
    const plugin: EnabledPlugin =
      known?.revision === revision
        ? known
        : { name, version, revision, state: 'loading', detail: null, since: Date.now(), retryAt: null, failedLoads: 0, handlers: known?.handlers ?? [] };
    if (known !== plugin) clearTimeout(known?.timer);
    this.plugins.set(name, plugin);
    const db = this.options.storage.reader;
    const row = await getPluginPackage(db, name);
    if (row === undefined) return;
    const pkg: PackageToCheck = { name, format: row.format as PackageToCheck['format'], source: 'manifest', bytes: Buffer.from(row.package) };
    const runnable = await this.options.readRunnable(pkg);
    if (runnable.kind !== 'runnable') {
      const why = runnable.kind === 'nothing-to-run' ? runnable.message : `${name} ${version} cannot run: ${runnable.reasons.join('; ')}`;
      await this.cannotRun(plugin, why, runnable.kind === 'nothing-to-run' ? `${runnable.message}, so enabling it runs nothing` : why);
      return;
    }
    // Its secrets first: one that cannot be opened (the wrong key, a sealed value changed in the
    // database) fails the load with the reason, and the plugin never runs with a value that is not
    // the one an admin set (docs/operations.md, "Sealed secrets").
    let secrets: Record<string, string>;
    try {
      secrets = await this.options.secretsOf(db, name);
    } catch (err) {
      if (!(err instanceof SecretUnreadableError)) throw err;
      if (this.plugins.get(name) !== plugin || this.closed) return;
      await this.failed(plugin, `${err.message}; set it again`, declaredHandlers(runnable.plugin, null, {}, this.options));
      return;
    }
    const loaded = await this.options.runner.load(runnable.plugin);
    if (this.plugins.get(name) !== plugin || this.closed) return;
    if (!loaded.ok) {
      await this.failed(plugin, loaded.reasons.join('; '), declaredHandlers(runnable.plugin, null, {}, this.options));
      return;
    }
    plugin.handlers = declaredHandlers(runnable.plugin, loaded.handlers, secrets, this.options);
    Object.assign(plugin, { state: 'running', detail: null, since: Date.now(), retryAt: null, failedLoads: 0 } satisfies Partial<EnabledPlugin>);
    const events = [...new Set(plugin.handlers.flatMap((h) => h.events))];
    this.info(name, `plugin runtime: ${name} ${version} running: ${plugin.handlers.length} handler(s) for ${events.join(', ') || 'no events'}`);
  }

  /** A load failed: the plugin is failing, its handlers answer `unavailable`, and its load is tried again after a wait that grows. */
  private async failed(plugin: EnabledPlugin, why: string, handlers: ActiveHandler[]): Promise<void> {
    const failedLoads = plugin.failedLoads + 1;
    const delay = loadRetryDelayMs(failedLoads);
    Object.assign(plugin, { state: 'failing', detail: why, retryAt: Date.now() + delay, failedLoads, handlers } satisfies Partial<EnabledPlugin>);
    if (failedLoads === 1) plugin.since = Date.now();
    clearTimeout(plugin.timer);
    plugin.timer = setTimeout(() => this.pluginsChanged(), delay);
    plugin.timer.unref();
    // A version loaded before stays in the runner after a failed load: it must not run either.
    await this.options.runner.unload(plugin.name);
    this.fault(
      plugin.name,
      `plugin runtime: ${plugin.name} ${plugin.version} failed to load (${failedLoads} time${failedLoads === 1 ? '' : 's'} in a row; tried again in ${Math.round(delay / 1000)} s): ${why}`,
    );
  }

  private async cannotRun(plugin: EnabledPlugin, detail: string, line: string): Promise<void> {
    Object.assign(plugin, { state: 'cannot-run', detail, since: Date.now(), retryAt: null, handlers: [] } satisfies Partial<EnabledPlugin>);
    await this.options.runner.unload(plugin.name);
    this.fault(plugin.name, `plugin runtime: ${line}`);
  }

  /** A running plugin the runner no longer has (its reload failed): failing from now, tried again later. */
  private lost(name: string, why: string): void {
    const plugin = this.plugins.get(name);
    if (plugin === undefined || plugin.state !== 'running' || this.closed) return;
    void this.failed(plugin, why, plugin.handlers).then(() => this.index());
  }

  private index(): void {
    const byEvent = new Map<string, ActiveHandler[]>();
    for (const name of [...this.plugins.keys()].sort()) {
      for (const handler of this.plugins.get(name)!.handlers) {
        for (const type of handler.events) byEvent.set(type, [...(byEvent.get(type) ?? []), handler]);
      }
    }
    this.byEvent = byEvent;
    this.options.onChange?.();
  }

  private info(plugin: string, event: string): void {
    this.options.logs.emit({ level: 'info', event, plugin });
  }

  private fault(plugin: string, event: string): void {
    this.options.logs.emit({ level: 'error', event, plugin, success: false, fault: 'load' });
  }

  private runtimeError(event: string): void {
    if (!this.closed) this.options.logs.emit({ level: 'error', event: `plugin runtime: ${event}`, success: false });
  }
}
