// The plugin host of one charta-server process (docs/plugins.md, "Events"; docs/architecture.md,
// "Plugin runtime"): it assembles the plugin registry (runtime/plugins.ts: which plugins are loaded
// and where each stands), event dispatch (runtime/dispatch.ts: PRE and after-search events), the
// outbox (runtime/outbox.ts: POST events) and delivery (runtime/delivery.ts), follows changes (a
// signal when a plugin, its secrets or the outbox changed, on this process or another:
// docs/architecture.md, "Signals"; and a poll, should a signal be lost), and answers the hooks of
// PluginRuntime, the port operations call through ctx.runtime. Delivery is given the pieces it
// needs (the handler index, the calls, the port for its effects' operations), never the host.
import type { Kysely } from 'kysely';
import type { Storage } from '../storage/db.ts';
import type { Database } from '../storage/schema.ts';
import type { NewPluginEvent } from '../storage/plugin-events-repository.ts';
import type { LogBus } from '../logs/bus.ts';
import type { Signal, SignalBus } from '../signals/bus.ts';
import type { OptionDoc } from '../autocomplete/types.ts';
import type {
  CommandChangeEvent,
  EventActor,
  NoteChangeEvent,
  PackageCheck,
  PackageToCheck,
  PatientChangeEvent,
  PluginRuntime,
  PluginRuntimeStatus,
} from './types.ts';
import { HandlerCalls } from './calls.ts';
import { Delivery, type RetryPolicy } from './delivery.ts';
import type { EffectLimits } from './effect-limits.ts';
import { Dispatch } from './dispatch.ts';
import { Outbox } from './outbox.ts';
import { PluginRegistry } from './plugins.ts';
import { SurfaceCalls } from './surface-calls.ts';
import { Scheduler } from './scheduler.ts';
import type { PluginRunner } from './runner/client.ts';
import type { Runnability } from './runnable.ts';

export interface HostOptions {
  storage: Storage;
  logs: LogBus;
  /** What the host reacts to: plugins changed, secrets changed, the outbox written (here or on another process). */
  signals: SignalBus;
  runner: PluginRunner;
  /** The package's code and manifest (runtime/runnable.ts). */
  readRunnable(pkg: PackageToCheck): Promise<Runnability>;
  /** The install check (runtime/check.ts). */
  checkPackage(pkg: PackageToCheck): Promise<PackageCheck>;
  /** Every secret value of a plugin. */
  secretsOf(db: Kysely<Database>, name: string): Promise<Record<string, string>>;
  /** Total time of the handlers of one PRE or after-search event. */
  preBudgetMs: number;
  /** Longest chain of events caused by effects: an effect's event at a deeper level is not delivered. */
  maxDepth: number;
  /** How often every process looks for plugin changes and undelivered events. */
  pollMs: number;
  /** The retries of POST events (docs/plugins.md, "Delivery and guarantees"). */
  retry: RetryPolicy;
  /** The breadth limits of effects (docs/plugins.md, "Breadth limits"). */
  effects: EffectLimits;
  /** The instance's maximum read budget of one call (docs/plugins.md, "Reading the record"). */
  data: { maxReads: number; maxRows: number };
  /** The scheduler's clock (Date.now but in tests) and how often it looks for due ticks (docs/plugins.md, "Scheduled tasks"). */
  scheduler: { now(): number; periodMs: number };
}

export class PluginHost implements PluginRuntime {
  readonly registry: PluginRegistry;
  readonly calls: HandlerCalls;
  readonly delivery: Delivery;
  /** Route requests and schedule ticks (docs/plugins.md, "HTTP routes", "Scheduled tasks"). */
  readonly surface: SurfaceCalls;
  /** Runs the ticks of the schedules of the plugins enabled here, each once across the processes (docs/plugins.md, "Scheduled tasks"). */
  readonly scheduler: Scheduler;
  private readonly dispatch: Dispatch;
  private readonly outbox: Outbox;
  private timer: NodeJS.Timeout | undefined;
  private unsubscribe: (() => void) | undefined;
  private closed = false;

  constructor(private readonly options: HostOptions) {
    const { storage, logs, signals, runner } = options;
    this.registry = new PluginRegistry({
      storage,
      logs,
      runner,
      readRunnable: options.readRunnable,
      secretsOf: options.secretsOf,
      maxEffectsPerAnswer: options.effects.maxPerAnswer,
      maxDataReads: options.data.maxReads,
      maxDataRows: options.data.maxRows,
      // A plugin enabled, disabled, updated or deleted (here or on another process) starts or stops its schedules now.
      onChange: () => this.scheduler.wake(),
    });
    this.calls = new HandlerCalls(this.registry, logs);
    this.dispatch = new Dispatch(this.registry, this.calls, { preBudgetMs: options.preBudgetMs });
    this.outbox = new Outbox(this.registry, { logs, maxDepth: options.maxDepth });
    // The port the operations of effects call (their changes' own events): the pieces, not the host.
    const port: PluginRuntime = {
      pre: (trx, change, actor) => this.dispatch.pre(trx, change, actor),
      post: (change, actor) => this.outbox.post(change, actor),
      preNote: (trx, change, actor) => this.dispatch.preNote(trx, change, actor),
      postNote: (trx, change, actor) => this.outbox.postNote(trx, change, actor),
      prePatient: (trx, change, actor) => this.dispatch.prePatient(trx, change, actor),
      postPatient: (trx, change, actor) => this.outbox.postPatient(trx, change, actor),
      afterSearch: (search, actor) => this.dispatch.afterSearch(search, actor),
      checkPackage: (pkg) => options.checkPackage(pkg),
      status: (name) => this.registry.status(name),
    };
    this.surface = new SurfaceCalls(this.registry, this.calls, {
      storage,
      logs,
      signals,
      runtime: port,
      effectsPerChange: options.effects.perChange,
    });
    this.scheduler = new Scheduler({
      storage,
      logs,
      scheduled: () => this.surface.scheduled(),
      run: (handler, event, tickId, tick) => this.surface.tick(handler, event, tickId, tick),
      now: options.scheduler.now,
      periodMs: options.scheduler.periodMs,
    });
    this.delivery = new Delivery(
      storage,
      logs,
      signals,
      { handlers: this.registry, calls: this.calls, runtime: port },
      options.retry,
      options.effects.perChange,
    );
  }

  /** The runner process (for diagnostics and tests). */
  get runner(): PluginRunner {
    return this.options.runner;
  }

  /** Loads the enabled plugins, then follows changes. */
  async start(): Promise<void> {
    await this.registry.sync();
    // Events left by an earlier run (or by a plugin disabled since) are delivered or dropped now.
    this.delivery.wake();
    this.timer = setInterval(() => this.tick(), this.options.pollMs);
    this.timer.unref();
    // A change on this process or another (the signal relay): never a log line (the log stream is a sink).
    this.unsubscribe = this.options.signals.subscribe((signal) => this.signalled(signal));
    this.scheduler.start();
  }

  /** What each signal does here (docs/architecture.md, "Signals"). */
  private signalled(signal: Signal): void {
    switch (signal.type) {
      case 'plugins-changed':
      case 'secrets-changed':
        this.pluginsChanged();
        return;
      case 'outbox-written':
        this.committed();
        return;
      case 'credential-revoked':
        return; // the authentication's and the streams' (auth/hook.ts, auth/revocation.ts)
      case 'record-changed':
        return; // the change stream's (docs/api.md, "Change stream"), not the runtime's
      default:
        signal satisfies never;
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.timer);
    this.unsubscribe?.();
    await this.scheduler.close();
    await this.registry.close();
    await this.delivery.close();
    await this.options.runner.close();
  }

  private tick(): void {
    this.pluginsChanged();
    this.committed();
  }

  /** Where the plugin stands in this process's runtime; undefined when it is not there (disabled, or not seen enabled yet). */
  status(name: string): PluginRuntimeStatus | undefined {
    return this.registry.status(name);
  }

  /** Brings the loaded plugins in step with the database soon (a signal, the poll, a failed load's retry). */
  pluginsChanged(): void {
    this.registry.pluginsChanged();
  }

  /** Brings the loaded plugins in step with the database now. */
  sync(): Promise<void> {
    return this.registry.sync();
  }

  /** Delivers the waiting POST events now, if any plugin handles events here (a signal, the poll, tests). */
  committed(): void {
    if (!this.closed && this.registry.hasHandlers()) this.delivery.wake();
  }

  pre(trx: Kysely<Database>, change: CommandChangeEvent, actor: EventActor): Promise<void> {
    return this.dispatch.pre(trx, change, actor);
  }

  post(change: CommandChangeEvent, actor: EventActor): NewPluginEvent | null {
    return this.outbox.post(change, actor);
  }

  preNote(trx: Kysely<Database>, change: NoteChangeEvent, actor: EventActor): Promise<void> {
    return this.dispatch.preNote(trx, change, actor);
  }

  postNote(trx: Kysely<Database>, change: NoteChangeEvent, actor: EventActor): Promise<boolean> {
    return this.outbox.postNote(trx, change, actor);
  }

  prePatient(trx: Kysely<Database>, change: PatientChangeEvent, actor: EventActor): Promise<void> {
    return this.dispatch.prePatient(trx, change, actor);
  }

  postPatient(trx: Kysely<Database>, change: PatientChangeEvent, actor: EventActor): Promise<boolean> {
    return this.outbox.postPatient(trx, change, actor);
  }

  afterSearch(search: { schemaKey: string; field: string; term: string; options: OptionDoc[] }, actor: EventActor): Promise<OptionDoc[]> {
    return this.dispatch.afterSearch(search, actor);
  }

  checkPackage(pkg: PackageToCheck): Promise<PackageCheck> {
    return this.options.checkPackage(pkg);
  }
}
