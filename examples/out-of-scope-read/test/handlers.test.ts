// Runs OtherPatientReader in the instance's sandbox (`npm test`: charta plugin test), `this.data`
// reading test/fixture.json, where both patients exist: the read of the other one is refused by
// the scope, not for want of a row (docs/plugins.md, "Testing a plugin").
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createEvent } from '@charta/plugin-sdk';
import { runInSandbox } from '@charta/plugin-sdk/testing';
import { OtherPatientReader } from '../src/out_of_scope_read/handlers.ts';

const OWN = '0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a';
const OTHER = '0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b';
const data = 'test/fixture.json';
const committed = (narrative: string) => createEvent('PLAN_COMMAND__POST_COMMIT', { target: 'plan-1', fields: { narrative }, patient: OWN });

describe('OtherPatientReader', () => {
  it('is refused the patient its secret names, and logs the refusal', async () => {
    const run = await runInSandbox(OtherPatientReader, committed('Recheck in 2 weeks'), { data, secrets: { OTHER_PATIENT_KEY: OTHER } });
    assert.deepEqual(run.effects, []);
    assert.equal(run.logs.length, 1);
    assert.equal(run.logs[0]!.level, 'warning');
    assert.match(run.logs[0]!.message, new RegExp(`^read of patient ${OTHER} refused \\(out_of_scope\\): `));
    // The refused read is recorded, about the other patient, as the audit trail has it.
    assert.equal(run.reads.length, 1);
    assert.deepEqual([run.reads[0]!.read, run.reads[0]!.patient_key, run.reads[0]!.rows], ['patients.get', OTHER, 0]);
    assert.ok(run.reads[0]!.refused, JSON.stringify(run.reads));
  });

  it('is refused the patient the narrative names', async () => {
    const run = await runInSandbox(OtherPatientReader, committed(`Compare with patient:${OTHER}`), { data });
    assert.deepEqual(
      run.reads.map((r) => r.patient_key),
      [OTHER],
    );
    assert.match(run.logs[0]!.message, /refused \(out_of_scope\)/);
  });

  it('reads the other patient with instance scope and the data:instance grant only: not this manifest', async () => {
    // The grant alone changes nothing: the manifest asks event_patient.
    const run = await runInSandbox(OtherPatientReader, committed(`patient:${OTHER}`), { data, grants: ['data:instance'] });
    assert.match(run.logs[0]!.message, /refused \(out_of_scope\)/);
  });

  it('reads nothing when no other patient is named', async () => {
    for (const narrative of ['Recheck in 2 weeks', `patient:${OWN}`]) {
      const run = await runInSandbox(OtherPatientReader, committed(narrative), { data });
      assert.deepEqual([run.reads, run.logs], [[], []], narrative);
    }
  });
});
