// What a command write needs of the plugin runtime (docs/plugins.md, "Events"): the port this
// feature declares and the runtime implements (runtime/types.ts PluginRuntime extends it), so
// commands/ imports nothing of the runtime: the runtime's effects call the commands operations,
// and the dependency runs one way (docs/architecture.md, "Code layout").
import type { Kysely } from 'kysely';
import type { Database } from '../storage/schema.ts';
import type { NewPluginEvent } from '../storage/plugin-events-repository.ts';
import type { EventActor } from '../lib/event-actor.ts';
import type { CommandView } from './representation.ts';

export type { EventActor } from '../lib/event-actor.ts';

/** The lifecycle actions of a command, as event names spell them (`PLAN_COMMAND__PRE_COMMIT`). */
export type CommandAction = 'ORIGINATE' | 'UPDATE' | 'COMMIT' | 'DELETE' | 'ENTER_IN_ERROR';

/** One command change, as its events describe it. */
export interface CommandChangeEvent {
  action: CommandAction;
  /** The command as the API returns it: after the change (before it, for a delete). */
  command: CommandView;
  /** The command before the change; null when it is being originated. */
  previous: CommandView | null;
}

/** The PRE and POST events of a command write (the sequencer, transition.ts, calls them). */
export interface CommandEventHooks {
  /**
   * PRE event of a change, inside its write transaction before anything is written: runs every
   * enabled handler of the event under a total time budget. Throws the 400 problem
   * `plugin_validation_failed` when a handler returns validation errors; a handler's crash or
   * timeout is logged and the change goes ahead.
   */
  pre(trx: Kysely<Database>, change: CommandChangeEvent, actor: EventActor): Promise<void>;
  /**
   * POST event of a change: its outbox row, for the write to insert in the change's transaction
   * (with the command, in one statement on PostgreSQL), when an enabled handler listens; null when
   * none does or the event is chained too deep (the runtime logs why). The operation signals
   * `outbox-written` once the transaction committed (docs/architecture.md, "Signals").
   */
  post(change: CommandChangeEvent, actor: EventActor): NewPluginEvent | null;
}
