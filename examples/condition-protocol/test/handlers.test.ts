// Runs ConditionSymptomAlert in the instance's sandbox (`npm test`: charta plugin test), its
// `this.data` reading test/fixture.json: a diabetic patient (E11.9 active, I10 entered in
// error), a hypertensive one (I10) and one without conditions (docs/plugins.md, "Testing a plugin").
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { addBannerAlert, createEvent } from '@charta/plugin-sdk';
import { runInSandbox } from '@charta/plugin-sdk/testing';
import { ConditionSymptomAlert } from '../src/condition_protocol/handlers.ts';

const DIABETIC = 'd1abe7e5d1abe7e5d1abe7e5d1abe7e5';
const HYPERTENSIVE = 'b10dc0de4b10dc0de4b10dc0de4b10dc';
const NO_CONDITIONS = '0000000000000000000000000000c1ea';
const data = 'test/fixture.json';

const updated = (narrative: string, patient: string) =>
  createEvent('HISTORY_OF_PRESENT_ILLNESS_COMMAND__POST_UPDATE', { target: 'hpi-1', fields: { narrative }, patient });

describe('ConditionSymptomAlert', () => {
  it("alerts on a symptom of the patient's diabetes, read from the chart", async () => {
    const run = await runInSandbox(ConditionSymptomAlert, updated('Two weeks of increased Thirst and some blurred vision.', DIABETIC), { data });
    assert.deepEqual(run.effects, [
      addBannerAlert({
        patient: DIABETIC,
        key: 'protocol-diabetes',
        narrative: 'HPI mentions thirst, blurred vision: review the diabetes protocol',
        placement: ['chart', 'timeline'],
        intent: 'warning',
      }),
    ]);
    assert.deepEqual(run.logs, [{ level: 'info', message: 'HPI hpi-1 mentions thirst, blurred vision: diabetes protocol' }]);
    // One read, of the event's patient, as the audit trail records it.
    assert.deepEqual(
      run.reads.map((r) => [r.read, r.patient_key, r.refused]),
      [['chart.get', DIABETIC, null]],
    );
  });

  it('alerts on hypertension (I10) for a headache', async () => {
    const run = await runInSandbox(ConditionSymptomAlert, updated('Morning headache since Monday', HYPERTENSIVE), { data });
    assert.deepEqual(
      run.effects.map((e) => (e.payload as { key: string }).key),
      ['protocol-hypertension'],
    );
  });

  it('ignores a condition entered in error: no alert for chest pain of the diabetic patient', async () => {
    const run = await runInSandbox(ConditionSymptomAlert, updated('Chest pain on exertion', DIABETIC), { data });
    assert.deepEqual(run.effects, []);
    assert.equal(run.reads.length, 1);
  });

  it('does not alert a patient without the condition', async () => {
    const run = await runInSandbox(ConditionSymptomAlert, updated('Thirst and headache', NO_CONDITIONS), { data });
    assert.deepEqual(run.effects, []);
  });

  it('reads nothing when the narrative names no symptom of its table', async () => {
    const run = await runInSandbox(ConditionSymptomAlert, updated('Three days of cough', DIABETIC), { data });
    assert.deepEqual(run.effects, []);
    assert.deepEqual(run.reads, []);
  });

  it('is not given the HPI commit, which its manifest does not list', async () => {
    const committed = createEvent('HISTORY_OF_PRESENT_ILLNESS_COMMAND__POST_COMMIT', { target: 'hpi-1', fields: { narrative: 'thirst' }, patient: DIABETIC });
    const run = await runInSandbox(ConditionSymptomAlert as never, committed, { data });
    assert.equal(run.called, false);
  });
});
