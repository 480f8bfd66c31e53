// The sandbox backends the runner knows, by name (docs/plugins.md, "The sandbox";
// docs/architecture.md, "Plugin runtime"). The runner protocol names the backend of each plugin it
// loads (`PluginToLoad.backend`); the runner child prepares the backend once and each plugin's
// isolate creates it from what was prepared. A second backend is one file implementing
// SandboxBackend (sandbox/types.ts) and one entry here. A name not listed is a load failure.
import { quickjsBackend } from './quickjs.ts';
import type { BackendEntry } from './types.ts';

export { DEFAULT_BACKEND } from './types.ts';

const BACKENDS = new Map<string, BackendEntry>([['quickjs', quickjsBackend as BackendEntry]]);

/** The backend of that name; undefined when none is registered. */
export function backendEntry(name: string): BackendEntry | undefined {
  return typeof name === 'string' ? BACKENDS.get(name) : undefined;
}

export function backendNames(): string[] {
  return [...BACKENDS.keys()];
}

/** Why a plugin cannot be loaded on the backend it names: the names that are known. */
export function unknownBackend(name: unknown): string {
  return `the sandbox backend ${JSON.stringify(String(name)).slice(0, 80)} is not known here (known: ${backendNames().join(', ')})`;
}

/**
 * Adds a backend beside the built-in ones, in this thread. Only the runner child and its isolates
 * call it, for the modules its host names (PluginRunnerOptions.backendModules: tests only).
 */
export function registerBackend(name: string, entry: BackendEntry): void {
  if (typeof name !== 'string' || !/^[a-z][a-z0-9-]{0,31}$/.test(name))
    throw new Error(`a sandbox backend's name must match [a-z][a-z0-9-]{0,31}: ${String(name)}`);
  if (BACKENDS.has(name)) throw new Error(`the sandbox backend ${name} is registered already`);
  if (typeof entry?.create !== 'function') throw new Error(`the sandbox backend ${name} has no create()`);
  BACKENDS.set(name, entry);
}

/**
 * Registers the backends of these modules (file URLs), each exporting `name` and `backend` (a
 * BackendEntry). The module must run without a TypeScript loader (plain JavaScript).
 */
export async function registerBackendModules(urls: readonly string[]): Promise<void> {
  for (const url of urls) {
    const module = (await import(url)) as { name?: unknown; backend?: unknown };
    registerBackend(module.name as string, module.backend as BackendEntry);
  }
}
