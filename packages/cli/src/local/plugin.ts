// A plugin project run on this machine as an instance runs it (docs/plugins.md, "Testing a
// plugin"): built exactly as `charta plugin build` builds it (dist/<slug>-<version>.tar.gz), then
// loaded from that package by the server's own runtime (`@charta/server/local-runtime`,
// local/runtime.ts): the install check, the runner process and its QuickJS sandbox, the limits of
// an instance with the CHARTA_PLUGIN_* settings of this environment (their defaults when unset).
// No server is started.
import fs from 'node:fs';
import { buildProject, type Built } from '../packaging/index.ts';
import { Failure, UsageError } from '../output.ts';
import { localRuntime, type LocalRuntime } from './runtime.ts';

export interface LoadedProject {
  plugin: LocalRuntime.LocalPlugin;
  built: Built;
  runtime: typeof LocalRuntime;
}

/** Builds and loads the project; a package the instance would refuse is a Failure with every reason. */
export async function loadProject(
  dir: string,
  env: Readonly<Record<string, string | undefined>>,
  runtime: typeof LocalRuntime | undefined = undefined,
): Promise<LoadedProject> {
  const built = await buildProject(dir);
  runtime ??= await localRuntime();
  let loaded: Awaited<ReturnType<typeof runtime.LocalPlugin.load>>;
  try {
    loaded = await runtime.LocalPlugin.load(fs.readFileSync(built.file), env);
  } catch (err) {
    if (err instanceof runtime.ConfigError) throw new UsageError(err.message);
    throw err;
  }
  if (!loaded.ok) {
    throw new Failure(`The plugin cannot run in the sandbox (an instance would refuse it): ${loaded.reasons.join('; ')}`, {
      project_dir: dir,
      package: built.file,
      errors: loaded.reasons,
    });
  }
  return { plugin: loaded.plugin, built, runtime };
}
