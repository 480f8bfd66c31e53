// A host process for runner.test.ts: starts a PluginRunner, loads one plugin, prints the child's
// pid and working directory as one JSON line, and waits to be killed.
import fs from 'node:fs';
import type { ChartaManifest } from '@charta/plugin-sdk/manifest';
import { PluginRunner } from '../../src/runtime/runner/client.ts';
import { bundle, handler } from './sandbox.ts';

const runner = new PluginRunner();
const answer = await runner.load({
  name: 'hosted',
  manifest: {} as ChartaManifest,
  modules: [{ entry: 'hosted/handlers.js', source: await bundle(handler('return [];')) }],
  limits: {},
});
if (!answer.ok) throw new Error(answer.reasons.join('; '));
const pid = runner.pid!;
process.stdout.write(`${JSON.stringify({ pid, cwd: fs.readlinkSync(`/proc/${pid}/cwd`) })}\n`);
setInterval(() => undefined, 1 << 30);
