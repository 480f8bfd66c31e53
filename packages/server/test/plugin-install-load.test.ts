// An install or update runs the package in the isolate its install check evaluated, in the
// process that checked it, instead of evaluating the same modules again in another one
// (docs/plugins.md, "The install check"); an update runs its own new code, never the version
// checked or loaded before; an enable from disabled evaluates the package afresh. Observed through
// what the runner child counts of its isolates (RunnerStats) and the plugin's own module state.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ENGINES, startInstance, type Instance } from './support/harness.ts';
import { installPlugin, setEnabled, untilRunning, updatePlugin, type TestHandler } from './support/plugins.ts';
import { effectsOf } from './support/sandbox.ts';
import { until } from './support/until.ts';
import type { RunnerStats } from '../src/runtime/runner/client.ts';

const EVENT = 'PLAN_COMMAND__POST_COMMIT';
const ENTRY = 'dist/handlers.js';

/** A handler counting its calls in its module's global: a fresh evaluation starts at 1. */
const counter = (version: string): TestHandler[] => [
  {
    className: 'Counter',
    events: [EVENT],
    compute: `    globalThis.calls = (globalThis.calls ?? 0) + 1;
    return [{ type: 'COUNT', version: '${version}', calls: globalThis.calls }];`,
  },
];

for (const engine of ENGINES) {
  describe(`an installed package runs in the isolate its check evaluated (${engine})`, () => {
    let api: Instance;
    before(async () => {
      api = await startInstance(engine);
    });
    after(async () => api?.stop());

    const runner = () => api.app.pluginRuntime.runner;
    const counts = async () => {
      const { isolatesStarted, checkedTaken, checkedKept } = (await runner().stats()) as RunnerStats;
      return { isolatesStarted, checkedTaken, checkedKept };
    };
    const count = async (name: string) => effectsOf(await runner().call(name, ENTRY, 'Counter', { type: EVENT }, {}))[0]!;

    it('an enabled install and an update each evaluate their package once; an enable from disabled evaluates it again', async () => {
      // The runner starts with the first plugin.
      await installPlugin(api.url, 'first', counter('first'));
      await untilRunning(api.url, 'first');
      const start = await counts();
      const since = async () => {
        const now = await counts();
        return {
          isolatesStarted: now.isolatesStarted - start.isolatesStarted,
          checkedTaken: now.checkedTaken - start.checkedTaken,
          checkedKept: now.checkedKept,
        };
      };

      await installPlugin(api.url, 'counted', counter('v1'));
      await untilRunning(api.url, 'counted');
      assert.deepEqual(await since(), { isolatesStarted: 1, checkedTaken: 1, checkedKept: 0 }, 'the check evaluated it; the load took that isolate');
      assert.deepEqual(await count('counted'), { type: 'COUNT', version: 'v1', calls: 1 });
      assert.deepEqual(await count('counted'), { type: 'COUNT', version: 'v1', calls: 2 });

      await updatePlugin(api.url, 'counted', counter('v2'));
      await until('v2 runs', async () => (await count('counted'))['version'] === 'v2');
      assert.deepEqual(await since(), { isolatesStarted: 2, checkedTaken: 2, checkedKept: 0 });
      assert.deepEqual(await count('counted'), { type: 'COUNT', version: 'v2', calls: 2 }, 'a fresh evaluation of v2 (the until above made its first call)');

      await setEnabled(api.url, 'counted', false);
      await until('counted stopped', async () => (await runner().call('counted', ENTRY, 'Counter', { type: EVENT }, {})).outcome.kind === 'unavailable');
      await setEnabled(api.url, 'counted', true);
      await untilRunning(api.url, 'counted');
      assert.deepEqual(await since(), { isolatesStarted: 3, checkedTaken: 2, checkedKept: 0 }, 'no check: an isolate of its own');
      assert.deepEqual(await count('counted'), { type: 'COUNT', version: 'v2', calls: 1 });
    });
  });
}
