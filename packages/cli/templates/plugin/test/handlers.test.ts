// Runs the handler the way the instance does (runHandler), on events built with createEvent.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createEvent, recordingLogger, runHandler } from '@charta/plugin-sdk';
import { PlanCommittedHandler } from '../src/{{project_package_name}}/handlers.ts';

const committed = (narrative: string) => createEvent('PLAN_COMMAND__POST_COMMIT', { target: 'command-1', fields: { narrative }, patient: 'patient-1' });

describe('PlanCommittedHandler', () => {
  it('asks for a chart banner when the plan mentions a follow-up', async () => {
    const log = recordingLogger();
    const effects = await runHandler(PlanCommittedHandler, committed('Follow up in two weeks'), { log });
    assert.equal(effects.length, 1);
    assert.equal(effects[0]?.type, 'ADD_BANNER_ALERT');
    assert.deepEqual(log.lines, [{ level: 'info', message: 'plan command-1 committed: Follow up in two weeks' }]);
  });

  it('only logs other plans', async () => {
    assert.deepEqual(await runHandler(PlanCommittedHandler, committed('Rest and fluids')), []);
  });

  it('ignores events it does not respond to', async () => {
    const updated = createEvent('PLAN_COMMAND__POST_UPDATE', { target: 'command-1', fields: { narrative: 'Follow up' } });
    assert.deepEqual(await runHandler(PlanCommittedHandler as never, updated), []);
  });
});
