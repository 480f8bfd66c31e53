// Runs the handler in the sandbox the instance runs it in, on events built with createEvent:
// `npm test` (charta plugin test) builds the plugin and loads it as an instance would, and each
// runInSandbox call is one handler call there, with the plugin's limits.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createEvent, originateCommand } from '@charta/plugin-sdk';
import { runInSandbox } from '@charta/plugin-sdk/testing';
import { PlanCommittedHandler } from '../src/{{project_package_name}}/handlers.ts';

const committed = (narrative: string) =>
  createEvent('PLAN_COMMAND__POST_COMMIT', { target: 'command-1', fields: { narrative }, note: 'note-1', actor: 'staff-1' });

describe('PlanCommittedHandler', () => {
  it('logs the committed plan and adds a follow-up instruction to the same note', async () => {
    const { effects, logs } = await runInSandbox(PlanCommittedHandler, committed('Recheck blood pressure in two weeks'));
    assert.deepEqual(effects, [originateCommand('instruct', 'note-1', { comment: 'Follow up on: Recheck blood pressure in two weeks' })]);
    assert.deepEqual(logs, [{ level: 'info', message: 'plan command-1 committed by staff-1: Recheck blood pressure in two weeks' }]);
  });

  it('keeps the instruction within the 10000 characters a comment takes', async () => {
    const [effect] = (await runInSandbox(PlanCommittedHandler, committed('x'.repeat(10000)))).effects;
    const comment = (effect?.payload as { data: { comment: string } }).data.comment;
    assert.equal(comment.length, 10000);
    assert.ok(comment.startsWith('Follow up on: x'));
  });

  it('only logs a plan with no narrative', async () => {
    const { effects, logs } = await runInSandbox(PlanCommittedHandler, committed('   '));
    assert.deepEqual(effects, []);
    assert.equal(logs.length, 1);
  });

  it('is not given events its manifest does not list', async () => {
    const updated = createEvent('PLAN_COMMAND__POST_UPDATE', { target: 'command-1', fields: { narrative: 'Follow up' } });
    const run = await runInSandbox(PlanCommittedHandler as never, updated);
    assert.equal(run.called, false);
    assert.deepEqual(run.effects, []);
  });
});
