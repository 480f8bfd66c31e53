// The project `charta plugin init` writes runs in the sandbox as it runs in its own tests
// (docs/plugins.md, "Events"): its example handler, built as `charta plugin build` builds it and
// loaded in the QuickJS backend, answers a PLAN_COMMAND__POST_COMMIT event built by the SDK's
// createEvent with its log line and the follow-up instruct command in the plan's note.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createEvent, originateCommand } from '@charta/plugin-sdk';
import { projectFiles } from '../../cli/src/scaffold/project.ts';
import { readProject } from '../../cli/src/packaging/project.ts';
import { bundleEntries } from '../../cli/src/packaging/bundle.ts';
import type { JsonObject } from '../src/runtime/sandbox/types.ts';
import { loadModule } from './support/sandbox.ts';

const answers = {
  full_name: 'Test Author',
  email: 'author@example.org',
  version: '0.1.0',
  project_name: 'Template Check',
  project_slug: 'template-check',
  project_package_name: 'template_check',
  project_short_description: 'The scaffold, run in the sandbox',
};

describe("the project 'charta plugin init' writes", () => {
  it('runs in the sandbox: on a committed plan it logs a line and originates a follow-up instruct in the same note', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'charta-template-'));
    try {
      for (const [rel, content] of projectFiles(answers)) {
        fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
        fs.writeFileSync(path.join(dir, rel), content);
      }
      const project = readProject(dir);
      assert.deepEqual(project.manifest.components.handlers[0]?.events, ['PLAN_COMMAND__POST_COMMIT']);
      const bundles = await bundleEntries(project);
      const source = Buffer.from(bundles.get('template_check/handlers.js')!).toString('utf8');
      const loaded = await loadModule('template-check', source);
      assert.ok(loaded.ok, loaded.ok ? '' : loaded.reasons.join('; '));
      const plugin = loaded.plugin;
      try {
        assert.deepEqual(plugin.handlers(), [{ name: 'PlanCommittedHandler', respondsTo: ['PLAN_COMMAND__POST_COMMIT'] }]);
        const event = createEvent('PLAN_COMMAND__POST_COMMIT', { target: 'c-1', fields: { narrative: 'Recheck BP' }, note: 'n-1', actor: 's-1' });
        const result = await plugin.call('PlanCommittedHandler', JSON.parse(JSON.stringify(event)) as JsonObject, {});
        assert.deepEqual(result.outcome, { kind: 'ok', effects: [originateCommand('instruct', 'n-1', { comment: 'Follow up on: Recheck BP' })] });
        assert.deepEqual(result.logs, [{ level: 'info', message: 'plan c-1 committed by s-1: Recheck BP' }]);
      } finally {
        plugin.dispose();
      }
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
