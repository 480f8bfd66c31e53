// Delivery of POST events from the outbox (docs/plugins.md, "Delivery and guarantees" and "Faults").
// A process claims waiting events (one at a time per target: a command, a note or a patient, so
// the events of one arrive in order; on PostgreSQL with FOR UPDATE SKIP LOCKED, so one process gets each), gives each event to
// every enabled handler of it not yet done with it (each plugin's handlers in turn, different
// plugins side by side), and applies their effects. Up to IN_FLIGHT events are under way at once,
// and each finished one makes room for the next: an event whose handler is slow holds up no other
// event and no other plugin. An event whose handlers are all done is deleted. A handler whose call crashed, timed out, ran out of
// memory or could not run, or whose effects failed in storage, is tried again after a back-off (the
// event keeps its place: the later events of its target wait); after the last attempt it becomes a
// dead letter. A claim lasts CLAIM_MICROS: if the process dies meanwhile, another delivers the
// event again. Redelivery keeps the event's id, so each effect's idempotency key (event, handler,
// event name, index) keeps it from being applied twice.
import type { Kysely } from 'kysely';
import type { Storage } from '../storage/db.ts';
import type { Database } from '../storage/schema.ts';
import {
  claimPluginEvents,
  deferPluginEvent,
  deletePluginEvents,
  deliveryTarget,
  releasePluginEvents,
  type ClaimedPluginEvent,
} from '../storage/plugin-events-repository.ts';
import { insertDeadLetter } from '../storage/plugin-dead-letters-repository.ts';
import { Problem } from '../http/problem.ts';
import { nowMicros } from '../lib/time.ts';
import { processOrigin } from '../lib/ids.ts';
import type { LogBus } from '../logs/bus.ts';
import type { Signals } from '../signals/bus.ts';
import type { JsonObject } from './sandbox/types.ts';
import { describeOutcome, type ActiveHandler, type CallFault, type HandlerCalls } from './calls.ts';
import { deliveredNames, eventPatient, renamed } from './events.ts';
import { applyEffects } from './effects.ts';
import type { PluginRuntime } from './types.ts';
import type { HandlerIndex } from './plugins.ts';

/** Events under way at once on one process. */
const IN_FLIGHT = 16;
const CLAIM_MICROS = 60 * 1_000_000;
/** The longest wait between two attempts, whatever the base and the attempt. */
const MAX_RETRY_DELAY_MS = 15 * 60 * 1000;

/** Faults worth another attempt: the same input may well succeed next time. The others are final. */
const RETRIED: ReadonlySet<CallFault['kind']> = new Set(['crashed', 'timeout', 'out-of-memory', 'unavailable']);

/** How many attempts an event gets per handler, and the wait before the second (docs/configuration.md). */
export interface RetryPolicy {
  attempts: number;
  baseMs: number;
}

/** The wait after the failed attempt number `attempt` (1 for the first): base × 4^(attempt − 1), capped. */
const retryDelayMs = (policy: RetryPolicy, attempt: number): number => Math.min(MAX_RETRY_DELAY_MS, policy.baseMs * 4 ** Math.max(0, attempt - 1));

/**
 * What delivery needs of the runtime, and no more (never the host:
 * docs/architecture.md, "Plugin runtime"): which handlers listen (the plugin registry), how a handler is called, and the port
 * the operations of effects call for their own changes' events.
 */
export interface DeliveryRuntime {
  handlers: HandlerIndex;
  calls: HandlerCalls;
  runtime: PluginRuntime;
}

/** A handler whose attempt failed in a way worth trying again. */
interface Failure {
  handler: ActiveHandler;
  /** The event name it failed on. */
  type: string;
  error: string;
}

/** What one attempt at one event came to. */
type Attempt =
  | { kind: 'done' }
  | { kind: 'failed'; done: string[]; failures: Failure[] }
  /** Not attempted: the process is stopping. */
  | { kind: 'skipped' };

export class Delivery {
  /** Names this process in claims. */
  readonly claimer = processOrigin();
  private running: Promise<void> | null = null;
  private again = false;
  private closed = false;
  /** Events under way (claimed, their handlers called). */
  private active = 0;
  /** Events whose attempt finished, not yet recorded. */
  private finished: Array<{ row: ClaimedPluginEvent; attempt: Attempt }> = [];
  /** An attempt that failed unexpectedly (its event stays claimed until the claim expires). */
  private broken: unknown = undefined;
  /** Resolves the wait of the delivery loop for the next attempt to finish. */
  private onFinish: (() => void) | null = null;
  /** The wake-up of the earliest event in back-off this process put back (the poll also finds it). */
  private timer: NodeJS.Timeout | undefined;
  private timerAt = Infinity;
  /** Events delivered by this process (for the bench and tests). */
  delivered = 0;

  constructor(
    private readonly storage: Storage,
    private readonly logs: LogBus,
    /** Handed to the operations effects call (they signal what they write). */
    private readonly signals: Signals,
    private readonly runtime: DeliveryRuntime,
    private readonly policy: RetryPolicy,
    /** The effects one chain of changes may apply (docs/plugins.md, "Breadth limits"). */
    private readonly effectsPerChange: number,
  ) {}

  /** Delivers what waits, now; a wake while it delivers makes it look again. */
  wake(): void {
    if (this.closed) return;
    if (this.running !== null) {
      this.again = true;
      // A delivery waiting for a slow event to finish looks for new events now.
      const waiting = this.onFinish;
      this.onFinish = null;
      waiting?.();
      return;
    }
    this.running = this.rounds();
  }

  /** Resolves when nothing is being delivered (for tests and shutdown). */
  async idle(): Promise<void> {
    while (this.running !== null) await this.running;
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    await this.idle();
  }

  /**
   * Claims what there is room for, records what finished, and waits for the next attempt to
   * finish, until nothing is under way and nothing more is waiting.
   */
  private async rounds(): Promise<void> {
    try {
      do {
        this.again = false;
        for (;;) {
          if (this.finished.length > 0) await this.record();
          if (this.broken !== undefined) {
            const err = this.broken;
            this.broken = undefined;
            throw err;
          }
          const claimed = this.closed || this.active >= IN_FLIGHT ? 0 : await this.claim(IN_FLIGHT - this.active);
          if (claimed > 0) continue;
          if (this.active === 0 && this.finished.length === 0) break;
          if (this.finished.length === 0) await new Promise<void>((resolve) => (this.onFinish = resolve));
        }
      } while (this.again && !this.closed);
    } catch (err) {
      if (!this.closed) {
        this.logs.emit({
          level: 'error',
          event: `plugin runtime: delivering events failed: ${messageOf(err)}`,
          success: false,
        });
      }
      // The next wake or poll tries again.
    } finally {
      // In the same job as the last look at `again`: a wake from now on starts a new round.
      this.running = null;
    }
  }

  /** Claims up to `room` events and starts each one's attempt; answers how many it claimed. */
  private async claim(room: number): Promise<number> {
    const now = nowMicros();
    const rows = await this.storage.transact((trx) => claimPluginEvents(trx, this.storage.engine, this.claimer, now, now + CLAIM_MICROS, room));
    // The events go to the plugins enabled now: this process may not have seen a plugin that
    // another process enabled a moment ago, so it looks before delivering.
    if (rows.length > 0) await this.runtime.handlers.sync();
    // At most one event per target is claimed (the claim's rule), so the events under way may be
    // delivered side by side; a target's next event waits until this one is deleted.
    for (const row of rows) {
      this.active++;
      void this.attempt(row).then(
        (attempt) => this.finish(() => this.finished.push({ row, attempt })),
        (err: unknown) => this.finish(() => (this.broken ??= err)),
      );
    }
    return rows.length;
  }

  private finish(note: () => void): void {
    this.active--;
    note();
    const wake = this.onFinish;
    this.onFinish = null;
    wake?.();
  }

  /** Records what the finished attempts came to, in one transaction, and names the dead letters written. */
  private async record(): Promise<void> {
    const settled = this.finished;
    this.finished = [];
    const failedAt = nowMicros();
    const letters = await this.storage.transact((trx) => this.recordIn(trx, settled, failedAt));
    for (const letter of letters) this.deadLettered(letter);
  }

  /**
   * Writes what the attempts came to, in one transaction: done events deleted, failed ones put
   * back with their back-off or, after their last attempt, turned into dead letters (one per
   * handler still failing), skipped ones released. Answers the dead letters written.
   */
  private async recordIn(trx: Kysely<Database>, settled: Array<{ row: ClaimedPluginEvent; attempt: Attempt }>, now: number) {
    const letters: Array<{ id: number; row: ClaimedPluginEvent; failure: Failure }> = [];
    const done = settled.filter((s) => s.attempt.kind === 'done').map((s) => s.row.id);
    if (done.length > 0) this.delivered += await deletePluginEvents(trx, done, this.claimer);
    const skipped = settled.filter((s) => s.attempt.kind === 'skipped').map((s) => s.row.id);
    if (skipped.length > 0) await releasePluginEvents(trx, skipped, this.claimer);
    for (const { row, attempt } of settled) {
      if (attempt.kind !== 'failed') continue;
      if (row.attempts < this.policy.attempts) {
        const delay = retryDelayMs(this.policy, row.attempts);
        await deferPluginEvent(trx, row.id, this.claimer, {
          nextAttemptAt: now + delay * 1000,
          doneHandlers: attempt.done,
          lastError: attempt.failures.map((f) => `${deliveryTarget(f.handler.plugin, f.handler.id)}: ${f.error}`).join('; '),
        });
        for (const f of attempt.failures) this.retrying(row, f, delay);
        this.wakeIn(delay);
        continue;
      }
      // Only the process that still holds the claim writes the dead letters.
      if ((await deletePluginEvents(trx, [row.id], this.claimer)) === 0) continue;
      const event = JSON.parse(row.payload) as JsonObject;
      for (const failure of attempt.failures) {
        const id = await insertDeadLetter(trx, {
          plugin_name: failure.handler.plugin,
          handler: failure.handler.id,
          // The event's own id (a replayed row's event_id is derived from it).
          event_id: String(event.id),
          event_type: row.event_type,
          target_type: row.target_type,
          target_id: row.target_id,
          payload: row.payload,
          depth: row.depth,
          request_id: row.request_id,
          root_id: row.root_id,
          attempts: row.attempts,
          last_error: failure.error,
          created_at: row.created_at,
          failed_at: now,
        });
        letters.push({ id, row, failure });
      }
    }
    return letters;
  }

  /** Gives one event to every enabled handler of it not done with it yet, and applies their effects. */
  private async attempt(row: ClaimedPluginEvent): Promise<Attempt> {
    if (this.closed) return { kind: 'skipped' };
    const event = JSON.parse(row.payload) as JsonObject;
    const done = new Set<string>(row.done_handlers === null ? [] : (JSON.parse(row.done_handlers) as string[]));
    const failures = new Map<string, Failure>();
    const reached = new Set<string>();
    // Each plugin's handlers in turn (a command kind's event, then the generic one; manifest order), the plugins side by side.
    const byPlugin = new Map<string, Array<{ handler: ActiveHandler; type: string }>>();
    for (const type of deliveredNames(row.event_type)) {
      for (const handler of this.runtime.handlers.handlersOf(type)) {
        const target = deliveryTarget(handler.plugin, handler.id);
        if (row.only_handler !== null && target !== row.only_handler) continue;
        reached.add(target);
        if (done.has(target)) continue;
        byPlugin.set(handler.plugin, [...(byPlugin.get(handler.plugin) ?? []), { handler, type }]);
      }
    }
    await Promise.all(
      [...byPlugin.values()].map(async (calls) => {
        for (const { handler, type } of calls) {
          const target = deliveryTarget(handler.plugin, handler.id);
          // Failed on the other event name in this attempt: all its names are tried again.
          if (failures.has(target)) continue;
          const error = await this.give(handler, type, event, row);
          if (error !== null) failures.set(target, { handler, type, error });
        }
      }),
    );
    if (row.only_handler !== null && reached.size === 0) this.notRunning(row);
    if (failures.size === 0) return { kind: 'done' };
    for (const target of reached) if (!failures.has(target)) done.add(target);
    return { kind: 'failed', done: [...done], failures: [...failures.values()] };
  }

  /** One call and its effects: null when the handler is done with the event, else why to try again. */
  private async give(handler: ActiveHandler, type: string, event: JsonObject, row: ClaimedPluginEvent): Promise<string | null> {
    const requestId = row.request_id ?? undefined;
    const answer = await this.runtime.calls.call(handler, type, renamed(event, type), requestId);
    // A fault is logged by the call; a final one (threw, invalid-result, no-such-handler) ends the handler's delivery.
    if (!answer.ok) return RETRIED.has(answer.fault.kind) ? describeOutcome(answer.fault) : null;
    if (answer.effects.length === 0) return null;
    try {
      await applyEffects(
        {
          storage: this.storage,
          logs: this.logs,
          signals: this.signals,
          runtime: this.runtime.runtime,
          calls: this.runtime.calls,
          effectsPerChange: this.effectsPerChange,
        },
        handler,
        {
          id: String(event.id),
          type,
          depth: row.depth,
          requestId: row.request_id ?? String(event.id),
          root: row.root_id ?? String(event.id),
          patient: eventPatient(event),
        },
        answer.effects,
      );
      return null;
    } catch (err) {
      // A problem is the effect's own (the same effects would fail again); anything else is storage failing.
      const what = `its effects could not be applied: ${messageOf(err)}`;
      this.runtime.calls.failure(handler, type, requestId, what, 'effect');
      return err instanceof Problem ? null : what;
    }
  }

  /** Another attempt will come: a warning line per handler still failing. */
  private retrying(row: ClaimedPluginEvent, failure: Failure, delayMs: number): void {
    const { handler, type } = failure;
    this.logs.emit({
      level: 'warning',
      event: `plugin ${handler.plugin}: handler ${handler.id} on ${type} is given the event again in ${seconds(delayMs)} (attempt ${row.attempts + 1} of ${this.policy.attempts})`,
      plugin: handler.plugin,
      handler: handler.id,
      event_type: type,
      ...(row.request_id === null ? {} : { request_id: row.request_id }),
    });
  }

  /** The last attempt failed: an error line naming the dead letter. */
  private deadLettered({ id, row, failure }: { id: number; row: ClaimedPluginEvent; failure: Failure }): void {
    this.runtime.calls.failure(
      failure.handler,
      failure.type,
      row.request_id ?? undefined,
      `still failed after ${row.attempts} attempt(s) (${failure.error}); the event is kept as dead letter ${id}`,
      'dead-letter',
    );
  }

  /** A replayed event whose one handler does not run here any more (its plugin disabled, or changed without it). */
  private notRunning(row: ClaimedPluginEvent): void {
    const [plugin] = row.only_handler!.split('/', 1);
    this.logs.emit({
      level: 'warning',
      event: `plugin runtime: the replayed ${row.event_type} of ${row.target_type} ${row.target_id} was not delivered: ${row.only_handler} is not running`,
      plugin,
      event_type: row.event_type,
      ...(row.request_id === null ? {} : { request_id: row.request_id }),
    });
  }

  /** Wakes the delivery when the back-off of an event this process put back ends. */
  private wakeIn(delayMs: number): void {
    const at = Date.now() + delayMs;
    if (this.closed || at >= this.timerAt) return;
    clearTimeout(this.timer);
    this.timerAt = at;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.timerAt = Infinity;
      this.wake();
    }, delayMs);
    this.timer.unref();
  }
}

const messageOf = (err: unknown): string => (err instanceof Error ? err.message : String(err));

const seconds = (ms: number): string => (ms < 1000 ? `${ms} ms` : `${Math.round(ms / 100) / 10} s`);
