// The outbox (docs/plugins.md, "Delivery and guarantees"): the POST event of a change is a row of
// plugin_events written in the change's own transaction when an enabled handler listens, so it is
// delivered (runtime/delivery.ts) if and only if the change committed. An event chained deeper
// than the limit by plugin effects is not written (a warning says so).
import type { Kysely } from 'kysely';
import type { Database } from '../storage/schema.ts';
import { insertPluginEvent } from '../storage/plugin-events-repository.ts';
import { nowMicros } from '../lib/time.ts';
import type { LogBus } from '../logs/bus.ts';
import type { CommandChangeEvent, EventActor, PluginRuntime } from './types.ts';
import { commandEvent, commandEventNames, newEventId } from './events.ts';
import type { HandlerIndex } from './plugins.ts';

export interface OutboxOptions {
  logs: LogBus;
  /** Longest chain of events caused by effects: an effect's event at a deeper level is not delivered. */
  maxDepth: number;
}

export class Outbox implements Pick<PluginRuntime, 'post'> {
  constructor(
    private readonly handlers: Pick<HandlerIndex, 'handlersOf'>,
    private readonly options: OutboxOptions,
  ) {}

  async post(trx: Kysely<Database>, change: CommandChangeEvent, actor: EventActor): Promise<boolean> {
    const types = commandEventNames(change.command.schema_key, 'POST', change.action);
    if (!types.some((type) => this.handlers.handlersOf(type).length > 0)) return false;
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
      target_type: 'command',
      target_id: change.command.uuid,
      event_type: types[0],
      payload: JSON.stringify(commandEvent(id, types[0], change, actor)),
      depth: actor.depth,
      request_id: actor.requestId,
      created_at: nowMicros(),
      root_id: actor.rootId ?? id,
    });
    return true;
  }
}
