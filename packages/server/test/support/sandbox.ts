// Builds real plugin bundles the way `charta plugin build` does (the CLI's own bundler) from
// small TypeScript handler sources, and loads them in the QuickJS sandbox.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { bundleEntries } from '../../../cli/src/packaging/bundle.ts';
import type { Project } from '../../../cli/src/packaging/project.ts';
import { quickjsSandbox } from '../../src/runtime/sandbox/quickjs.ts';
import type { RunnablePlugin } from '../../src/runtime/runnable.ts';
import type { ChartaManifest } from '@charta/plugin-sdk/manifest';
import type { CallResult, HandlerInfo, JsonObject, SandboxLimits } from '../../src/runtime/sandbox/types.ts';

export const EVENT_TYPE = 'PLAN_COMMAND__POST_COMMIT';

/** The entry module of the plugins these tests load: one module each. */
export const ENTRY = 'test_plugin/handlers.js';

/** A plugin of one module, called by handler name alone. */
export interface SingleModule {
  handlers(): HandlerInfo[];
  call(handler: string, event: JsonObject, secrets: Readonly<Record<string, string>>): Promise<CallResult>;
  memoryBytes(): number;
  dispose(): void;
}

export type SingleLoad = { ok: true; plugin: SingleModule } | { ok: false; reasons: string[] };

/** Loads one module (its text as is) in the sandbox; the reasons of a failure without the entry each starts with. */
export async function loadModule(name: string, source: string, limits?: Partial<SandboxLimits>): Promise<SingleLoad> {
  const loaded = await quickjsSandbox.load(name, { files: { [ENTRY]: source }, entries: [ENTRY] }, limits);
  if (!loaded.ok) return { ok: false, reasons: loaded.reasons.map((r) => (r.startsWith(`${ENTRY}: `) ? r.slice(ENTRY.length + 2) : r)) };
  const plugin = loaded.plugin;
  return {
    ok: true,
    plugin: {
      handlers: () => plugin.handlers().find((m) => m.entry === ENTRY)?.handlers ?? [],
      call: (handler, event, secrets) => plugin.call(ENTRY, handler, event, secrets),
      memoryBytes: () => plugin.memoryBytes(),
      dispose: () => plugin.dispose(),
    },
  };
}

/** The bundled ES module of one TypeScript handler source. */
export async function bundle(source: string): Promise<string> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'charta-sandbox-'));
  try {
    fs.writeFileSync(path.join(dir, 'handlers.ts'), source);
    const project: Project = {
      dir,
      slug: 'test_plugin',
      manifest: {} as Project['manifest'],
      entries: [{ entry: ENTRY, source: 'handlers.ts', exports: [] }],
    };
    const out = await bundleEntries(project);
    return Buffer.from(out.get(ENTRY)!).toString('utf8');
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

export async function tryLoad(source: string, limits?: Partial<SandboxLimits>, name = 'test_plugin'): Promise<SingleLoad> {
  return loadModule(name, await bundle(source), limits);
}

export async function load(source: string, limits?: Partial<SandboxLimits>, name = 'test_plugin'): Promise<SingleModule> {
  const loaded = await tryLoad(source, limits, name);
  assert.ok(loaded.ok, `the plugin loads: ${loaded.ok ? '' : loaded.reasons.join('; ')}`);
  return loaded.plugin;
}

/** A handler class `Probe` whose async compute() is `body`. */
export function handler(body: string, prelude = ''): string {
  return `import { BaseHandler } from '@charta/plugin-sdk';
${prelude}
export class Probe extends BaseHandler {
  static RESPONDS_TO = ['${EVENT_TYPE}'];
  async compute() {
${body}
  }
}
`;
}

export function event(extra: JsonObject = {}): JsonObject {
  return { type: EVENT_TYPE, target: { id: '7d0b8c1e-0000-4000-8000-000000000001', type: 'command' }, context: { fields: { narrative: 'plan' } }, ...extra };
}

/** Loads `Probe` with `body`, calls it once, disposes it. */
export async function probe(
  body: string,
  options: { secrets?: Record<string, string>; limits?: Partial<SandboxLimits>; prelude?: string } = {},
): Promise<CallResult> {
  const plugin = await load(handler(body, options.prelude), options.limits);
  try {
    return await plugin.call('Probe', event(), options.secrets ?? {});
  } finally {
    plugin.dispose();
  }
}

/** The effects of an ok outcome (fails the test otherwise). */
export function effectsOf(result: CallResult): JsonObject[] {
  assert.equal(result.outcome.kind, 'ok', JSON.stringify(result.outcome));
  return (result.outcome as { effects: JsonObject[] }).effects;
}

/** The entry module of the plugins the runner tests load. */
export const PROBE_ENTRY = 'probe/handlers.js';

/** A plugin for the runner whose one module exports `Probe`, whose compute() is `body` (after `prelude` at module level). */
export async function probePlugin(name: string, body: string, prelude = '', limits: Partial<SandboxLimits> = {}): Promise<RunnablePlugin> {
  return { name, manifest: {} as ChartaManifest, modules: [{ entry: PROBE_ENTRY, source: await bundle(handler(body, prelude)) }], limits };
}
