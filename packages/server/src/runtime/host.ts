// The plugin host of one charta-server process (docs/plugins.md, "Events"): keeps the enabled
// plugins loaded in the runner process, in step with the database on every process (a poll, and
// a nudge from the log stream when another process changed a plugin), and answers the hooks of
// PluginRuntime: PRE events inside the write transaction, POST events through the outbox
// (runtime/delivery.ts), after-search events of autocomplete, the install check.
import type { Kysely } from 'kysely';
import type { Storage } from '../storage/db.ts';
import type { Database } from '../storage/schema.ts';
import { getPluginPackage, pluginStates } from '../storage/plugins-repository.ts';
import { insertPluginEvent } from '../storage/plugin-events-repository.ts';
import { nowMicros } from '../lib/time.ts';
import { problem, type FieldProblem } from '../http/problem.ts';
import type { LogBus } from '../logs/bus.ts';
import type { OptionDoc } from '../autocomplete/types.ts';
import type { CommandChangeEvent, EventActor, PackageToCheck, PluginRuntime } from './types.ts';
import type { JsonObject } from './sandbox/types.ts';
import { commandEvent, commandEventNames, newEventId, renamed, searchEventName } from './events.ts';
import { HandlerCalls, type ActiveHandler } from './calls.ts';
import { Delivery } from './delivery.ts';
import { validationErrors, searchResults } from './effect-payloads.ts';
import type { PluginRunner } from './runner/client.ts';
import { handlerTarget, type Runnability } from './runnable.ts';

export interface HostOptions {
  storage: Storage;
  logs: LogBus;
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
}

interface ActivePlugin {
  name: string;
  version: string;
  /** checksum and updated_at: a change of either (package, enabled, secrets) reloads the plugin. */
  revision: string;
  handlers: ActiveHandler[];
}

export class PluginHost implements PluginRuntime {
  private active = new Map<string, ActivePlugin>();
  /** Revisions that could not be loaded: reported once, not retried until the plugin changes. */
  private failed = new Map<string, string>();
  private byEvent = new Map<string, ActiveHandler[]>();
  private syncing: Promise<void> | null = null;
  private syncAgain = false;
  private timer: NodeJS.Timeout | undefined;
  private unsubscribe: (() => void) | undefined;
  private closed = false;
  readonly calls: HandlerCalls;
  readonly delivery: Delivery;

  constructor(private readonly options: HostOptions) {
    this.calls = new HandlerCalls(options.runner, options.logs);
    this.delivery = new Delivery(options.storage, options.logs, this);
  }

  /** Loads the enabled plugins, then follows changes. */
  async start(): Promise<void> {
    await this.sync();
    // Events left by an earlier run (or by a plugin disabled since) are delivered or dropped now.
    this.delivery.wake();
    this.timer = setInterval(() => this.tick(), this.options.pollMs);
    this.timer.unref();
    // A plugin changed on another process: its lifecycle line arrives through the log relay.
    this.unsubscribe = this.options.logs.subscribe((entry) => {
      if (entry.source === 'server' && entry.plugin !== undefined && entry.handler === undefined && !entry.event.startsWith('plugin runtime:')) {
        this.pluginsChanged();
      } else if (entry.source === 'server' && entry.event.startsWith('command ')) {
        this.committed();
      }
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.timer);
    this.unsubscribe?.();
    await this.syncing?.catch(() => undefined);
    await this.delivery.close();
    await this.options.runner.close();
  }

  private tick(): void {
    this.pluginsChanged();
    this.committed();
  }

  /** The handlers of these events, in a stable order (plugin name, then manifest order). */
  handlersOf(type: string): ActiveHandler[] {
    return this.byEvent.get(type) ?? [];
  }

  hasHandlers(): boolean {
    return this.byEvent.size > 0;
  }

  pluginsChanged(): void {
    if (this.closed) return;
    void this.sync().catch((err: unknown) => this.runtimeError(`could not read the plugins: ${err instanceof Error ? err.message : String(err)}`));
  }

  committed(): void {
    if (!this.closed && this.hasHandlers()) this.delivery.wake();
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
    for (const [name, plugin] of this.active) {
      if (enabled.has(name)) continue;
      this.active.delete(name);
      await this.options.runner.unload(name);
      this.info(name, `plugin runtime: ${name} ${plugin.version} stopped`);
      changed = true;
    }
    for (const state of enabled.values()) {
      if (this.closed) return;
      const revision = `${state.checksum}:${state.updated_at}`;
      if (this.active.get(state.name)?.revision === revision || this.failed.get(state.name) === revision) continue;
      changed = true;
      const loaded = await this.load(state.name, state.version, revision);
      if (loaded === null) {
        this.failed.set(state.name, revision);
        if (this.active.delete(state.name)) await this.options.runner.unload(state.name);
      } else {
        this.failed.delete(state.name);
        this.active.set(state.name, loaded);
      }
    }
    for (const name of this.failed.keys()) if (!enabled.has(name)) this.failed.delete(name);
    if (changed) this.index();
  }

  private async load(name: string, version: string, revision: string): Promise<ActivePlugin | null> {
    const db = this.options.storage.reader;
    const row = await getPluginPackage(db, name);
    if (row === undefined) return null;
    const pkg: PackageToCheck = { name, format: row.format as PackageToCheck['format'], source: 'manifest', bytes: Buffer.from(row.package) };
    const runnable = await this.options.readRunnable(pkg);
    if (runnable.kind === 'nothing-to-run') {
      this.fault(name, `plugin runtime: ${runnable.message}, so enabling it runs nothing`);
      return null;
    }
    if (runnable.kind === 'invalid') {
      this.fault(name, `plugin runtime: ${name} ${version} cannot run: ${runnable.reasons.join('; ')}`);
      return null;
    }
    const loaded = await this.options.runner.load(runnable.plugin);
    if (!loaded.ok) {
      this.fault(name, `plugin runtime: ${name} ${version} failed to load: ${loaded.reasons.join('; ')}`);
      return null;
    }
    const secrets = await this.options.secretsOf(db, name);
    const handlers: ActiveHandler[] = [];
    for (const declared of runnable.plugin.manifest.components.handlers) {
      const { entry, name: className } = handlerTarget(declared);
      const found = loaded.handlers.find((h) => h.entry === entry && h.name === className);
      if (found === undefined || className === undefined || entry === undefined) continue;
      const events = declared.events.filter((e) => found.respondsTo.includes(e));
      handlers.push({ plugin: name, entry, className, id: `${entry}:${className}`, events, secrets });
    }
    const events = [...new Set(handlers.flatMap((h) => h.events))];
    this.info(name, `plugin runtime: ${name} ${version} running: ${handlers.length} handler(s) for ${events.join(', ') || 'no events'}`);
    return { name, version, revision, handlers };
  }

  private index(): void {
    const byEvent = new Map<string, ActiveHandler[]>();
    for (const name of [...this.active.keys()].sort()) {
      for (const handler of this.active.get(name)!.handlers) {
        for (const type of handler.events) byEvent.set(type, [...(byEvent.get(type) ?? []), handler]);
      }
    }
    this.byEvent = byEvent;
  }

  async pre(_trx: Kysely<Database>, change: CommandChangeEvent, actor: EventActor): Promise<void> {
    const types = commandEventNames(change.command.schema_key, 'PRE', change.action);
    const targets = types.flatMap((type) => this.handlersOf(type).map((handler) => ({ type, handler })));
    if (targets.length === 0) return;
    const base = commandEvent(newEventId(), types[0], change, actor);
    const deadline = Date.now() + this.options.preBudgetMs;
    const errors: FieldProblem[] = [];
    for (const { type, handler } of targets) {
      if (Date.now() >= deadline) {
        this.calls.failure(handler, type, actor.requestId, `skipped: the ${this.options.preBudgetMs} ms budget of ${type} was spent; the change goes ahead`);
        continue;
      }
      const answer = await this.calls.call(handler, type, renamed(base, type), actor.requestId);
      for (const [index, effect] of (answer.ok ? answer.effects : []).entries()) {
        if (effect.type === 'EVENT_VALIDATION_ERROR') {
          const checked = validationErrors(effect);
          if (typeof checked === 'string')
            this.calls.failure(handler, type, actor.requestId, `effect ${index} (EVENT_VALIDATION_ERROR) is malformed: ${checked}`);
          else for (const e of checked) errors.push({ field: e.field ?? 'command', message: e.message, plugin: handler.plugin });
        } else {
          this.calls.failure(
            handler,
            type,
            actor.requestId,
            `effect ${index} (${String(effect.type)}) was not applied: a PRE event takes only EVENT_VALIDATION_ERROR`,
          );
        }
      }
    }
    if (errors.length > 0) {
      const detail = `Refused by ${[...new Set(errors.map((e) => e.plugin))].join(', ')}: ${errors.map((e) => e.message).join('; ')}`;
      throw problem('plugin_validation_failed', { detail, errors });
    }
  }

  async post(trx: Kysely<Database>, change: CommandChangeEvent, actor: EventActor): Promise<void> {
    const types = commandEventNames(change.command.schema_key, 'POST', change.action);
    if (!types.some((type) => this.handlersOf(type).length > 0)) return;
    if (actor.depth > this.options.maxDepth) {
      this.options.logs.emit({
        level: 'warning',
        event: `plugin runtime: ${types[0]} of command ${change.command.uuid} not delivered: plugin effects chained ${actor.depth} events deep (limit ${this.options.maxDepth})`,
        request_id: actor.requestId,
        event_type: types[0],
      });
      return;
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
  }

  async afterSearch(search: { schemaKey: string; field: string; term: string; options: OptionDoc[] }, actor: EventActor): Promise<OptionDoc[]> {
    const type = searchEventName(search.schemaKey, search.field);
    const handlers = this.handlersOf(type);
    if (handlers.length === 0) return search.options;
    const deadline = Date.now() + this.options.preBudgetMs;
    let options = search.options;
    for (const handler of handlers) {
      if (Date.now() >= deadline) {
        this.calls.failure(handler, type, actor.requestId, `skipped: the ${this.options.preBudgetMs} ms budget of ${type} was spent`);
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
      if (typeof next === 'string') this.calls.failure(handler, type, actor.requestId, `AUTOCOMPLETE_SEARCH_RESULTS was not applied: ${next}`);
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
    this.options.logs.emit({ level: 'error', event, plugin, success: false });
  }

  private runtimeError(event: string): void {
    if (!this.closed) this.options.logs.emit({ level: 'error', event: `plugin runtime: ${event}`, success: false });
  }
}
