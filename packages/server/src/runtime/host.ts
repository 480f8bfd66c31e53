// The plugin host of one charta-server process (docs/plugins.md, "Events"): keeps the enabled
// plugins loaded in the runner process, in step with the database on every process (a signal when
// a plugin changed, on this process or another: docs/architecture.md, "Signals"; and a poll, should
// a signal be lost), each loading on its own: a
// plugin whose load fails is failing (its handlers answer `unavailable`) and is tried again with
// back-off. It answers the hooks of PluginRuntime: PRE events inside the write transaction (with
// each handler's on_failure policy), POST events through the outbox (runtime/delivery.ts),
// after-search events of autocomplete, the install check.
import type { Kysely } from 'kysely';
import type { Storage } from '../storage/db.ts';
import type { Database } from '../storage/schema.ts';
import { getPluginPackage, pluginStates } from '../storage/plugins-repository.ts';
import { insertPluginEvent } from '../storage/plugin-events-repository.ts';
import { nowMicros } from '../lib/time.ts';
import { problem, type FieldProblem } from '../http/problem.ts';
import type { LogBus } from '../logs/bus.ts';
import type { Signal, SignalBus } from '../signals/bus.ts';
import type { OptionDoc } from '../autocomplete/types.ts';
import type { CommandChangeEvent, EventActor, PackageToCheck, PluginRuntime, PluginRuntimeStatus } from './types.ts';
import type { CallResult, JsonObject } from './sandbox/types.ts';
import { commandEvent, commandEventNames, newEventId, renamed, searchEventName } from './events.ts';
import { describeOutcome, HandlerCalls, type ActiveHandler, type CallRunner } from './calls.ts';
import { Delivery, type RetryPolicy } from './delivery.ts';
import { effectsPerAnswer, type EffectLimits } from './effect-limits.ts';
import { validationErrors, searchResults } from './effect-payloads.ts';
import type { PluginRunner, RunnerHandler } from './runner/client.ts';
import { handlerTarget, type Runnability, type RunnablePlugin } from './runnable.ts';

export interface HostOptions {
  storage: Storage;
  logs: LogBus;
  /** What the host reacts to: plugins changed, secrets changed, the outbox written (here or on another process). */
  signals: SignalBus;
  runner: PluginRunner;
  /** The package's code and manifest (runtime/runnable.ts). */
  readRunnable(pkg: PackageToCheck): Promise<Runnability>;
  /** The install check (runtime/check.ts). */
  checkPackage(pkg: PackageToCheck): Promise<string[]>;
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

/** PRE decisions kept for a write that runs again (storage/group-commit.ts): the most recent ones. */
const DECISIONS_KEPT = 1000;

/**
 * What a PRE decision is about: the write, and its change but for the times a run sets (so a
 * second run of the same write with the same change finds the first run's decision); undefined
 * for a change that names no write (nothing is kept).
 */
function decisionKey(change: CommandChangeEvent, actor: EventActor): string | undefined {
  if (actor.write === undefined) return undefined;
  const { created_at: _created, updated_at: _updated, ...command } = change.command;
  return JSON.stringify([actor.write, change.action, command, change.previous]);
}

export class PluginHost implements PluginRuntime, CallRunner {
  /** The enabled plugins this process knows, whatever their state. */
  private plugins = new Map<string, EnabledPlugin>();
  /** Recent PRE decisions, by decisionKey: a write run again with the same change is not checked twice. */
  private readonly decisions = new Map<string, Promise<void>>();
  private byEvent = new Map<string, ActiveHandler[]>();
  private syncing: Promise<void> | null = null;
  private syncAgain = false;
  private timer: NodeJS.Timeout | undefined;
  private unsubscribe: (() => void) | undefined;
  private closed = false;
  readonly calls: HandlerCalls;
  readonly delivery: Delivery;

  constructor(private readonly options: HostOptions) {
    this.calls = new HandlerCalls(this, options.logs);
    this.delivery = new Delivery(options.storage, options.logs, options.signals, this, options.retry, options.effects.perChange);
    // A plugin the runner could not load again (after its process restarted, or its isolate ended) is failing from now.
    options.runner.onReloadFailed = (name, reasons) => this.lost(name, reasons.join('; '));
  }

  /** The runner process (for diagnostics and tests). */
  get runner(): PluginRunner {
    return this.options.runner;
  }

  /** Loads the enabled plugins, then follows changes. */
  async start(): Promise<void> {
    await this.sync();
    // Events left by an earlier run (or by a plugin disabled since) are delivered or dropped now.
    this.delivery.wake();
    this.timer = setInterval(() => this.tick(), this.options.pollMs);
    this.timer.unref();
    // A change on this process or another (the signal relay): never a log line (the log stream is a sink).
    this.unsubscribe = this.options.signals.subscribe((signal) => this.signalled(signal));
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
      default:
        signal satisfies never;
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.timer);
    for (const plugin of this.plugins.values()) clearTimeout(plugin.timer);
    this.unsubscribe?.();
    await this.syncing?.catch(() => undefined);
    await this.delivery.close();
    await this.options.runner.close();
  }

  private tick(): void {
    this.pluginsChanged();
    this.committed();
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

  /** Delivers the waiting POST events now, if any plugin handles events here (a signal, the poll, tests). */
  committed(): void {
    if (!this.closed && this.hasHandlers()) this.delivery.wake();
  }

  /**
   * A handler call (HandlerCalls' runner): a failing plugin answers `unavailable` without running;
   * a running plugin whose isolate could not be loaded again is failing from then on.
   */
  async call(name: string, entry: string, handler: string, event: JsonObject, secrets: Readonly<Record<string, string>>): Promise<CallResult> {
    const plugin = this.plugins.get(name);
    if (plugin?.state === 'failing') {
      return callFailed({
        kind: 'unavailable',
        message: `the plugin ${name} is failing to load (${plugin.detail}); next try at ${new Date(plugin.retryAt!).toISOString()}`,
      });
    }
    const result = await this.options.runner.call(name, entry, handler, event, secrets);
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
    const loaded = await this.options.runner.load(runnable.plugin);
    if (this.plugins.get(name) !== plugin || this.closed) return;
    if (!loaded.ok) {
      await this.failed(plugin, loaded.reasons.join('; '), this.declaredHandlers(runnable.plugin, null, {}));
      return;
    }
    const secrets = await this.options.secretsOf(db, name);
    plugin.handlers = this.declaredHandlers(runnable.plugin, loaded.handlers, secrets);
    Object.assign(plugin, { state: 'running', detail: null, since: Date.now(), retryAt: null, failedLoads: 0 } satisfies Partial<EnabledPlugin>);
    const events = [...new Set(plugin.handlers.flatMap((h) => h.events))];
    this.info(name, `plugin runtime: ${name} ${version} running: ${plugin.handlers.length} handler(s) for ${events.join(', ') || 'no events'}`);
  }

  /**
   * The manifest's handlers as the host dispatches to them: with `loaded` (the classes the runner
   * found), those it found, for the events their RESPONDS_TO lists; without (a failed load), every
   * one declared, whose calls answer `unavailable`.
   */
  private declaredHandlers(runnable: RunnablePlugin, loaded: RunnerHandler[] | null, secrets: Readonly<Record<string, string>>): ActiveHandler[] {
    const { manifest, name: plugin } = runnable;
    const perAnswer = effectsPerAnswer(manifest.limits?.effects_per_answer, this.options.effects.maxPerAnswer);
    const handlers: ActiveHandler[] = [];
    for (const handler of manifest.components.handlers) {
      const { entry, name: className } = handlerTarget(handler);
      if (className === undefined || entry === undefined) continue;
      const found = loaded?.find((h) => h.entry === entry && h.name === className);
      if (loaded !== null && found === undefined) continue;
      const events = found === undefined ? handler.events : handler.events.filter((e) => found.respondsTo.includes(e));
      handlers.push({
        plugin,
        entry,
        className,
        id: `${entry}:${className}`,
        events,
        secrets,
        onFailure: handler.on_failure ?? 'allow',
        effectsPerAnswer: perAnswer,
      });
    }
    return handlers;
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
  }

  /**
   * The PRE event of a change. A write set aside by the SQLite group commit while its check ran
   * runs again once the check has settled (docs/plugins.md, "Delivery and guarantees"): the same
   * change of the same request gets the decision already made, without calling the handlers again.
   */
  pre(_trx: Kysely<Database>, change: CommandChangeEvent, actor: EventActor): Promise<void> {
    const types = commandEventNames(change.command.schema_key, 'PRE', change.action);
    const targets = types.flatMap((type) => this.handlersOf(type).map((handler) => ({ type, handler })));
    if (targets.length === 0) return Promise.resolve();
    const key = decisionKey(change, actor);
    const known = key === undefined ? undefined : this.decisions.get(key);
    if (known !== undefined) return known;
    const decision = this.decide(types, targets, change, actor);
    if (key !== undefined) {
      decision.catch(() => undefined);
      this.decisions.set(key, decision);
      if (this.decisions.size > DECISIONS_KEPT) this.decisions.delete(this.decisions.keys().next().value!);
    }
    return decision;
  }

  private async decide(
    types: [string, string],
    targets: Array<{ type: string; handler: ActiveHandler }>,
    change: CommandChangeEvent,
    actor: EventActor,
  ): Promise<void> {
    const base = commandEvent(newEventId(), types[0], change, actor);
    const deadline = Date.now() + this.options.preBudgetMs;
    const errors: FieldProblem[] = [];
    const unchecked: FieldProblem[] = [];
    for (const { type, handler } of targets) {
      // No PRE check is skipped in silence: each failure says what it does to the change (docs/plugins.md, "Delivery and guarantees").
      const consequence = `; the change to command ${change.command.uuid} ${handler.onFailure === 'refuse' ? 'is refused (on_failure: refuse)' : 'goes ahead (on_failure: allow)'}`;
      if (Date.now() >= deadline) {
        const what = `was skipped: the ${this.options.preBudgetMs} ms budget of ${type} was spent`;
        this.calls.failure(handler, type, actor.requestId, `${what}${consequence}`, 'skipped');
        if (handler.onFailure === 'refuse') unchecked.push({ field: 'command', message: `handler ${handler.id} ${what}`, plugin: handler.plugin });
        continue;
      }
      const answer = await this.calls.call(handler, type, renamed(base, type), actor.requestId, consequence);
      if (!answer.ok) {
        if (handler.onFailure === 'refuse')
          unchecked.push({ field: 'command', message: `handler ${handler.id} ${describeOutcome(answer.fault)}`, plugin: handler.plugin });
        continue;
      }
      for (const [index, effect] of answer.effects.entries()) {
        if (effect.type === 'EVENT_VALIDATION_ERROR') {
          const checked = validationErrors(effect);
          if (typeof checked === 'string')
            this.calls.failure(handler, type, actor.requestId, `effect ${index} (EVENT_VALIDATION_ERROR) is malformed: ${checked}`, 'effect');
          else for (const e of checked) errors.push({ field: e.field ?? 'command', message: e.message, plugin: handler.plugin });
        } else {
          this.calls.failure(
            handler,
            type,
            actor.requestId,
            `effect ${index} (${String(effect.type)}) was not applied: a PRE event takes only EVENT_VALIDATION_ERROR`,
            'effect',
          );
        }
      }
    }
    if (errors.length > 0) {
      const detail = `Refused by ${[...new Set(errors.map((e) => e.plugin))].join(', ')}: ${errors.map((e) => e.message).join('; ')}`;
      throw problem('plugin_validation_failed', { detail, errors });
    }
    if (unchecked.length > 0) {
      const detail = `Refused: ${[...new Set(unchecked.map((e) => e.plugin))].join(', ')} must check this change and could not (${unchecked.map((e) => e.message).join('; ')}); nothing was written`;
      throw problem('plugin_unavailable', { detail, errors: unchecked });
    }
  }

  async post(trx: Kysely<Database>, change: CommandChangeEvent, actor: EventActor): Promise<boolean> {
    const types = commandEventNames(change.command.schema_key, 'POST', change.action);
    if (!types.some((type) => this.handlersOf(type).length > 0)) return false;
    if (actor.depth > this.options.maxDepth) {
      this.options.logs.emit({
        level: 'warning',
        event: `plugin runtime: ${types[0]} of command ${change.command.uuid} not delivered: plugin effects chained ${actor.depth} events deep (limit ${this.options.maxDepth})`,
        request_id: actor.requestId,
        event_type: types[0],
      });
      return false;
    }
    const id = newEventId();
    await insertPluginEvent(trx, {
      event_id: id,
      command_uuid: change.command.uuid,
      event_type: types[0],
      payload: JSON.stringify(commandEvent(id, types[0], change, actor)),
      depth: actor.depth,
      request_id: actor.requestId,
      created_at: nowMicros(),
      root_id: actor.rootId ?? id,
    });
    return true;
  }

  async afterSearch(search: { schemaKey: string; field: string; term: string; options: OptionDoc[] }, actor: EventActor): Promise<OptionDoc[]> {
    const type = searchEventName(search.schemaKey, search.field);
    const handlers = this.handlersOf(type);
    if (handlers.length === 0) return search.options;
    const deadline = Date.now() + this.options.preBudgetMs;
    let options = search.options;
    for (const handler of handlers) {
      if (Date.now() >= deadline) {
        this.calls.failure(handler, type, actor.requestId, `skipped: the ${this.options.preBudgetMs} ms budget of ${type} was spent`, 'skipped');
        continue;
      }
      const event: JsonObject = {
        id: newEventId(),
        type,
        target: { id: `${search.schemaKey}.${search.field}`, type: 'field' },
        context: { schema_key: search.schemaKey, field: search.field, search_term: search.term, results: options as unknown as JsonObject[] },
        actor: { id: actor.staffKey },
        depth: actor.depth,
      };
      const called = await this.calls.call(handler, type, event, actor.requestId);
      const answer = (called.ok ? called.effects : []).find((e) => e.type === 'AUTOCOMPLETE_SEARCH_RESULTS');
      if (answer === undefined) continue;
      const next = searchResults(answer, options);
      if (typeof next === 'string') this.calls.failure(handler, type, actor.requestId, `AUTOCOMPLETE_SEARCH_RESULTS was not applied: ${next}`, 'effect');
      else options = next;
    }
    return options;
  }

  checkPackage(pkg: PackageToCheck): Promise<string[]> {
    return this.options.checkPackage(pkg);
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
