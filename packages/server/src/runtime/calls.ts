// One handler call through the runner, and what it puts on the log stream (docs/plugins.md,
// "Faults"): the plugin's own lines (source "plugin"), a warning for lines over the cap, and one
// error line with `success: false` for every fault, naming the plugin, handler, event and request.
import type { LogBus } from '../logs/bus.ts';
import type { CallOutcome, CallResult, JsonObject } from './sandbox/types.ts';
import type { DataResource, DataScope } from '@charta/api/constants';
import { TICK_EVENT } from '@charta/api/constants';
import { isPreEvent } from './events.ts';
import type { DeclaredRoute } from './surface.ts';

/** A handler of an enabled plugin, as the host dispatches to it. */
export interface ActiveHandler {
  plugin: string;
  /** The bundled module, relative to the manifest (`my_plugin/handlers.js`). */
  entry: string;
  /** The exported handler class. */
  className: string;
  /** `<entry>:<class>`, as log lines name it. */
  id: string;
  /** The events it is given: the manifest's list, each also in the class's RESPONDS_TO. */
  events: string[];
  secrets: Readonly<Record<string, string>>;
  /** What a PRE event's change does when this handler cannot answer (docs/plugin-manifest.md, "Handlers"). */
  onFailure: 'allow' | 'refuse';
  /** The most effects one of its answers may hold (docs/plugins.md, "Breadth limits"). */
  effectsPerAnswer: number;
  /** What its calls may read of the record (docs/plugins.md, "Reading the record"). */
  data: DataAccess;
  /** The routes it serves (a RouteHandler's ROUTES) and its schedule (a ScheduledHandler's SCHEDULE): docs/plugins.md, "HTTP routes", "Scheduled tasks". */
  routes: DeclaredRoute[];
  schedule: string | null;
}

/** What a plugin's calls may read (docs/plugins.md, "Reading the record"): the manifest's resources and scope, and each call's budget. */
export interface DataAccess {
  read: readonly DataResource[];
  /** As the manifest asks; `instance` reaches past the event's patient only while the plugin has the `data:instance` grant. */
  scope: DataScope;
  /** At most this many reads, and rows in all, per call (the manifest's, within the instance's maximums). */
  reads: number;
  rows: number;
}

/** A handler call as its binding requests see it (runtime/bindings.ts): whose, on what event, and what it has read so far. */
export interface CallContext {
  handler: ActiveHandler;
  type: string;
  event: JsonObject;
  requestId: string | undefined;
  /** PRE: the change is not written yet, and the reads' audit rows are not waited for (docs/plugins.md, "Reading the record"). */
  pre: boolean;
  /**
   * What its reads met: the refusal of the budget, if one came; the database found unavailable by
   * a read, if it was (a call that then throws is retried, or its PRE change answers 503).
   */
  reads: { count: number; rows: number; overBudget: string | null; databaseUnavailable: boolean };
}

/** A wait in the plugin's queue this long is worth saying in a fault line. */
const QUEUE_NOTE_MS = 100;

export interface CallRunner {
  call(name: string, entry: string, handler: string, event: JsonObject, secrets: Readonly<Record<string, string>>, context?: CallContext): Promise<CallResult>;
}

/**
 * A call's outcome other than `ok`; `budget-exceeded`: it threw after one of its reads was
 * refused for its budget (docs/plugins.md, "Reading the record").
 */
export type CallFault = Exclude<CallOutcome, { kind: 'ok' }> | { kind: 'budget-exceeded'; message: string } | DatabaseFault;

/** A call that threw after one of its reads found the database unavailable: not the plugin's fault, retried like `unavailable`. */
export interface DatabaseFault {
  kind: 'unavailable';
  message: string;
  database: true;
}

/**
 * What failed, as a failure line's `fault` says (docs/plugins.md, "Faults"): a call's outcome, an
 * effect not applied or refused, a PRE or after-search handler skipped for want of time, an event
 * kept as a dead letter, a plugin that could not be loaded.
 */
export type FaultKind = CallFault['kind'] | 'effect' | 'skipped' | 'dead-letter' | 'load';

/** What a call answered: its effects, or the fault (already logged). */
export type CallAnswer = { ok: true; effects: JsonObject[] } | { ok: false; fault: CallFault };

export function describeOutcome(outcome: CallFault): string {
  switch (outcome.kind) {
    case 'timeout':
      return outcome.ended
        ? `ran longer than its ${outcome.deadlineMs} ms deadline inside a built-in that never checks it; its isolate was ended and is loaded again`
        : `ran longer than its ${outcome.deadlineMs} ms deadline`;
    case 'out-of-memory':
      return `ran out of memory (limit ${Math.round(outcome.memoryBytes / 1024 / 1024)} MiB)`;
    case 'threw':
      return `threw ${outcome.message}`;
    case 'invalid-result':
      return `returned an invalid result: ${outcome.message}`;
    case 'no-such-handler':
      return `is not exported by the plugin (${outcome.handler})`;
    case 'crashed':
      return `crashed the sandbox: ${outcome.message}`;
    case 'unavailable':
      return `could not run: ${outcome.message}`;
    case 'budget-exceeded':
      return `went over its read budget: ${outcome.message}`;
  }
}

/** A call's outcome as the metrics count it: `ok` or its fault's kind (a fixed set: docs/operations.md, "Monitoring"). */
export type CallOutcomeKind = 'ok' | CallFault['kind'];

/** Told of every call once it ended, with how long it took as the host saw it (seconds, its wait in the plugin's queue included). */
export type CallObserver = (handler: ActiveHandler, outcome: CallOutcomeKind, seconds: number) => void;

export class HandlerCalls {
  /** The metrics' observer (app.ts), when metrics are on. */
  onCall: CallObserver | undefined;

  constructor(
    readonly runner: CallRunner,
    private readonly logs: LogBus,
  ) {}

  /** Calls the handler: its effects, or its fault (logged, with `consequence` after it: what the fault does). */
  async call(handler: ActiveHandler, type: string, event: JsonObject, requestId: string | undefined, consequence = ''): Promise<CallAnswer> {
    const tick = tickOf(type, event);
    const tags = {
      plugin: handler.plugin,
      handler: handler.id,
      event_type: type,
      ...(requestId === undefined ? {} : { request_id: requestId }),
      ...(tick === undefined ? {} : { tick }),
    };
    const context: CallContext = {
      handler,
      type,
      event,
      requestId,
      pre: isPreEvent(type),
      reads: { count: 0, rows: 0, overBudget: null, databaseUnavailable: false },
    };
    const started = performance.now();
    const record = (outcome: CallOutcomeKind) => this.onCall?.(handler, outcome, (performance.now() - started) / 1000);
    let result: CallResult;
    try {
      result = await this.runner.call(handler.plugin, handler.entry, handler.className, event, handler.secrets, context);
    } catch (err) {
      const fault: CallFault = { kind: 'unavailable', message: err instanceof Error ? err.message : String(err) };
      record(fault.kind);
      this.failure(handler, type, requestId, `${describeOutcome(fault)}${consequence}`, fault.kind, tick);
      return { ok: false, fault };
    }
    for (const line of result.logs) this.logs.emit({ level: line.level, event: line.message, source: 'plugin', ...tags });
    if (result.droppedLogLines > 0) {
      this.logs.emit({
        level: 'warning',
        event: `${result.droppedLogLines} log line(s) of this call were dropped (over the per-call limit or malformed)`,
        ...tags,
      });
    }
    if (result.outcome.kind === 'ok') {
      record('ok');
      return { ok: true, effects: result.outcome.effects };
    }
    // A read refused for the budget that the handler did not catch ends the call as over budget, logged like a timeout.
    // So does one after a read found the database unavailable: that is retried, not the plugin's fault.
    const outcome: CallFault =
      result.outcome.kind !== 'threw'
        ? result.outcome
        : context.reads.overBudget !== null
          ? { kind: 'budget-exceeded', message: context.reads.overBudget }
          : context.reads.databaseUnavailable
            ? { kind: 'unavailable', message: `a read found the database unavailable (${result.outcome.message})`, database: true }
            : result.outcome;
    record(outcome.kind);
    const reloaded = result.reloaded ? '; its runtime was replaced by a fresh one' : '';
    // Time spent waiting for the plugin's earlier calls is not the call's own (docs/plugins.md, "Faults").
    const queued =
      result.queuedMs !== undefined && result.queuedMs >= QUEUE_NOTE_MS ? ` (after waiting ${result.queuedMs} ms for the plugin's earlier calls)` : '';
    this.failure(handler, type, requestId, `${describeOutcome(outcome)}${reloaded}${queued}${consequence}`, outcome.kind, tick);
    return { ok: false, fault: outcome };
  }

  /** An error line with success: false about this handler and event, saying what failed (and the tick, for a scheduled handler's run). */
  failure(handler: Pick<ActiveHandler, 'plugin' | 'id'>, type: string, requestId: string | undefined, what: string, fault: FaultKind, tick?: string): void {
    this.logs.emit({
      level: 'error',
      event: `plugin ${handler.plugin}: handler ${handler.id} on ${type} ${what}`,
      plugin: handler.plugin,
      handler: handler.id,
      event_type: type,
      success: false,
      fault,
      ...(requestId === undefined ? {} : { request_id: requestId }),
      ...(tick === undefined ? {} : { tick }),
    });
  }
}

/** The tick a CRON event runs (its lines carry it: docs/plugins.md, "Scheduled tasks"); undefined for other events. */
function tickOf(type: string, event: JsonObject): string | undefined {
  if (type !== TICK_EVENT) return undefined;
  const context = event.context;
  const tick = typeof context === 'object' && context !== null && !Array.isArray(context) ? context.tick : undefined;
  return typeof tick === 'string' ? tick : undefined;
}
