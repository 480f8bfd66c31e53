// What the rest of the instance sees of the plugin runtime (docs/plugins.md, "Events"): the
// hooks a command, note or patient write calls (the ports commands/, notes/ and patients/
// plugin-events.ts declare), an autocomplete search's, and the package check of install and update. Operations reach it through their Ctx
// (`ctx.runtime`), so no feature imports the runtime's code (the runtime's effects call the
// commands operations: the dependency runs one way).
import type { CommandEventHooks } from '../commands/plugin-events.ts';
import type { NoteEventHooks } from '../notes/plugin-events.ts';
import type { PatientEventHooks } from '../patients/plugin-events.ts';
import type { EventActor } from '../lib/event-actor.ts';
import type { OptionDoc } from '../autocomplete/types.ts';
import type { PackageMetadata } from '../inspection/index.ts';
import type { PluginSurface } from './surface.ts';
import type { SurfaceCalls } from './surface-calls.ts';

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

/** What the install check found: every reason the package cannot run ([] when it can), and the routes and schedules it declares. */
export interface PackageCheck {
  reasons: string[];
  surface: PluginSurface;
}

export interface PluginRuntime extends CommandEventHooks, NoteEventHooks, PatientEventHooks {
  /** The after-search event of an autocomplete field: handlers may reorder, filter or annotate the options. */
  afterSearch(search: { schemaKey: string; field: string; term: string; options: OptionDoc[] }, actor: EventActor): Promise<OptionDoc[]>;
  /** Every reason the package cannot run here ([] when it can; a Python package has none: it is accepted), and what it serves and schedules. */
  checkPackage(pkg: PackageToCheck): Promise<PackageCheck>;
  /** Where the plugin stands in this process's runtime; undefined when it is not there (disabled, or not seen enabled yet). */
  status(name: string): PluginRuntimeStatus | undefined;
  /** The plugins' HTTP routes (docs/plugins.md, "HTTP routes"): the process's host has them, the port effects call has not. */
  surface?: Pick<SurfaceCalls, 'routesOf' | 'route'>;
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

export type { CommandAction, CommandChangeEvent } from '../commands/plugin-events.ts';
export type { NoteChangeEvent } from '../notes/plugin-events.ts';
export type { PatientChangeEvent } from '../patients/plugin-events.ts';
export type { EventActor } from '../lib/event-actor.ts';
