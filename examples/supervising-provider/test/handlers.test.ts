// Runs SupervisingProviderCheck in the instance's sandbox (`npm test`: charta plugin test), its
// `this.data` reading test/fixture.json: a nurse practitioner and a physician among the staff
// (docs/plugins.md, "Testing a plugin").
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createEvent, validationError } from '@charta/plugin-sdk';
import { runInSandbox } from '@charta/plugin-sdk/testing';
import { SupervisingProviderCheck } from '../src/supervising_provider/handlers.ts';

const NP = '5afe0000000000000000000000000001';
const MD = '5afe0000000000000000000000000002';
const PATIENT = '5afe00000000000000000000000000aa';
const data = 'test/fixture.json';
const picked = (key: string) => ({ text: key, value: key });

const committing = (fields: Record<string, unknown>) => createEvent('PRESCRIBE_COMMAND__PRE_COMMIT', { target: 'rx-1', fields, patient: PATIENT });

describe('SupervisingProviderCheck', () => {
  it('refuses a nurse practitioner’s prescription without a supervising provider, on that field', async () => {
    const run = await runInSandbox(SupervisingProviderCheck, committing({ prescriber: picked(NP) }), { data });
    assert.deepEqual(run.effects, [
      validationError('A prescriber with the credentials NP needs a supervising provider: set supervising_provider before committing', {
        field: 'supervising_provider',
      }),
    ]);
    assert.deepEqual(
      run.reads.map((r) => [r.read, r.keys, r.refused]),
      [['reference.get', [NP], null]],
    );
  });

  it('lets it through with a supervising provider, without reading anything', async () => {
    const run = await runInSandbox(SupervisingProviderCheck, committing({ prescriber: picked(NP), supervising_provider: picked(MD) }), { data });
    assert.deepEqual(run.effects, []);
    assert.deepEqual(run.reads, []);
  });

  it('lets a physician prescribe alone', async () => {
    const run = await runInSandbox(SupervisingProviderCheck, committing({ prescriber: picked(MD) }), { data });
    assert.deepEqual(run.effects, []);
    assert.equal(run.reads.length, 1);
  });

  it('leaves a prescriber unknown to the staff data, or no prescriber, to the instance', async () => {
    assert.deepEqual(
      (await runInSandbox(SupervisingProviderCheck, committing({ prescriber: picked('5afe00000000000000000000000000ff') }), { data })).effects,
      [],
    );
    assert.deepEqual((await runInSandbox(SupervisingProviderCheck, committing({}), { data })).effects, []);
  });
});
