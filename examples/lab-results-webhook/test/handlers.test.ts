// Runs LabResultWebhook in the instance's sandbox (`npm test`: charta plugin test): the signature
// is checked by the instance's own binding, as on a real instance (docs/plugins.md, "Testing a plugin").
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { createRouteEvent, createTickEvent, originateCommand, routeResponse } from '@charta/plugin-sdk';
import { runInSandbox } from '@charta/plugin-sdk/testing';
import { LabResultWebhook, NightlyLabCheck } from '../src/lab_results_webhook/handlers.ts';

const KEY = 'a-shared-key-for-tests-only';
const NOTE = '00000000-0000-4000-8000-00000000b001';
const secrets = { LAB_WEBHOOK_KEY: KEY };

/** The request as the lab sends it: the body as text, signed unless `signature` says otherwise. */
const posted = (body: unknown, signature?: string) => {
  const raw = JSON.stringify(body);
  return createRouteEvent({
    method: 'POST',
    path: '/webhooks/lab-result',
    body,
    raw_body: raw,
    headers: { 'x-lab-signature': signature ?? `sha256=${createHmac('sha256', KEY).update(raw).digest('hex')}` },
  });
};

describe('LabResultWebhook', () => {
  it('files a signed result as an instruct in its note, and answers 202', async () => {
    const run = await runInSandbox(LabResultWebhook, posted({ note: NOTE, test: 'HbA1c', result: '6.1 %' }), { secrets });
    assert.deepEqual(run.effects, [
      routeResponse({ status: 202, body: { accepted: true } }),
      originateCommand('instruct', NOTE, { comment: 'Lab result received: HbA1c: 6.1 %' }),
    ]);
  });

  it('refuses a wrong or missing signature with 401 and files nothing', async () => {
    for (const signature of ['sha256=00', '', `sha256=${createHmac('sha256', 'another key').update('{}').digest('hex')}`]) {
      const run = await runInSandbox(LabResultWebhook, posted({ note: NOTE, test: 'HbA1c', result: '6.1 %' }, signature), { secrets });
      assert.deepEqual(run.effects, [routeResponse({ status: 401, body: { error: 'missing or wrong x-lab-signature' } })]);
    }
  });

  it('refuses a signed body that is not a result with 400', async () => {
    const run = await runInSandbox(LabResultWebhook, posted({ note: 'not-a-uuid', test: 'HbA1c', result: '6.1 %' }), { secrets });
    assert.deepEqual(run.effects, [routeResponse({ status: 400, body: { error: 'note is the uuid of the note to file the result in' } })]);
  });
});

describe('NightlyLabCheck', () => {
  it('warns when no result arrived in the day before its tick, and says so when one did (the cache the webhook keeps)', async () => {
    const tick = (at: Date) => createTickEvent({ tick: at, schedule: '0 2 * * *', plugin: 'lab-results-webhook' });
    // Three days on, whatever arrived in this test run (the cache lasts the whole run) is too old.
    const quiet = await runInSandbox(NightlyLabCheck, tick(new Date(Date.now() + 3 * 24 * 3600_000)), { secrets });
    assert.deepEqual(quiet.effects, []);
    assert.equal(quiet.logs[0]?.level, 'warning');
    assert.match(quiet.logs[0]!.message, /^no lab result in the day before/);
    // A result arrives (the same plugin's cache, as on an instance), then the night comes.
    await runInSandbox(LabResultWebhook, posted({ note: NOTE, test: 'HbA1c', result: '6.1 %' }), { secrets });
    const busy = await runInSandbox(NightlyLabCheck, tick(new Date(Date.now() + 60_000)), { secrets });
    assert.equal(busy.logs[0]?.level, 'info');
    assert.match(busy.logs[0]!.message, /^lab results are arriving/);
  });
});
