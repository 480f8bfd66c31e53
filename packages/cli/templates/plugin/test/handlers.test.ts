// Runs the handler the way the instance does (runHandler), on events built with createEvent.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createEvent, originateCommand, recordingLogger, runHandler } from '@charta/plugin-sdk';
import { PlanCommittedHandler } from '../src/{{project_package_name}}/handlers.ts';

const committed = (narrative: string) =>
  createEvent('PLAN_COMMAND__POST_COMMIT', { target: 'command-1', fields: { narrative }, note: 'note-1', actor: 'staff-1' });

describe('PlanCommittedHandler', () => {
  it('logs the committed plan and adds a follow-up instruction to the same note', async () => {
    const log = recordingLogger();
    const effects = await runHandler(PlanCommittedHandler, committed('Recheck blood pressure in two weeks'), { log });
    assert.deepEqual(effects, [originateCommand('instruct', 'note-1', { comment: 'Follow up on: Recheck blood pressure in two weeks' })]);
    assert.deepEqual(log.lines, [{ level: 'info', message: 'plan command-1 committed by staff-1: Recheck blood pressure in two weeks' }]);
  });

  it('keeps the instruction within the 10000 characters a comment takes', async () => {
    const [effect] = await runHandler(PlanCommittedHandler, committed('x'.repeat(10000)));
    const comment = (effect?.payload as { data: { comment: string } }).data.comment;
    assert.equal(comment.length, 10000);
    assert.ok(comment.startsWith('Follow up on: x'));
  });

  it('only logs a plan with no narrative', async () => {
    const log = recordingLogger();
    assert.deepEqual(await runHandler(PlanCommittedHandler, committed('   '), { log }), []);
    assert.equal(log.lines.length, 1);
  });

  it('ignores events it does not respond to', async () => {
    const updated = createEvent('PLAN_COMMAND__POST_UPDATE', { target: 'command-1', fields: { narrative: 'Follow up' } });
    assert.deepEqual(await runHandler(PlanCommittedHandler as never, updated), []);
  });
});
