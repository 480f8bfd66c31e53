// Runs FollowUpInterval in the instance's sandbox (`npm test`: charta plugin test), one handler
// call per runInSandbox (docs/plugins.md, "Testing a plugin"). It reads nothing, so no fixture.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createEvent, upsertPatientMetadata } from '@charta/plugin-sdk';
import { runInSandbox } from '@charta/plugin-sdk/testing';
import { FollowUpInterval } from '../src/plan_metadata/handlers.ts';

const PATIENT = '5eed5eed5eed5eed5eed5eed5eed5eed';
const updated = (narrative: string) => createEvent('PLAN_COMMAND__POST_UPDATE', { target: 'plan-1', fields: { narrative }, patient: PATIENT });

describe('FollowUpInterval', () => {
  it('upserts follow-up-interval = 2w for "follow up in 2 weeks"', async () => {
    const run = await runInSandbox(FollowUpInterval, updated('Start metformin. Follow up in 2 weeks.'));
    assert.deepEqual(run.effects, [upsertPatientMetadata(PATIENT, 'follow-up-interval', '2w')]);
    assert.deepEqual(run.logs, [{ level: 'info', message: 'plan plan-1: follow-up-interval = 2w' }]);
    assert.deepEqual(run.reads, []);
  });

  for (const [narrative, interval] of [
    ['follow-up in one month', '1m'],
    ['FOLLOW UP AFTER 10 DAYS', '10d'],
    ['Recheck labs; followup in a year', '1y'],
    ['follow up in three weeks, sooner if worse', '3w'],
  ] as const) {
    it(`reads "${narrative}" as ${interval}`, async () => {
      const run = await runInSandbox(FollowUpInterval, updated(narrative));
      assert.deepEqual(run.effects, [upsertPatientMetadata(PATIENT, 'follow-up-interval', interval)]);
    });
  }

  it('writes nothing for a plan that states no interval', async () => {
    for (const narrative of ['Continue current medications', 'follow up in some weeks', 'follow up in 0 days', '']) {
      const run = await runInSandbox(FollowUpInterval, updated(narrative));
      assert.deepEqual(run.effects, [], narrative);
      assert.deepEqual(run.logs, [], narrative);
    }
  });

  it('is not given the plan commit, which its manifest does not list', async () => {
    const committed = createEvent('PLAN_COMMAND__POST_COMMIT', { target: 'plan-1', fields: { narrative: 'follow up in 2 weeks' }, patient: PATIENT });
    assert.equal((await runInSandbox(FollowUpInterval as never, committed)).called, false);
  });
});
