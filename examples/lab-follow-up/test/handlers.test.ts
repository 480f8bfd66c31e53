// Runs LabOrderFollowUp in the instance's sandbox (`npm test`: charta plugin test), `this.data`
// reading test/fixture.json: note a001 has an HPI and no plan, a002 a committed plan, a003 only a
// plan entered in error (docs/plugins.md, "Testing a plugin").
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createEvent, originateCommand } from '@charta/plugin-sdk';
import { runInSandbox } from '@charta/plugin-sdk/testing';
import { LabOrderFollowUp } from '../src/lab_follow_up/handlers.ts';

const PATIENT = '1ab0dea51ab0dea51ab0dea51ab0dea5';
const NO_PLAN = '00000000-0000-4000-8000-00000000a001';
const WITH_PLAN = '00000000-0000-4000-8000-00000000a002';
const PLAN_IN_ERROR = '00000000-0000-4000-8000-00000000a003';
const data = 'test/fixture.json';
const CBC = { text: 'CBC', value: 'GEN-CBC', extra: { coding: [{ code: 'GEN-CBC', display: 'CBC', system: 'http://loinc.org' }] } };

const committed = (note: string, tests: unknown[] = [CBC]) =>
  createEvent('LAB_ORDER_COMMAND__POST_COMMIT', { target: 'lab-1', fields: { tests, fasting_required: false }, note, patient: PATIENT });

describe('LabOrderFollowUp', () => {
  it('adds a follow-up instruction to a note without a plan', async () => {
    const run = await runInSandbox(LabOrderFollowUp, committed(NO_PLAN), { data });
    assert.deepEqual(run.effects, [originateCommand('instruct', NO_PLAN, { comment: 'Follow up on the lab results (CBC): this note has no plan.' })]);
    assert.deepEqual(run.logs, [{ level: 'info', message: `lab order lab-1: no plan in note ${NO_PLAN}, follow-up instruction added` }]);
    // One read: the note's plans (none), of the event's patient.
    assert.deepEqual(
      run.reads.map((r) => [r.read, r.patient_key, r.rows, r.refused]),
      [['commands.list', PATIENT, 0, null]],
    );
  });

  it('adds nothing when the note has a plan', async () => {
    const run = await runInSandbox(LabOrderFollowUp, committed(WITH_PLAN), { data });
    assert.deepEqual(run.effects, []);
    assert.deepEqual(run.logs, [{ level: 'info', message: 'lab order lab-1: the note has 1 plan(s), no follow-up added' }]);
  });

  it('does not count a plan entered in error', async () => {
    const run = await runInSandbox(LabOrderFollowUp, committed(PLAN_IN_ERROR, []), { data });
    assert.deepEqual(run.effects, [originateCommand('instruct', PLAN_IN_ERROR, { comment: 'Follow up on the lab results: this note has no plan.' })]);
  });

  it('is not given a lab order being originated', async () => {
    const originated = createEvent('LAB_ORDER_COMMAND__POST_ORIGINATE', { target: 'lab-1', note: NO_PLAN, patient: PATIENT });
    assert.equal((await runInSandbox(LabOrderFollowUp as never, originated, { data })).called, false);
  });
});
