// From a plugin package to what the runner can load (docs/plugins.md, "The install check"): the
// manifest, the text of each handler entry module and the sandbox limits, or every reason the
// package cannot run here. A package whose metadata is PKG-INFO or CANVAS_MANIFEST.json (a
// Python package of the original tool) is no error: it is accepted and has nothing Charta can run.
import { isEventName } from '@charta/plugin-sdk';
import type { ChartaManifest } from '@charta/plugin-sdk/manifest';
import { inspectPackage, nothingToRunReason, readPackageFiles } from '../inspection/index.ts';
import { pathSegments } from '../inspection/entries.ts';
import type { PluginModule, RunnerHandler } from './runner/protocol.ts';
import type { ActiveHandler, DataAccess } from './calls.ts';
import { effectsPerAnswer } from './effect-limits.ts';
import { handlerSurface } from './surface.ts';
import { DEFAULT_SANDBOX_LIMITS, type SandboxLimits } from './sandbox/types.ts';
import type { PackageToCheck } from './types.ts';

const MiB = 1024 * 1024;

/** The most text of handler modules one plugin may hold, all entries together. */
export const MAX_SOURCE_BYTES = 5 * MiB;

/**
 * The instance's maximums for what a manifest may ask (CHARTA_PLUGIN_MAX_MEMORY_MB,
 * CHARTA_PLUGIN_MAX_TIMEOUT_MS, CHARTA_PLUGIN_MAX_EFFECTS_PER_ANSWER).
 */
export interface InstanceLimits {
  maxMemoryMb: number;
  maxTimeoutMs: number;
  maxEffectsPerAnswer: number;
}

export interface RunnablePlugin {
  name: string;
  manifest: ChartaManifest;
  /** One per distinct handler entry, in the manifest's order. */
  modules: PluginModule[];
  limits: Partial<SandboxLimits>;
}

export type Runnability =
  | { kind: 'runnable'; plugin: RunnablePlugin }
  /** A Python package of the original tool: accepted, but nothing in it can run here. */
  | { kind: 'nothing-to-run'; name: string; message: string }
  /** `partial`: the modules that could be read, under limits within the maximums, for a load that finds further reasons. */
  | { kind: 'invalid'; reasons: string[]; partial: RunnablePlugin | null };

/** What a manifest handler names: its entry module (relative to the manifest) and the export. */
export function handlerTarget(handler: ChartaManifest['components']['handlers'][number]): { entry?: string; name?: string } {
  let entry = handler.entry;
  let name = handler.class;
  const colon = name?.lastIndexOf(':') ?? -1;
  if (name !== undefined && colon >= 0) {
    // `module:Name`, as the original tool wrote it: the module is the entry when none is given.
    entry ??= name.slice(0, colon);
    name = name.slice(colon + 1);
  }
  return { entry: entry === undefined ? undefined : pathSegments(entry).join('/'), name };
}

function limitsOf(manifest: ChartaManifest, instance: InstanceLimits, reasons: string[]): Partial<SandboxLimits> {
  const asked = manifest.limits ?? {};
  const maxMemoryBytes = instance.maxMemoryMb * MiB;
  let memoryBytes = Math.min(DEFAULT_SANDBOX_LIMITS.memoryBytes, maxMemoryBytes);
  let deadlineMs = Math.min(DEFAULT_SANDBOX_LIMITS.deadlineMs, instance.maxTimeoutMs);
  if (asked.memory_mb !== undefined) {
    if (asked.memory_mb > instance.maxMemoryMb) {
      reasons.push(`CHARTA_MANIFEST.json: /limits/memory_mb ${asked.memory_mb} is over this instance's maximum of ${instance.maxMemoryMb}`);
    } else memoryBytes = asked.memory_mb * MiB;
  }
  if (asked.timeout_ms !== undefined) {
    if (asked.timeout_ms > instance.maxTimeoutMs) {
      reasons.push(`CHARTA_MANIFEST.json: /limits/timeout_ms ${asked.timeout_ms} is over this instance's maximum of ${instance.maxTimeoutMs}`);
    } else deadlineMs = asked.timeout_ms;
  }
  // Not a sandbox limit: effects.ts applies it to each answer (docs/plugins.md, "Breadth limits").
  if (asked.effects_per_answer !== undefined && asked.effects_per_answer > instance.maxEffectsPerAnswer) {
    reasons.push(
      `CHARTA_MANIFEST.json: /limits/effects_per_answer ${asked.effects_per_answer} is over this instance's maximum of ${instance.maxEffectsPerAnswer}`,
    );
  }
  return { memoryBytes, deadlineMs };
}

export async function runnablePlugin(pkg: PackageToCheck, instance: InstanceLimits): Promise<Runnability> {
  // An upload was inspected already (plugins/package.ts): its metadata is these bytes'.
  const inspection = pkg.metadata !== undefined ? { ok: true as const, metadata: pkg.metadata } : await inspectPackage(pkg.bytes);
  if (!inspection.ok) return { kind: 'invalid', reasons: inspection.reasons, partial: null };
  const { metadata } = inspection;
  if (metadata.source !== 'manifest' || metadata.manifest === undefined) {
    return {
      kind: 'nothing-to-run',
      name: metadata.name,
      message: `plugin ${metadata.name} is ${nothingToRunReason(metadata.source)}`,
    };
  }
  const manifest = metadata.manifest;
  const reasons: string[] = [];
  const entries: string[] = [];
  manifest.components.handlers.forEach((handler, i) => {
    const where = `CHARTA_MANIFEST.json: /components/handlers/${i}`;
    const { entry, name } = handlerTarget(handler);
    if (entry === undefined) reasons.push(`${where} has no entry: name the bundled module that exports the handler`);
    else if (entry.endsWith('.cjs')) reasons.push(`${where}/entry "${entry}" is a CommonJS module; the sandbox runs ES modules (.js or .mjs)`);
    else if (!entries.includes(entry)) entries.push(entry);
    if (name === undefined) reasons.push(`${where} has no class: name the handler class its entry exports`);
    handler.events.forEach((event, j) => {
      if (!isEventName(event)) reasons.push(`${where}/events/${j} "${event}" is not an event name Charta knows`);
    });
  });
  const limits = limitsOf(manifest, instance, reasons);

  const root = pathSegments(metadata.root);
  const pathOf = (entry: string) => [...root, ...pathSegments(entry)].join('/');
  const read = await readPackageFiles(pkg.bytes, new Set(entries.map(pathOf)), MAX_SOURCE_BYTES);
  const modules: PluginModule[] = [];
  if (!read.ok) reasons.push(...read.reasons);
  else {
    if (read.overBudget.length) {
      reasons.push(`the handler modules are larger than ${MAX_SOURCE_BYTES / MiB} MiB in all (the limit)`);
    }
    const decoder = new TextDecoder('utf-8', { fatal: true });
    for (const entry of entries) {
      const bytes = read.files.get(pathOf(entry));
      if (bytes === undefined) {
        if (!read.overBudget.includes(pathOf(entry))) reasons.push(`entry "${entry}" is not a file in the package`);
        continue;
      }
      try {
        modules.push({ entry, source: decoder.decode(bytes) });
      } catch {
        reasons.push(`entry "${entry}" is not UTF-8 text`);
      }
    }
  }
  const plugin: RunnablePlugin = { name: metadata.name, manifest, modules, limits };
  if (reasons.length) return { kind: 'invalid', reasons, partial: modules.length ? plugin : null };
  return { kind: 'runnable', plugin };
}

/**
 * The instance's maximums for what a handler's manifest asks of each call: effects per answer
 * (CHARTA_PLUGIN_MAX_EFFECTS_PER_ANSWER), reads and rows (CHARTA_PLUGIN_DATA_READS_PER_CALL,
 * CHARTA_PLUGIN_DATA_ROWS_PER_CALL).
 */
export interface HandlerMaximums {
  maxEffectsPerAnswer: number;
  maxDataReads: number;
  maxDataRows: number;
}

/**
 * The manifest's handlers as the host dispatches to them: with `loaded` (the classes the runner
 * found), those it found, for the events their RESPONDS_TO lists; without (a failed load), every
 * one declared, whose calls answer `unavailable`. The instance's registry (plugins.ts) and the
 * runtime of a plugin's tests (local.ts) both make them here.
 */
export function declaredHandlers(
  runnable: RunnablePlugin,
  loaded: RunnerHandler[] | null,
  secrets: Readonly<Record<string, string>>,
  maximums: HandlerMaximums,
): ActiveHandler[] {
  const { manifest, name: plugin } = runnable;
  const perAnswer = effectsPerAnswer(manifest.limits?.effects_per_answer, maximums.maxEffectsPerAnswer);
  const asked = manifest.data ?? {};
  const data: DataAccess = {
    read: asked.read ?? [],
    scope: asked.scope ?? 'event_patient',
    reads: Math.min(asked.reads_per_call ?? maximums.maxDataReads, maximums.maxDataReads),
    rows: Math.min(asked.rows_per_call ?? maximums.maxDataRows, maximums.maxDataRows),
  };
  const handlers: ActiveHandler[] = [];
  for (const handler of manifest.components.handlers) {
    const { entry, name: className } = handlerTarget(handler);
    if (className === undefined || entry === undefined) continue;
    const found = loaded?.find((h) => h.entry === entry && h.name === className);
    if (loaded !== null && found === undefined) continue;
    const events = found === undefined ? handler.events : handler.events.filter((e) => found.respondsTo.includes(e));
    // Checked at install (runtime/check.ts): here only the values; a declaration found wrong now serves nothing.
    const surface = found === undefined ? undefined : handlerSurface(`${entry}:${className}`, events, found, '');
    handlers.push({
      plugin,
      entry,
      className,
      id: `${entry}:${className}`,
      events,
      secrets,
      onFailure: handler.on_failure ?? 'allow',
      effectsPerAnswer: perAnswer,
      data,
      routes: surface === undefined || surface.reasons.length > 0 ? [] : surface.routes,
      schedule: surface?.reasons.length === 0 ? (surface.schedule?.schedule ?? null) : null,
    });
  }
  return handlers;
}
