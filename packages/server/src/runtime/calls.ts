// One handler call through the runner, and what it puts on the log stream (docs/plugins.md,
// "Faults"): the plugin's own lines (source "plugin"), a warning for lines over the cap, and one
// error line with `success: false` for every fault, naming the plugin, handler, event and request.
import type { LogBus } from '../logs/bus.ts';
import type { CallOutcome, CallResult, JsonObject } from './sandbox/types.ts';

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
}

/** A wait in the plugin's queue this long is worth saying in a fault line. */
const QUEUE_NOTE_MS = 100;

export interface CallRunner {
  call(name: string, entry: string, handler: string, event: JsonObject, secrets: Readonly<Record<string, string>>): Promise<CallResult>;
}

/** A call's outcome other than `ok`. */
export type CallFault = Exclude<CallOutcome, { kind: 'ok' }>;

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
  }
}

export class HandlerCalls {
  constructor(
    readonly runner: CallRunner,
    private readonly logs: LogBus,
  ) {}

  /** Calls the handler: its effects, or its fault (logged, with `consequence` after it: what the fault does). */
  async call(handler: ActiveHandler, type: string, event: JsonObject, requestId: string | undefined, consequence = ''): Promise<CallAnswer> {
    const tags = { plugin: handler.plugin, handler: handler.id, event_type: type, ...(requestId === undefined ? {} : { request_id: requestId }) };
    let result: CallResult;
    try {
      result = await this.runner.call(handler.plugin, handler.entry, handler.className, event, handler.secrets);
    } catch (err) {
      const fault: CallFault = { kind: 'unavailable', message: err instanceof Error ? err.message : String(err) };
      this.failure(handler, type, requestId, `${describeOutcome(fault)}${consequence}`, fault.kind);
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
    if (result.outcome.kind === 'ok') return { ok: true, effects: result.outcome.effects };
    const reloaded = result.reloaded ? '; its runtime was replaced by a fresh one' : '';
    // Time spent waiting for the plugin's earlier calls is not the call's own (docs/plugins.md, "Faults").
    const queued =
      result.queuedMs !== undefined && result.queuedMs >= QUEUE_NOTE_MS ? ` (after waiting ${result.queuedMs} ms for the plugin's earlier calls)` : '';
    this.failure(handler, type, requestId, `${describeOutcome(result.outcome)}${reloaded}${queued}${consequence}`, result.outcome.kind);
    return { ok: false, fault: result.outcome };
  }

  /** An error line with success: false about this handler and event, saying what failed. */
  failure(handler: Pick<ActiveHandler, 'plugin' | 'id'>, type: string, requestId: string | undefined, what: string, fault: FaultKind): void {
    this.logs.emit({
      level: 'error',
      event: `plugin ${handler.plugin}: handler ${handler.id} on ${type} ${what}`,
      plugin: handler.plugin,
      handler: handler.id,
      event_type: type,
      success: false,
      fault,
      ...(requestId === undefined ? {} : { request_id: requestId }),
    });
  }
}
