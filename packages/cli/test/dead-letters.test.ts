// `charta plugin dead-letters list|replay|discard` through the real binary against a real instance
// (both engines; docs/cli.md): a handler that always times out leaves dead letters (one attempt
// configured), listed newest first in one line, one discarded, one replayed (its event back in the
// outbox), an unknown letter or plugin a 404 line, a wrong key a 401 line, bad arguments usage
// lines with nothing sent.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { ENGINES, TEST_API_KEY, startInstance, type Instance } from '../../server/test/support/harness.ts';
import { runtimeWatch } from '../../server/test/support/plugins.ts';
import { until } from '../../server/test/support/until.ts';
import { charta, single, tempDir } from './support/cli.ts';

const P = '/core/api/v1/plugins';

for (const engine of ENGINES) {
  describe(`charta plugin dead-letters (${engine})`, () => {
    let api: Instance;
    const dir = tempDir('charta-dead-letters-');
    const env = { CHARTA_CONFIG_DIR: path.join(dir, 'config') };
    const cli = (...args: string[]) => charta(args, env);
    const { install } = runtimeWatch(() => api);
    const listed = async () => (await api.call('GET', `${P}/late/dead-letters/`, { authorization: TEST_API_KEY })).json;

    before(async () => {
      api = await startInstance(engine, { pluginDeliveryAttempts: 1 });
      single(await cli('auth', 'add-api-key', '--host', api.url, '--api-key', TEST_API_KEY, '--is-default'), 0);
      await install('late', [{ className: 'Late', events: ['PLAN_COMMAND__POST_COMMIT'], compute: '    for (;;) {}' }], {
        limits: { timeout_ms: 50 },
      });
      for (const narrative of ['one', 'two']) {
        const plan = await api.command('plan', { narrative });
        assert.equal((await api.call('POST', `/core/api/v1/commands/${plan.uuid}/commit/`)).status, 200);
      }
      await until('two dead letters', async () => (await listed()).count === 2);
    });
    after(async () => api?.stop());

    it('lists the dead letters newest first, discards one, replays one', async () => {
      const all = single(await cli('plugin', 'dead-letters', 'list', 'late'), 0);
      assert.deepEqual(Object.keys(all), ['success', 'message', 'status_code']);
      assert.equal(all.status_code, 200);
      const message = all.message as { count: number; results: Array<Record<string, any>> };
      assert.equal(message.count, 2);
      assert.deepEqual(message.results, (await listed()).results);
      const [newer, older] = message.results as [Record<string, any>, Record<string, any>];
      assert.ok(newer.id > older.id);
      assert.equal(newer.handler, 'dist/handlers.js:Late');
      assert.equal(newer.attempts, 1);
      assert.match(newer.last_error, /ran longer than its 50 ms deadline/);

      assert.deepEqual(single(await cli('plugin', 'dead-letters', 'discard', 'late', String(older.id)), 0), { success: true, status_code: 204 });
      const replayed = single(await cli('plugin', 'dead-letters', 'replay', 'late', String(newer.id), '--host', api.url, '--api-key', TEST_API_KEY), 0);
      assert.deepEqual(replayed, { success: true, message: newer, status_code: 202 });
      // Both left the list (the replayed event, failing again, comes back as a new letter).
      const after = single(await cli('plugin', 'dead-letters', 'list', 'late'), 0).message as { results: Array<{ id: number }> };
      assert.ok(
        after.results.every((l) => l.id !== newer.id && l.id !== older.id),
        JSON.stringify(after),
      );

      const gone = single(await cli('plugin', 'dead-letters', 'discard', 'late', String(older.id)), 1);
      assert.equal(gone.status_code, 404);
      assert.equal((gone.message as Record<string, unknown>).code, 'dead_letter_not_found');
      const unknown = single(await cli('plugin', 'dead-letters', 'list', 'no-such-plugin'), 1);
      assert.equal(unknown.status_code, 404);
      assert.equal((unknown.message as Record<string, unknown>).code, 'plugin_not_found');
    });

    it('a wrong API key is a 401 failure line, exit 1', async () => {
      for (const args of [
        ['plugin', 'dead-letters', 'list', 'late'],
        ['plugin', 'dead-letters', 'replay', 'late', '1'],
        ['plugin', 'dead-letters', 'discard', 'late', '1'],
      ]) {
        const line = single(await cli(...args, '--api-key', 'wrong-key'), 1);
        assert.equal(line.success, false);
        assert.equal(line.status_code, 401);
      }
    });
  });
}

describe('charta plugin dead-letters (no instance needed)', () => {
  const dir = tempDir('charta-dead-letters-args-');
  const env = { CHARTA_CONFIG_DIR: path.join(dir, 'config'), CHARTA_HOST: 'http://127.0.0.1:1', CHARTA_API_KEY: 'k' };

  it('bad arguments are usage-error lines, exit 2, nothing sent', async () => {
    const cases: Array<[string[], RegExp]> = [
      [['plugin', 'dead-letters', 'list'], /missing required argument/],
      [['plugin', 'dead-letters', 'replay', 'x'], /missing required argument/],
      [['plugin', 'dead-letters', 'discard', 'x'], /missing required argument/],
      [['plugin', 'dead-letters', 'replay', 'x', 'abc'], /dead letter id must be a positive integer/],
      [['plugin', 'dead-letters', 'discard', 'x', '0'], /dead letter id must be a positive integer/],
      [['plugin', 'dead-letters', 'replay', ' ', '1'], /The plugin name is empty/],
      [['plugin', 'dead-letters'], /Missing command; run `charta plugin dead-letters --help`/],
    ];
    for (const [args, message] of cases) {
      const line = single(await charta(args, env), 2);
      assert.equal(line.success, false, args.join(' '));
      assert.match(String(line.message), message, args.join(' '));
    }
  });
});
