// The messages between the host (client.ts) and the runner child process (child.ts)
// (docs/plugins.md, "The runner process"). Only JSON crosses: the child is forked with IPC in
// JSON serialisation, so nothing but plain data (no functions, no Buffers) can be sent.
import type { CallResult, JsonObject, SandboxLimits } from '../sandbox/types.ts';

/** The name of the child's working directory starts so (a new empty directory under the system's temporary directory). */
export const WORK_DIR_PREFIX = 'charta-runner-';

/** One bundled module of a plugin: its entry path in the package (relative to the manifest) and its text. */
export interface PluginModule {
  entry: string;
  source: string;
}

/** What the child needs to load a plugin. */
export interface PluginToLoad {
  name: string;
  modules: PluginModule[];
  limits: Partial<SandboxLimits>;
}

/** A handler class the loaded plugin exports: the entry module, the export name, its RESPONDS_TO. */
export interface RunnerHandler {
  entry: string;
  name: string;
  respondsTo: string[];
}

/** The answer to a load or a check: every handler of every module, or every reason it failed. */
export type LoadAnswer = { ok: true; handlers: RunnerHandler[] } | { ok: false; reasons: string[] };

export type RunnerRequest =
  | { id: number; op: 'load'; plugin: PluginToLoad }
  | { id: number; op: 'check'; plugin: PluginToLoad }
  | { id: number; op: 'unload'; name: string }
  | { id: number; op: 'call'; name: string; entry: string; handler: string; event: JsonObject; secrets: Record<string, string> };

export type RunnerResponse =
  /** The child started working on the request (the host's guard timer starts here, not at sending). */
  | { id: number; op: 'begin' }
  | { id: number; op: 'loaded'; answer: LoadAnswer }
  | { id: number; op: 'unloaded' }
  | { id: number; op: 'called'; result: CallResult }
  /** The child's own code failed while serving the request (never a plugin's value). */
  | { id: number; op: 'failed'; message: string };
