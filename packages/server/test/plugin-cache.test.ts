// A plugin's cache (docs/plugins.md, "Cache"), on each engine, with real plugins installed through
// the plugin API and run in the sandbox: values kept between calls and answered as JSON, a time to
// live, the limits (a key, a value of 64 KiB of JSON, 1 MiB per plugin) refused as typed errors
// with nothing stored, a PRE handler that may read but not write, one plugin's cache apart from
// another's, and the cache gone with the plugin.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ENGINES, startInstance, type Instance } from './support/harness.ts';
import { installPlugin, settle, type TestHandler } from './support/plugins.ts';
import { until } from './support/until.ts';
import type { LogEntry } from '../src/logs/bus.ts';
import { CACHE_PLUGIN_MAX_CHARS, CACHE_VALUE_MAX_CHARS } from '@charta/api/constants';
import { nowMicros } from '../src/lib/time.ts';
import { cacheBinding, memoryCacheStore } from '../src/runtime/cache.ts';
import type { CallContext } from '../src/runtime/calls.ts';
import type { JsonObject } from '../src/runtime/sandbox/types.ts';

const C = '/core/api/v1/commands';

/**
 * Runs the cache calls a plan's narrative lists as JSON (`[["set", key, value, options?],
 * ["get", key], ["delete", key], ["fill", prefix, count, chars]]`) and logs one line per call:
 * its answer, or its error's name, code and message. `fill` sets `count` keys of `chars` x's.
 */
const CACHER = (className: string, event: string): TestHandler => ({
  className,
  events: [event],
  async: true,
  compute: `    const text = this.event.context.fields?.narrative ?? '';
    if (!text.startsWith('[')) return [];
    const run = async ([op, key, value, options]) => {
      if (op === 'set') { await this.cache.set(key, value, options); return 'set'; }
      if (op === 'fill') { for (let i = 0; i < value; i++) await this.cache.set(key + i, 'x'.repeat(options)); return 'filled'; }
      return this.cache[op](key);
    };
    for (const call of JSON.parse(text)) {
      try {
        this.log.info(JSON.stringify({ ok: await run(call) }));
      } catch (e) {
        this.log.info(JSON.stringify({ error: { name: e.name, code: e.code ?? null, message: e.message } }));
      }
    }
    return [];`,
});

for (const engine of ENGINES) {
  describe(`plugins keep a cache (${engine})`, () => {
    let api: Instance;
    const seen: LogEntry[] = [];
    let noteKey: string;

    const install = async (name: string, handlers: TestHandler[]) => {
      await installPlugin(api.url, name, handlers);
      await until(`${name} running`, () => seen.find((e) => e.plugin === name && /running: \d+ handler/.test(e.event)));
    };
    /** What the plugin's handler answered to each call, for a plan originated with these calls. */
    const calls = async (plugin: string, list: unknown[]): Promise<any[]> => {
      const from = seen.length;
      const r = await api.call('POST', `${C}/`, { body: { schemaKey: 'plan', noteKey, values: { narrative: JSON.stringify(list) } } });
      assert.equal(r.status, 201, r.text);
      await settle(api);
      const lines = seen.slice(from).filter((e) => e.plugin === plugin && e.source === 'plugin');
      assert.equal(lines.length, list.length, JSON.stringify(seen.slice(from).map((e) => e.event)));
      return lines.map((l) => JSON.parse(l.event));
    };
    /** The plugin's live rows (a row past its expiry stays until the plugin's next write). */
    const rows = async (plugin: string) =>
      (await api.storage.db.selectFrom('plugin_cache').select(['key', 'size', 'expires_at']).where('plugin_name', '=', plugin).orderBy('key').execute())
        .filter((r) => r.expires_at === null || Number(r.expires_at) > nowMicros())
        .map(({ key, size }) => ({ key, size }));

    before(async () => {
      api = await startInstance(engine);
      api.app.logs.subscribe((entry) => seen.push(entry));
      ({ noteKey } = await api.note());
      await install('keeper', [CACHER('Keeper', 'PLAN_COMMAND__POST_ORIGINATE')]);
    });
    after(async () => api?.stop());

    it('keeps JSON values between calls; get of an unknown key is null; delete says whether it was there', async () => {
      const value = { count: 1, tags: ['a', 'b'], nested: { ok: true, none: null } };
      assert.deepEqual(
        await calls('keeper', [
          ['set', 'state', value],
          ['get', 'missing'],
        ]),
        [{ ok: 'set' }, { ok: null }],
      );
      assert.deepEqual(await calls('keeper', [['get', 'state']]), [{ ok: value }], 'a later call (its own event) reads it');
      assert.deepEqual(
        await calls('keeper', [
          ['delete', 'state'],
          ['delete', 'state'],
          ['get', 'state'],
        ]),
        [{ ok: true }, { ok: false }, { ok: null }],
      );
    });

    it('a value past its ttl is gone', async () => {
      assert.deepEqual(
        await calls('keeper', [
          ['set', 'brief', 'soon gone', { ttl: 1 }],
          ['get', 'brief'],
        ]),
        [{ ok: 'set' }, { ok: 'soon gone' }],
      );
      await new Promise((resolve) => setTimeout(resolve, 1100));
      assert.deepEqual(await calls('keeper', [['get', 'brief']]), [{ ok: null }]);
    });

    it('bad keys, ttls and values are typed errors; a value over 64 KiB and a cache over 1 MiB are refused with nothing stored', async () => {
      const answers = await calls('keeper', [
        ['set', '', 1],
        ['get', 'k'.repeat(257)],
        ['set', 'ttl', 1, { ttl: 0 }],
        ['set', 'ttl', 1, { ttl: 1.5 }],
        ['fill', 'big', 1, CACHE_VALUE_MAX_CHARS],
      ]);
      for (const a of answers.slice(0, 4)) assert.equal(a.error?.code, 'invalid', JSON.stringify(a));
      assert.equal(answers[4].error.name, 'DataError');
      assert.equal(answers[4].error.code, 'too_large');
      assert.match(answers[4].error.message, /at most 65536 characters of JSON; this one has 65538/);
      assert.deepEqual(await rows('keeper'), [], 'nothing stored');

      // 17 entries of about 60,000 characters fit in 1 MiB (1,048,576 characters); the 18th does not, and is not stored.
      const fill = await calls('keeper', [['fill', 'part', 18, 60_000]]);
      assert.equal(fill[0].error.code, 'cache_full', JSON.stringify(fill));
      const stored = await rows('keeper');
      const total = stored.reduce((n, r) => n + Number(r.size), 0);
      assert.ok(total <= CACHE_PLUGIN_MAX_CHARS, `${total} characters stored`);
      assert.equal(stored.length, 17, 'every entry that fit, and no more');
      assert.ok(total + 6 + 60_002 > CACHE_PLUGIN_MAX_CHARS, 'the 18th would not have fit');
      // Replacing a key counts its new size, not both.
      assert.deepEqual(
        await calls('keeper', [
          ['set', 'part0', 'small'],
          ['get', 'part0'],
        ]),
        [{ ok: 'set' }, { ok: 'small' }],
      );
    });

    it('a PRE handler reads the cache but may not write it; another plugin has a cache of its own; deleting the plugin deletes its cache', async () => {
      await install('checker', [CACHER('Check', 'PLAN_COMMAND__PRE_ORIGINATE'), CACHER('Other', 'PLAN_COMMAND__POST_ORIGINATE')]);
      const from = seen.length;
      const r = await api.call('POST', `${C}/`, {
        body: {
          schemaKey: 'plan',
          noteKey,
          values: {
            narrative: JSON.stringify([
              ['get', 'part1'],
              ['set', 'mine', 1],
            ]),
          },
        },
      });
      assert.equal(r.status, 201, r.text);
      await settle(api);
      const lines = seen.slice(from).filter((e) => e.plugin === 'checker' && e.source === 'plugin' && e.handler === 'dist/handlers.js:Check');
      const [read, write] = lines.map((l) => JSON.parse(l.event));
      assert.deepEqual(read, { ok: null }, "keeper's keys are not checker's");
      assert.equal(write.error.code, 'not_allowed');
      assert.match(write.error.message, /a PRE handler may read the cache, not write it/);
      assert.deepEqual(
        (await rows('checker')).map((r) => r.key),
        ['mine'],
        "the POST handler's set is there, the PRE handler's is not (both set 'mine')",
      );

      assert.ok((await rows('keeper')).length > 0);
      assert.equal((await api.call('DELETE', '/core/api/v1/plugins/keeper/?force=true')).status, 204);
      const left = await api.storage.db.selectFrom('plugin_cache').select('key').where('plugin_name', '=', 'keeper').execute();
      assert.deepEqual(left, [], 'its cache went with it, expired rows too');
      assert.equal((await rows('checker')).length, 1, "another plugin's stays");
    });
  });
}

describe("a plugin's cache outside an instance (charta plugin test and run: runtime/local.ts)", () => {
  const call = (pre = false) =>
    ({
      handler: { plugin: 'p' },
      type: pre ? 'PLAN_COMMAND__PRE_COMMIT' : 'PLAN_COMMAND__POST_COMMIT',
      event: {},
      requestId: 'r',
      pre,
      reads: { count: 0, rows: 0, overBudget: null, databaseUnavailable: false },
    }) as unknown as CallContext;

  it('holds the same limits and rules over memory as the instance’s over its database', async () => {
    const cache = cacheBinding(memoryCacheStore());
    const ask = (args: JsonObject, pre = false) => cache('p', args, call(pre));
    assert.deepEqual(await ask({ op: 'set', key: 'k', value: { a: 1 } }), { value: null });
    assert.deepEqual(await ask({ op: 'get', key: 'k' }), { value: { a: 1 } });
    assert.deepEqual(
      await cache('q', { op: 'get', key: 'k' }, { ...call(), handler: { plugin: 'q' } } as unknown as CallContext),
      { value: null },
      'per plugin',
    );
    assert.equal(((await ask({ op: 'set', key: 'x', value: 1 }, true)) as { error: { code: string } }).error.code, 'not_allowed');
    const big = 'x'.repeat(60_000);
    for (let i = 0; i < 17; i++) assert.deepEqual(await ask({ op: 'set', key: `part${i}`, value: big }), { value: null });
    assert.equal(((await ask({ op: 'set', key: 'part17', value: big })) as { error: { code: string } }).error.code, 'cache_full');
    assert.equal(((await ask({ op: 'set', key: 'v', value: 'x'.repeat(CACHE_VALUE_MAX_CHARS) })) as { error: { code: string } }).error.code, 'too_large');
    assert.deepEqual(await ask({ op: 'delete', key: 'part0' }), { value: true });
    assert.deepEqual(await ask({ op: 'set', key: 'part17', value: big }), { value: null }, 'room again once one is deleted');
  });
});
