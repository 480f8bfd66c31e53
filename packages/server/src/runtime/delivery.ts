// Delivery of POST events from the outbox (docs/plugins.md, "Delivery and guarantees"). A process
// claims a batch of waiting events (one at a time per command, so a command's events arrive in
// order; on PostgreSQL with FOR UPDATE SKIP LOCKED, so one process gets each), gives each event to
// every enabled handler of it, applies their effects, and deletes the event. A claim lasts
// CLAIM_MICROS: if the process dies meanwhile, another delivers the event again, and each effect's
// idempotency key (event, handler, index) keeps it from being applied twice.
import crypto from 'node:crypto';
import os from 'node:os';
import type { Storage } from '../storage/db.ts';
import { claimPluginEvents, deletePluginEvents } from '../storage/plugin-events-repository.ts';
type ClaimedEvent = Awaited<ReturnType<typeof claimPluginEvents>>[number];
import { nowMicros } from '../lib/time.ts';
import type { LogBus } from '../logs/bus.ts';
import type { JsonObject } from './sandbox/types.ts';
import type { ActiveHandler, HandlerCalls } from './calls.ts';
import { eventPatient, renamed } from './events.ts';
import { applyEffects } from './effects.ts';
import type { PluginRuntime } from './types.ts';

const BATCH = 16;
const CLAIM_MICROS = 60 * 1_000_000;

interface Dispatcher {
  readonly calls: HandlerCalls;
  handlersOf(type: string): ActiveHandler[];
  /** Brings the loaded plugins in step with the database. */
  sync(): Promise<void>;
}

export class Delivery {
  /** Names this process in claims. */
  readonly claimer = `${os.hostname()}:${process.pid}:${crypto.randomBytes(4).toString('hex')}`;
  private running: Promise<void> | null = null;
  private again = false;
  private closed = false;
  /** Events delivered by this process (for the bench and tests). */
  delivered = 0;

  constructor(
    private readonly storage: Storage,
    private readonly logs: LogBus,
    private readonly host: Dispatcher & PluginRuntime,
  ) {}

  /** Delivers what waits, now; a wake during a round makes another round. */
  wake(): void {
    if (this.closed) return;
    if (this.running !== null) {
      this.again = true;
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
    await this.idle();
  }

  private async rounds(): Promise<void> {
    try {
      do {
        this.again = false;
        while (!this.closed && (await this.round()) > 0);
      } while (this.again && !this.closed);
    } catch (err) {
      if (!this.closed) {
        this.logs.emit({
          level: 'error',
          event: `plugin runtime: delivering events failed: ${err instanceof Error ? err.message : String(err)}`,
          success: false,
        });
      }
      // The next wake or poll tries again.
    } finally {
      // In the same job as the last look at `again`: a wake from now on starts a new round.
      this.running = null;
    }
  }

  private async round(): Promise<number> {
    const now = nowMicros();
    const rows = await this.storage.transact((trx) => claimPluginEvents(trx, this.storage.engine, this.claimer, now, now + CLAIM_MICROS, BATCH));
    // The events go to the plugins enabled now: this process may not have seen a plugin that
    // another process enabled a moment ago, so it looks before delivering.
    if (rows.length > 0) await this.host.sync();
    // A batch holds at most one event per command (the claim's rule), so its events may be
    // delivered side by side; a command's next event waits until this one is deleted.
    const outcomes = await Promise.allSettled(rows.map((row) => this.deliver(row)));
    const done = rows.filter((_, i) => outcomes[i]!.status === 'fulfilled').map((row) => row.id);
    if (done.length > 0) await this.storage.transact((trx) => deletePluginEvents(trx, done, this.claimer));
    this.delivered += done.length;
    const failed = outcomes.find((o) => o.status === 'rejected');
    if (failed !== undefined) throw failed.reason;
    return rows.length;
  }

  /** Gives one event to every enabled handler of it and applies their effects. */
  private async deliver(row: ClaimedEvent): Promise<void> {
    if (this.closed) return;
    const event = JSON.parse(row.payload) as JsonObject;
    const generic = row.event_type.replace(/^[A-Z_]+?_COMMAND__(PRE|POST)_/, '$1_COMMAND_');
    for (const type of [row.event_type, generic]) {
      for (const handler of this.host.handlersOf(type)) {
        const answer = await this.host.calls.call(handler, type, renamed(event, type), row.request_id ?? undefined);
        const effects = answer.ok ? answer.effects : [];
        if (effects.length > 0) {
          await applyEffects(
            { storage: this.storage, logs: this.logs, runtime: this.host, calls: this.host.calls },
            handler,
            {
              id: String(event.id),
              type,
              depth: row.depth,
              requestId: row.request_id ?? String(event.id),
              root: row.root_id ?? String(event.id),
              patient: eventPatient(event),
            },
            effects,
          );
        }
      }
    }
  }
}
