// A plugin's runtime outside an instance (docs/plugins.md, "Testing a plugin"): what `charta plugin
// test` and `charta plugin run` run a plugin project's handlers in, so that a handler behaves in
// its tests as it will on the instance. The package, as `charta plugin build` makes it, goes
// through the instance's own code: its install check (check.ts), the runner process and its
// QuickJS sandbox under the plugin's limits (runner/client.ts; the limits an instance with these
// settings gives: runnable.ts), its handlers as the registry makes them from the manifest
// (runnable.ts declaredHandlers), and each call with its log lines and faults as the instance logs
// them (calls.ts). `this.data` reads a fixture under the instance's rules of scope and budget
// (fixture-reads.ts). No database and no server: nothing is stored and no effect is applied; a
// call answers its effects. Exported as `@charta/server/local-runtime`.
import { SIGNATURE_BINDING, signatureBinding } from './signature.ts';
import crypto from 'node:crypto';
import { isEventName } from '@charta/api/constants';
import { createTickEvent } from '@charta/plugin-sdk';
import { loadConfig } from '../config.ts';
import { LogBus, type LogEntry } from '../logs/bus.ts';
import { Bindings } from './bindings.ts';
import { CACHE_BINDING, cacheBinding, memoryCacheStore } from './cache.ts';
import { describeOutcome, HandlerCalls, type ActiveHandler, type CallFault } from './calls.ts';
import { checkPackage } from './check.ts';
import { DATA_BINDING } from './data-access.ts';
import { renamed } from './events.ts';
import { EMPTY_FIXTURE, fixtureBinding, type Fixture, type FixtureCall, type LocalRead } from './fixture-reads.ts';
import { GRANT_NAMES, isGrant } from './grants.ts';
import { PluginRunner } from './runner/client.ts';
import { declaredHandlers, runnablePlugin, type InstanceLimits, type RunnablePlugin } from './runnable.ts';
import type { JsonObject } from './sandbox/types.ts';
import { ticksAround } from './surface.ts';

export { checkFixture, type Fixture, type LocalRead } from './fixture-reads.ts';
export type { LogEntry } from '../logs/bus.ts';
export { ConfigError } from '../config.ts';
export type { JsonObject } from './sandbox/types.ts';

const MiB = 1024 * 1024;

/** One call's answer: its effects, or its fault as the instance describes it, with its log lines and reads. */
export interface LocalCall {
  /** `<entry>:<class>`, as log lines name it. */
  handler: string;
  /** The event name the handler was given (a kind's event reaches a handler of the generic event under the generic name). */
  type: string;
  outcome: 'ok' | CallFault['kind'];
  effects: JsonObject[];
  /** What the fault was, in the words of the instance's fault line; null when the call answered. */
  fault: string | null;
  /** The lines the instance's log stream would show of the call: the handler's own (`source: plugin`), warnings and its fault line. */
  logs: LogEntry[];
  /** What it read, as the audit trail would record it. */
  reads: LocalRead[];
}

export interface LocalCallOptions {
  secrets?: Readonly<Record<string, string>>;
  /** What `this.data` reads (checkFixture); none: an empty record. */
  fixture?: Fixture;
  /** The grants an administrator gave the plugin (only `data:instance` changes what a call does here). */
  grants?: readonly string[];
}

/** A request the local runtime refuses before any call (a secret the manifest does not declare, an unknown grant…). */
export class LocalRefusal extends Error {}

/**
 * The instance's settings that decide a plugin's limits (CHARTA_PLUGIN_MAX_MEMORY_MB,
 * CHARTA_PLUGIN_MAX_TIMEOUT_MS, …, docs/configuration.md), from `env`: their defaults unless set
 * there. Nothing else of the environment is read. A value out of its range throws ConfigError.
 */
function settingsOf(env: Readonly<Record<string, string | undefined>>) {
  const plugin = Object.fromEntries(Object.entries(env).filter(([name]) => name.startsWith('CHARTA_PLUGIN_')));
  const config = loadConfig(plugin);
  return {
    limits: {
      maxMemoryMb: config.pluginMaxMemoryMb,
      maxTimeoutMs: config.pluginMaxTimeoutMs,
      maxEffectsPerAnswer: config.pluginMaxEffectsPerAnswer,
    } satisfies InstanceLimits,
    maxima: { maxEffectsPerAnswer: config.pluginMaxEffectsPerAnswer, maxDataReads: config.pluginDataReadsPerCall, maxDataRows: config.pluginDataRowsPerCall },
    runnerBytes: config.pluginRunnerMaxMemoryMb * MiB,
  };
}

/** `PLAN_COMMAND__POST_COMMIT` → `POST_COMMAND_COMMIT`: the generic event the instance also gives a kind's event as (runtime/events.ts). */
function genericTwin(type: string): string | undefined {
  const m = /^.+_COMMAND__(PRE|POST)_([A-Z_]+)$/.exec(type);
  const twin = m === null ? undefined : `${m[1]}_COMMAND_${m[2]}`;
  return twin !== undefined && isEventName(twin) ? twin : undefined;
}

/** A call under way: its fixture, grants and reads, and its log lines. */
type Pending = FixtureCall & { lines: LogEntry[] };

export class LocalPlugin {
  private readonly logs = new LogBus();
  private readonly calls: HandlerCalls;
  /** Lines about no call (the runner's notices). */
  readonly notices: LogEntry[] = [];

  private constructor(
    private readonly runner: PluginRunner,
    readonly plugin: RunnablePlugin,
    /** Its handlers, as the instance dispatches to them (the manifest's events each class's RESPONDS_TO lists). */
    readonly handlers: readonly ActiveHandler[],
    /** The calls under way, by request id (what the `data` binding reads each call's fixture from). */
    private readonly pending: Map<string, Pending>,
  ) {
    this.calls = new HandlerCalls(runner, this.logs);
    this.logs.subscribe((entry) => {
      const call = entry.request_id === undefined ? undefined : this.pending.get(entry.request_id);
      (call?.lines ?? this.notices).push(entry);
    });
    runner.onNotice = (level, message) => this.logs.emit({ level, event: `plugin runtime: ${message}`, ...(level === 'error' ? { success: false } : {}) });
  }

  /**
   * Loads a package (the bytes of a .tar.gz or .whl) as an instance with the settings in `env`
   * would: every reason its install check gives, or the plugin loaded in a runner of its own.
   */
  static async load(
    bytes: Buffer,
    env: Readonly<Record<string, string | undefined>> = {},
  ): Promise<{ ok: true; plugin: LocalPlugin } | { ok: false; reasons: string[] }> {
    const settings = settingsOf(env);
    const bindings = new Bindings();
    const pending = new Map<string, Pending>();
    bindings.register(
      DATA_BINDING,
      fixtureBinding((call) => (call.requestId === undefined ? undefined : pending.get(call.requestId))),
    );
    // this.cache: as an instance's, kept in memory for the plugin's whole run (docs/plugins.md, "Cache").
    bindings.register(CACHE_BINDING, cacheBinding(memoryCacheStore()));
    bindings.register(SIGNATURE_BINDING, signatureBinding);
    const runner = new PluginRunner({ bindings, maxTotalMemoryBytes: settings.runnerBytes });
    const pkg = { name: '', format: 'tar.gz' as const, source: 'manifest' as const, bytes };
    const fail = async (reasons: string[]) => {
      await runner.close();
      return { ok: false as const, reasons };
    };
    const reasons = await checkPackage(runner, pkg, settings.limits);
    if (reasons.length > 0) return fail(reasons);
    const runnable = await runnablePlugin(pkg, settings.limits);
    if (runnable.kind === 'nothing-to-run') return fail([runnable.message]);
    if (runnable.kind === 'invalid') return fail(runnable.reasons);
    const loaded = await runner.load(runnable.plugin);
    if (!loaded.ok) return fail(loaded.reasons);
    const local = new LocalPlugin(runner, runnable.plugin, declaredHandlers(runnable.plugin, loaded.handlers, {}, settings.maxima), pending);
    return { ok: true, plugin: local };
  }

  get name(): string {
    return this.plugin.name;
  }

  /** The handler `ref` names: its class (`PlanCommittedHandler`) or `<entry>:<class>`; a LocalRefusal saying which there are. */
  handler(ref: string): ActiveHandler {
    const found = this.handlers.filter((h) => h.id === ref || h.className === ref);
    if (found.length === 1) return found[0]!;
    const known = this.handlers.map((h) => h.id).join(', ') || 'none';
    if (found.length > 1) throw new LocalRefusal(`several handlers are named ${ref}; name one as <entry>:<class> (${found.map((h) => h.id).join(', ')})`);
    throw new LocalRefusal(`${this.name} has no handler ${ref} in its manifest (its handlers: ${known})`);
  }

  /** The scheduled handler `ref` names (as handler() does), or the plugin's only one: a LocalRefusal saying which there are. */
  scheduledHandler(ref: string | undefined): ActiveHandler {
    const scheduled = this.handlers.filter((h) => h.schedule !== null);
    const known = scheduled.map((h) => `${h.id} (${h.schedule})`).join(', ') || 'none';
    if (ref !== undefined) {
      const handler = this.handler(ref);
      if (handler.schedule === null) throw new LocalRefusal(`${handler.id} has no schedule (the scheduled handlers of ${this.name}: ${known})`);
      return handler;
    }
    if (scheduled.length === 1) return scheduled[0]!;
    if (scheduled.length === 0) throw new LocalRefusal(`${this.name} has no scheduled handler (a ScheduledHandler with a SCHEDULE, its events listing CRON)`);
    throw new LocalRefusal(`${this.name} has several scheduled handlers; name one with --handler: ${known}`);
  }

  /**
   * The CRON event the instance gives the scheduled handler when it runs at `at` (ms): its latest
   * tick at or before then, previous_tick the schedule's tick before it (as if every tick ran).
   */
  tickEvent(handler: ActiveHandler, at: number): JsonObject {
    const schedule = handler.schedule!;
    const { latest } = ticksAround(schedule, at);
    const previous = ticksAround(schedule, latest - 1).latest;
    const event = createTickEvent({
      id: crypto.randomUUID(),
      tick: new Date(latest),
      previous_tick: new Date(previous),
      schedule,
      handler: handler.id,
      plugin: this.name,
    });
    return event as unknown as JsonObject;
  }

  /** The event name `handler` is given an event of type `type` as, if it is given it at all. */
  typeFor(handler: ActiveHandler, type: string): string | undefined {
    if (handler.events.includes(type)) return type;
    const twin = genericTwin(type);
    return twin !== undefined && handler.events.includes(twin) ? twin : undefined;
  }

  /** Every handler the instance gives an event of this type to, in the order it calls them, each with the name it is given the event as. */
  targets(type: string): Array<{ handler: ActiveHandler; type: string }> {
    const types = [type, genericTwin(type)].filter((t) => t !== undefined);
    return types.flatMap((t) => this.handlers.filter((h) => h.events.includes(t)).map((handler) => ({ handler, type: t })));
  }

  /** Why these secrets or grants could not be given to the plugin on an instance; [] when they could. */
  refusals(options: LocalCallOptions): string[] {
    const declared = this.plugin.manifest.secrets ?? [];
    const reasons = Object.keys(options.secrets ?? {})
      .filter((name) => !declared.includes(name))
      .map((name) => `secret ${name} is not declared in the manifest's secrets (${declared.join(', ') || 'none'})`);
    for (const grant of options.grants ?? []) {
      if (!isGrant(grant)) reasons.push(`${JSON.stringify(grant.slice(0, 64))} is not a grant; the grants are ${GRANT_NAMES.join(', ')}`);
    }
    // docs/plugins.md, "Reading the record": such a plugin is installed disabled without the grant.
    if (this.plugin.manifest.data?.scope === 'instance' && !(options.grants ?? []).includes('data:instance')) {
      reasons.push(`${this.name} would not run: its manifest asks data.scope instance (reading any patient), which needs the data:instance grant`);
    }
    return reasons;
  }

  /** Calls the handler with the event under the name `type`, as the instance calls it (LocalRefusal for what `refusals` finds). */
  async call(handler: ActiveHandler, type: string, event: JsonObject, options: LocalCallOptions = {}): Promise<LocalCall> {
    const refused = this.refusals(options);
    if (refused.length > 0) throw new LocalRefusal(refused.join('; '));
    const requestId = crypto.randomUUID();
    const call: Pending = { fixture: options.fixture ?? EMPTY_FIXTURE, grants: options.grants ?? [], reads: [], lines: [] };
    this.pending.set(requestId, call);
    try {
      const answer = await this.calls.call({ ...handler, secrets: { ...options.secrets } }, type, renamed(event, type), requestId);
      return {
        handler: handler.id,
        type,
        outcome: answer.ok ? 'ok' : answer.fault.kind,
        effects: answer.ok ? answer.effects : [],
        fault: answer.ok ? null : describeOutcome(answer.fault),
        logs: call.lines,
        reads: call.reads,
      };
    } finally {
      this.pending.delete(requestId);
    }
  }

  /** Ends its runner process. */
  close(): Promise<void> {
    return this.runner.close();
  }
}
