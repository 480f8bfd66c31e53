// What the rest of the instance sees of the plugin runtime (docs/plugins.md, "Events"): the
// hooks a command write and an autocomplete search call, and the package check of install and
// update. Operations reach it through their Ctx (`ctx.runtime`), so commands/ never imports the
// runtime's code (the runtime's effects call the commands operations: the dependency runs one way).
import type { Kysely } from 'kysely';
import type { Database } from '../storage/schema.ts';
import type { CommandView } from '../commands/representation.ts';
import type { OptionDoc } from '../autocomplete/types.ts';
import type { PackageMetadata } from '../plugins/inspection/index.ts';

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

/** A package as install and update hand it to the runtime's check. */
export interface PackageToCheck {
  name: string;
  format: 'wheel' | 'tar.gz';
  /** Where the metadata came from: only a CHARTA_MANIFEST.json package has code Charta can run. */
  source: 'manifest' | 'pkg-info' | 'canvas-manifest';
  bytes: Buffer;
  /**
   * What the upload's inspection of these bytes found (plugins/package.ts): given, the runtime
   * reads the package's code without inspecting it again (plugins/inspection/, one module for both).
   */
  metadata?: PackageMetadata;
}

export interface PluginRuntime {
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
  /** The after-search event of an autocomplete field: handlers may reorder, filter or annotate the options. */
  afterSearch(search: { schemaKey: string; field: string; term: string; options: OptionDoc[] }, actor: EventActor): Promise<OptionDoc[]>;
  /** Every reason the package cannot run here ([] when it can); a Python package has none (it is accepted). */
  checkPackage(pkg: PackageToCheck): Promise<string[]>;
  /** Where the plugin stands in this process's runtime; undefined when it is not there (disabled, or not seen enabled yet). */
  status(name: string): PluginRuntimeStatus | undefined;
}

/** Where an enabled plugin stands on one process (docs/plugins.md, "Faults"). */
export type PluginRunState = 'loading' | 'running' | 'failing' | 'cannot-run';

/** What the plugin endpoints show of the runtime: the state, why, and when a failing load is tried again. */
export interface PluginRuntimeStatus {
  state: PluginRunState;
  /** failing or cannot-run: why. */
  detail: string | null;
  /** Milliseconds since the epoch when it entered this state. */
  since: number;
  /** failing: when its load is tried again (milliseconds since the epoch). */
  retryAt: number | null;
  /** Loads that failed in a row. */
  failedLoads: number;
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
