// The install check (docs/plugins.md, "The install check"): install and update load a package in
// the sandbox before anything is stored, so that an install never reports success for a plugin
// that can never run. Every reason is returned together; [] means it can run (or, a Python
// package of the original tool, that it is accepted with nothing to run).
import type { PluginRunner } from './runner/client.ts';
import { handlerTarget, runnablePlugin, type InstanceLimits } from './runnable.ts';
import { handlerSurface, routeClashes, storedSurface, type DeclaredRoute, type DeclaredSchedule } from './surface.ts';
import type { PackageCheck, PackageToCheck } from './types.ts';

/** Every reason the package cannot run here ([] when it can). */
export async function checkPackage(runner: Pick<PluginRunner, 'check'>, pkg: PackageToCheck, instanceLimits: InstanceLimits): Promise<string[]> {
  return (await checkPackageSurface(runner, pkg, instanceLimits)).reasons;
}

/** The reasons, and the routes and schedules its classes declare (docs/plugins.md, "HTTP routes", "Scheduled tasks"). */
export async function checkPackageSurface(runner: Pick<PluginRunner, 'check'>, pkg: PackageToCheck, instanceLimits: InstanceLimits): Promise<PackageCheck> {
  const none = storedSurface([], []);
  const runnable = await runnablePlugin(pkg, instanceLimits);
  if (runnable.kind === 'nothing-to-run') return { reasons: [], surface: none };
  const reasons = runnable.kind === 'invalid' ? [...runnable.reasons] : [];
  const plugin = runnable.kind === 'invalid' ? runnable.partial : runnable.plugin;
  if (plugin === null) return { reasons, surface: none };

  // Modules evaluate under the plugin's limits in fresh runtimes, then are disposed.
  const answer = await runner.check(plugin);
  if (!answer.ok) return { reasons: [...reasons, ...answer.reasons], surface: none };
  const routes: DeclaredRoute[] = [];
  const schedules: DeclaredSchedule[] = [];
  const loadedEntries = new Set(plugin.modules.map((m) => m.entry));
  plugin.manifest.components.handlers.forEach((handler, i) => {
    const { entry, name } = handlerTarget(handler);
    if (entry === undefined || name === undefined || !loadedEntries.has(entry)) return; // already a reason
    const found = answer.handlers.find((h) => h.entry === entry && h.name === name);
    if (!found) {
      reasons.push(
        `CHARTA_MANIFEST.json: /components/handlers/${i}/class "${name}" is not a handler class that "${entry}" exports (an exported class with RESPONDS_TO and compute())`,
      );
      return;
    }
    for (const event of handler.events) {
      if (!found.respondsTo.includes(event)) {
        reasons.push(`CHARTA_MANIFEST.json: /components/handlers/${i}: ${name}.RESPONDS_TO does not list ${event}, so it could never run for it`);
      }
    }
    const surface = handlerSurface(`${entry}:${name}`, handler.events, found, `CHARTA_MANIFEST.json: /components/handlers/${i} (${name})`);
    routes.push(...surface.routes);
    if (surface.schedule !== null) schedules.push(surface.schedule);
    reasons.push(...surface.reasons);
  });
  reasons.push(...routeClashes(routes));
  return { reasons, surface: storedSurface(routes, schedules) };
}
