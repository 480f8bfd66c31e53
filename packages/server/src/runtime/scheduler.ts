// The scheduler of one process (docs/plugins.md, "Scheduled tasks"): every process runs one, and
// each tick of a schedule runs once across every process sharing the database. About once a
// second (and whenever the plugin registry changes: a plugin enabled, disabled, updated, deleted
// here or on another process), it looks at the scheduled handlers of the plugins this process
// runs, and for each the latest tick due (at or before now). A tick newer than the one it last saw
// is claimed by inserting its row in plugin_ticks (storage/plugin-ticks-repository.ts): the insert
// that wins the primary key runs it, every other process's inserts nothing. So a tick missed while
// every process was down runs once when one comes back (only the latest due: previous_tick is the
// last one that ran), and a plugin never runs a tick from before it was installed, updated or
// enabled (its updated_at). The run is a call like an event's (SurfaceCalls.tick: limits, log
// lines, faults, effects as a POST handler's); its outcome is recorded on the row. A run that
// fails is logged and is not tried again: the next tick is the next run. A handler whose run is
// still under way is not given another tick until it ends. A database that is away fails a claim
// or a record (an error line, not the plugin's fault; never thrown): the tick is claimed at a
// later pass, or its row keeps no outcome.
import crypto from 'node:crypto';
import { createTickEvent } from '@charta/plugin-sdk';
import type { Storage } from '../storage/db.ts';
import { claimTick, finishTick } from '../storage/plugin-ticks-repository.ts';
import { nowMicros } from '../lib/time.ts';
import { processOrigin } from '../lib/ids.ts';
import type { LogBus } from '../logs/bus.ts';
import type { JsonObject } from './sandbox/types.ts';
import type { ActiveHandler } from './calls.ts';
import { ticksAround } from './surface.ts';

/** How often each process looks for due ticks on its own (the registry's changes wake it sooner). */
export const SCHEDULER_MS = 1000;

export interface SchedulerOptions {
  storage: Storage;
  logs: LogBus;
  /** The scheduled handlers of the plugins this process runs (SurfaceCalls.scheduled). */
  scheduled(): ActiveHandler[];
  /** Runs one tick (SurfaceCalls.tick): null when it ran, else the fault (already logged). */
  run(handler: ActiveHandler, event: JsonObject, tickId: string, tick: string): Promise<string | null>;
  /** The time, ms since the epoch: Date.now, or a test's clock. */
  now(): number;
  /** How often it looks on its own. */
  periodMs: number;
}

const keyOf = (h: ActiveHandler) => `${h.plugin}\u0000${h.id}`;
const messageOf = (err: unknown) => (err instanceof Error ? err.message : String(err));

export class Scheduler {
  /** Names this process in the claims. */
  readonly claimer = processOrigin();
  /** Per handler (plugin, handler): the latest tick this process claimed or found not its own (ms). */
  private readonly seen = new Map<string, number>();
  /** The handlers whose tick is under way here, and every run under way. */
  private readonly running = new Set<string>();
  private readonly runs = new Set<Promise<void>>();
  private timer: NodeJS.Timeout | undefined;
  private closed = false;
  /** A claim failed (the database away): said once until one succeeds again. */
  private claimsFailing = false;

  constructor(private readonly options: SchedulerOptions) {}

  start(): void {
    this.timer = setInterval(() => this.wake(), this.options.periodMs);
    this.timer.unref();
    this.wake();
  }

  /** Looks for due ticks now (the timer, the registry's changes). */
  wake(): void {
    if (!this.closed) void this.pass();
  }

  /** Stops claiming ticks, and waits for the runs under way to end. */
  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.timer);
    await this.idle();
  }

  /** Resolves once no run is under way (tests). */
  async idle(): Promise<void> {
    while (this.runs.size > 0) await Promise.allSettled([...this.runs]);
  }

  /** One look: each scheduled handler's latest due tick claimed and run, unless seen already; resolves when the runs it started end. */
  pass(): Promise<void> {
    const now = this.options.now();
    const started: Array<Promise<void>> = [];
    for (const handler of this.options.scheduled()) {
      if (this.closed || handler.schedule === null) break;
      const key = keyOf(handler);
      if (this.running.has(key)) continue;
      let latest: number;
      try {
        latest = ticksAround(handler.schedule, now).latest;
      } catch {
        continue; // parsed at install and at load: cannot happen, and no tick is due for it
      }
      if ((this.seen.get(key) ?? -Infinity) >= latest) continue;
      this.running.add(key);
      const run = this.claimAndRun(handler, key, latest).finally(() => {
        this.running.delete(key);
        this.runs.delete(run);
      });
      this.runs.add(run);
      started.push(run);
    }
    return Promise.all(started).then(() => undefined);
  }

  private async claimAndRun(handler: ActiveHandler, key: string, tickMs: number): Promise<void> {
    const claim = { plugin: handler.plugin, handler: handler.id, tick: tickMs * 1000, claimer: this.claimer };
    const tick = new Date(tickMs).toISOString();
    const tags = { plugin: handler.plugin, handler: handler.id, event_type: 'CRON', tick };
    let claimed: { previous: number | null } | undefined;
    try {
      claimed = await this.options.storage.transact((trx) => claimTick(trx, { ...claim, claimedAt: nowMicros() }));
    } catch (err) {
      // Not seen: the next pass claims it (or a later one) once the database answers.
      if (!this.claimsFailing) {
        this.claimsFailing = true;
        this.options.logs.emit({
          level: 'error',
          event: `plugin runtime: could not claim the tick ${tick} of ${handler.plugin} ${handler.id} (tried again every pass until the database answers): ${messageOf(err)}`,
          ...tags,
        });
      }
      return;
    }
    this.claimsFailing = false;
    this.seen.set(key, tickMs);
    if (claimed === undefined || this.closed) return; // another process's, or not this plugin's to run
    const tickId = crypto.randomUUID();
    const previous = claimed.previous === null ? null : new Date(claimed.previous / 1000).toISOString();
    const event = createTickEvent({ id: tickId, tick, previous_tick: previous, schedule: handler.schedule!, handler: handler.id, plugin: handler.plugin });
    let outcome: string;
    try {
      outcome = (await this.options.run(handler, event as unknown as JsonObject, tickId, tick)) ?? 'ok';
    } catch (err) {
      outcome = 'crashed';
      this.options.logs.emit({
        level: 'error',
        event: `plugin ${handler.plugin}: handler ${handler.id} on CRON could not run the tick ${tick}: ${messageOf(err)}`,
        ...tags,
        request_id: tickId,
        success: false,
        fault: 'crashed',
      });
    }
    if (outcome === 'ok') {
      this.options.logs.emit({
        level: 'info',
        event: `plugin ${handler.plugin}: handler ${handler.id} ran the tick ${tick} of ${handler.schedule}`,
        ...tags,
        request_id: tickId,
      });
    }
    try {
      await this.options.storage.transact((trx) => finishTick(trx, claim, outcome, nowMicros()));
    } catch (err) {
      this.options.logs.emit({
        level: 'error',
        event: `plugin runtime: the outcome (${outcome}) of the tick ${tick} of ${handler.plugin} ${handler.id} could not be recorded (its row keeps none): ${messageOf(err)}`,
        ...tags,
        request_id: tickId,
      });
    }
  }
}
