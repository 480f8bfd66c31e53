// The outbox (docs/plugins.md, "Delivery and guarantees"): the POST event of a change (a
// command's, a note's or a patient's) is a row of plugin_events written in the change's own
// transaction when an enabled handler listens, so it is delivered (runtime/delivery.ts) if and
// only if the change committed. An event chained deeper than the limit by plugin effects is not
// written (a warning says so).
import type { Kysely } from 'kysely';
import type { Database } from '../storage/schema.ts';
import { insertPluginEvent, type NewPluginEvent } from '../storage/plugin-events-repository.ts';
import { nowMicros } from '../lib/time.ts';
import type { LogBus } from '../logs/bus.ts';
import type { CommandChangeEvent, EventActor, NoteChangeEvent, PatientChangeEvent, PluginRuntime } from './types.ts';
import { commandSubject, newEventId, noteSubject, patientSubject, type ChangeSubject } from './events.ts';
import type { HandlerIndex } from './plugins.ts';

export interface OutboxOptions {
  logs: LogBus;
  /** Longest chain of events caused by effects: an effect's event at a deeper level is not delivered. */
  maxDepth: number;
}

export class Outbox implements Pick<PluginRuntime, 'post' | 'postNote' | 'postPatient'> {
  constructor(
    private readonly handlers: Pick<HandlerIndex, 'handlersOf'>,
    private readonly options: OutboxOptions,
  ) {}

  /** A command's POST event: the row its write inserts with the command (commands/transition.ts). */
  post(change: CommandChangeEvent, actor: EventActor): NewPluginEvent | null {
    return this.row(commandSubject(change, 'POST'), actor);
  }

  postNote(trx: Kysely<Database>, change: NoteChangeEvent, actor: EventActor): Promise<boolean> {
    return this.write(trx, noteSubject(change, 'POST'), actor);
  }

  postPatient(trx: Kysely<Database>, change: PatientChangeEvent, actor: EventActor): Promise<boolean> {
    return this.write(trx, patientSubject(change, 'POST'), actor);
  }

  /** Writes the POST event's outbox row, when a handler listens to one of its names; true when it wrote one. */
  private async write(trx: Kysely<Database>, subject: ChangeSubject, actor: EventActor): Promise<boolean> {
    const row = this.row(subject, actor);
    if (row !== null) await insertPluginEvent(trx, row);
    return row !== null;
  }

  /** The POST event's outbox row, when a handler listens to one of its names and the chain is not too deep. */
  private row(subject: ChangeSubject, actor: EventActor): NewPluginEvent | null {
    const types = subject.names;
    if (!types.some((type) => this.handlers.handlersOf(type).length > 0)) return null;
    const { type: targetType, id: targetId } = subject.target;
    if (actor.depth > this.options.maxDepth) {
      this.options.logs.emit({
        level: 'warning',
        event: `plugin runtime: ${types[0]} of ${targetType} ${targetId} not delivered: plugin effects chained ${actor.depth} events deep (limit ${this.options.maxDepth})`,
        request_id: actor.requestId,
        event_type: types[0],
      });
      return null;
    }
    const id = newEventId();
    return {
      event_id: id,
      target_type: targetType,
      target_id: targetId,
      event_type: types[0]!,
      payload: JSON.stringify(subject.event(id, types[0]!, actor)),
      depth: actor.depth,
      request_id: actor.requestId,
      created_at: nowMicros(),
      root_id: actor.rootId ?? id,
    };
  }
}
