// Builds real plugin bundles the way `charta plugin build` does (the CLI's own bundler) from
// small TypeScript handler sources, and loads them in the QuickJS sandbox.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { bundleEntries } from '../../../cli/src/packaging/bundle.ts';
import type { Project } from '../../../cli/src/packaging/project.ts';
import { quickjsSandbox } from '../../src/runtime/sandbox/quickjs.ts';
import type { CallResult, JsonObject, LoadResult, LoadedPlugin, SandboxLimits } from '../../src/runtime/sandbox/types.ts';

export const EVENT_TYPE = 'PLAN_COMMAND__POST_COMMIT';

/** The bundled ES module of one TypeScript handler source. */
export async function bundle(source: string): Promise<string> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'charta-sandbox-'));
  try {
    fs.writeFileSync(path.join(dir, 'handlers.ts'), source);
    const project: Project = {
      dir,
      slug: 'test_plugin',
      manifest: {} as Project['manifest'],
      entries: [{ entry: 'test_plugin/handlers.js', source: 'handlers.ts', exports: [] }],
    };
    const out = await bundleEntries(project);
    return Buffer.from(out.get('test_plugin/handlers.js')!).toString('utf8');
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

export async function tryLoad(source: string, limits?: Partial<SandboxLimits>, name = 'test_plugin'): Promise<LoadResult> {
  return quickjsSandbox.load(name, await bundle(source), limits);
}

export async function load(source: string, limits?: Partial<SandboxLimits>, name = 'test_plugin'): Promise<LoadedPlugin> {
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
