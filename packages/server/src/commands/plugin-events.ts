// What a command write needs of the plugin runtime (docs/plugins.md, "Events"): the port this
// feature declares and the runtime implements (runtime/types.ts PluginRuntime extends it), so
// commands/ imports nothing of the runtime: the runtime's effects call the commands operations,
// and the dependency runs one way (docs/architecture.md, "Code layout").
import type { Kysely } from 'kysely';
import type { Database } from '../storage/schema.ts';
import type { CommandView } from './representation.ts';

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
   * POST event of a change: its outbox row, written in the change's transaction when an enabled
   * handler listens; true when it wrote one (the operation signals `outbox-written` once the
   * transaction committed: docs/architecture.md, "Signals").
   */
  post(trx: Kysely<Database>, change: CommandChangeEvent, actor: EventActor): Promise<boolean>;
}

/** Who caused an event, and how deep in a chain of plugin effects it is. */
export interface EventActor {
  /** The staff key (a plugin's own key, `plugin:<name>`, when a plugin's effect caused it). */
  staffKey: string;
  requestId: string;
  /** 0 for a change a client asked for; n + 1 for a change made by an effect of an event at depth n. */
  depth: number;
  /** The write the change is made by, the same in every run of it (storage/transaction.ts `writeId`). */
  write?: number;
  /**
   * The root event of the chain a plugin's effect belongs to (its event's root); absent for a
   * client's change, whose own event is the root (docs/plugins.md, "Breadth limits").
   */
  rootId?: string;
}
