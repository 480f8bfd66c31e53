// GET /core/api/v1/logging/recent/ (docs/api.md, "Log stream"): the recent entries of the log
// stream over plain HTTP, for the console, which cannot set a WebSocket's headers. Same
// credentials, scope and filters as the stream.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { eachEngine, startInstance, TEST_API_KEY, TEST_CLIENT_ID, TEST_CLIENT_SECRET, type Instance } from './support/harness.ts';
import { installPlugin, untilRunning } from './support/plugins.ts';

const RECENT = '/core/api/v1/logging/recent/';
const HANDLERS = [{ className: 'Quiet', events: ['PLAN_COMMAND__POST_COMMIT'], compute: 'return [];' }];

eachEngine((engine) => {
  describe(`recent log entries (${engine})`, () => {
    let instance: Instance;

    before(async () => {
      instance = await startInstance(engine);
      await installPlugin(instance.url, 'first-plugin', HANDLERS);
      await installPlugin(instance.url, 'second-plugin', HANDLERS);
      // Loading is asynchronous: its lines would land between two reads of a test below.
      await untilRunning(instance.url, 'first-plugin');
      await untilRunning(instance.url, 'second-plugin');
    });
    after(async () => {
      await instance?.stop();
    });

    it("answers a plugin's lines, oldest first, to an API key", async () => {
      const r = await instance.call('GET', `${RECENT}?plugin=first_plugin`, { authorization: TEST_API_KEY });
      assert.equal(r.status, 200, r.text);
      assert.ok(r.json.results.length >= 1);
      assert.ok(r.json.results.every((e: any) => e.plugin === 'first-plugin'));
      assert.ok(r.json.results.some((e: any) => /installed/.test(e.event) && e.level === 'info' && e.source === 'server'));
      const all = await instance.call('GET', RECENT, { authorization: TEST_API_KEY });
      const names = all.json.results.map((e: any) => e.plugin).filter(Boolean);
      assert.ok(names.indexOf('first-plugin') < names.lastIndexOf('second-plugin'), 'oldest first');
    });

    it('keeps the last `limit` entries and filters by level', async () => {
      const one = await instance.call('GET', `${RECENT}?limit=1`, { authorization: TEST_API_KEY });
      assert.equal(one.json.results.length, 1);
      const all = await instance.call('GET', RECENT, { authorization: TEST_API_KEY });
      assert.deepEqual(one.json.results[0], all.json.results.at(-1));
      const errors = await instance.call('GET', `${RECENT}?level=error`, { authorization: TEST_API_KEY });
      assert.equal(errors.status, 200);
      assert.ok(errors.json.results.every((e: any) => e.level === 'error'));
    });

    it('refuses bad options, missing credentials and tokens without the plugin scope', async () => {
      for (const q of ['limit=0', 'limit=1001', 'limit=abc', 'level=loud', 'since=yesterday', 'other=1']) {
        const r = await instance.call('GET', `${RECENT}?${q}`, { authorization: TEST_API_KEY });
        assert.equal(r.status, 400, `${q}: ${r.text}`);
        assert.equal(r.json.code, 'validation_failed');
      }
      assert.equal((await instance.call('GET', RECENT, { token: null })).status, 401);
      const form = `grant_type=client_credentials&client_id=${TEST_CLIENT_ID}&client_secret=${TEST_CLIENT_SECRET}&scope=${encodeURIComponent('user/*.*')}`;
      const t = await instance.call('POST', '/auth/token/', { token: null, raw: { contentType: 'application/x-www-form-urlencoded', data: form } });
      const r = await instance.call('GET', RECENT, { token: t.json.access_token });
      assert.equal(r.status, 403);
      assert.equal(r.json.code, 'forbidden');
    });
  });
});
