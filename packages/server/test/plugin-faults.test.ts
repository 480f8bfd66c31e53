// A plugin's faults stay its own on a real instance (docs/plugins.md, "Faults"), on each engine,
// with real plugins installed through the plugin API: a PRE handler
// that cannot answer follows its declared on_failure (allow: the change goes ahead, said in an
// error line naming the command and the plugin; refuse: 503 plugin_unavailable, nothing written);
// a built-in running past the deadline in one plugin's PRE handler touches neither the runner nor
// another plugin, commit after commit; and a plugin whose load hangs at a later reload (a time
// bomb) is listed as failing, tried again with back-off, and runs again once it loads, while every
// other plugin is loaded again and runs.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ENGINES, startInstance, TEST_API_KEY, type Instance } from './support/harness.ts';
import { installPlugin, setEnabled, type TestHandler, type TestModule } from './support/plugins.ts';
import { until } from './support/until.ts';
import type { LogEntry } from '../src/logs/bus.ts';
import { openJsonSocket } from './support/websockets.ts';
import { countPluginEvents } from '../src/storage/plugin-events-repository.ts';

const C = '/core/api/v1/commands';
const P = '/core/api/v1/plugins';

for (const engine of ENGINES) {
  describe(`plugin faults stay the plugin's own (${engine})`, () => {
    let api: Instance;
    const entries = (plugin?: string): LogEntry[] => api.app.logs.recent({ plugin }).map((r) => r.entry);
    const lines = (plugin: string) => entries(plugin).filter((e) => e.source === 'plugin');
    const failures = (plugin: string) => entries(plugin).filter((e) => e.success === false);
    const plugin = async (name: string) => (await api.call('GET', `${P}/${name}/`, { authorization: TEST_API_KEY })).json;
    const install = async (name: string, handlers: TestHandler[], extra?: Record<string, unknown>, module?: TestModule) => {
      await installPlugin(api.url, name, handlers, extra, [], module);
      await until(
        `${name} running`,
        async () => (await plugin(name)).runtime.state === 'running',
        20_000,
        () => JSON.stringify(entries(name)),
      );
    };
    const disable = async (name: string) => {
      await setEnabled(api.url, name, false);
      await until(`${name} stopped`, async () => (await plugin(name)).runtime.state === 'stopped');
    };

    before(async () => {
      api = await startInstance(engine, { demo: true });
    });
    after(async () => api?.stop());

    it('a PRE handler that cannot answer: on_failure allow lets the change go ahead, said in an error line naming the command and the plugin', async () => {
      await install('lenient', [{ className: 'Stuck', events: ['PLAN_COMMAND__PRE_COMMIT'], compute: '    for (;;) {}', onFailure: 'allow' }], {
        limits: { timeout_ms: 100 },
      });
      const plan = await api.command('plan', { narrative: 'Go ahead' });
      const committed = await api.call('POST', `${C}/${plan.uuid}/commit/`);
      assert.equal(committed.status, 200, committed.text);
      const line = failures('lenient').find((e) => e.event_type === 'PLAN_COMMAND__PRE_COMMIT');
      assert.ok(line, JSON.stringify(entries('lenient')));
      assert.match(line.event, /ran longer than its 100 ms deadline/);
      assert.match(line.event, new RegExp(`the change to command ${plan.uuid} goes ahead \\(on_failure: allow\\)`));
      assert.equal(line.level, 'error');
      await disable('lenient');
    });

    it('a PRE handler that cannot answer: on_failure refuse refuses the change with 503 plugin_unavailable, and nothing is written', async () => {
      await install(
        'strict',
        [
          { className: 'Stuck', events: ['PLAN_COMMAND__PRE_COMMIT'], compute: '    for (;;) {}', onFailure: 'refuse' },
          { className: 'Fine', events: ['PLAN_COMMAND__PRE_UPDATE'], compute: '    return [];', onFailure: 'refuse' },
        ],
        { limits: { timeout_ms: 100 } },
      );
      const plan = await api.command('plan', { narrative: 'Hold on' });
      const refused = await api.call('POST', `${C}/${plan.uuid}/commit/`);
      assert.equal(refused.status, 503, refused.text);
      assert.equal(refused.json.code, 'plugin_unavailable');
      assert.match(refused.json.detail, /strict must check this change and could not/);
      assert.deepEqual(
        refused.json.errors.map((e: Record<string, string>) => [e.field, e.plugin]),
        [['command', 'strict']],
      );
      assert.match(refused.json.errors[0].message, /handler dist\/handlers\.js:Stuck ran longer than its 100 ms deadline/);
      assert.equal((await api.call('GET', `${C}/${plan.uuid}/`)).json.state, 'staged', 'nothing was written');
      const line = failures('strict').find((e) => e.event_type === 'PLAN_COMMAND__PRE_COMMIT');
      assert.match(line!.event, new RegExp(`the change to command ${plan.uuid} is refused \\(on_failure: refuse\\)`));
      // A refuse handler that answers lets its change through.
      const patched = await api.call('PATCH', `${C}/${plan.uuid}/`, { body: { values: { narrative: 'Checked' } } });
      assert.equal(patched.status, 200, patched.text);
      await disable('strict');
      const later = await api.call('POST', `${C}/${plan.uuid}/commit/`);
      assert.equal(later.status, 200, later.text);
    });

    it("a built-in running past the deadline in one plugin's PRE handler ends only its isolate, commit after commit", async () => {
      await install(
        'attacker',
        [{ className: 'Attack', events: ['PLAN_COMMAND__PRE_COMMIT'], compute: '    Array.prototype.indexOf.call({ length: 2 ** 40 }, 1);\n    return [];' }],
        { limits: { timeout_ms: 200 } },
      );
      await install(
        'checker',
        [
          {
            className: 'Count',
            events: ['PLAN_COMMAND__PRE_COMMIT'],
            compute: "    counted++;\n    this.log.info('checked ' + counted);\n    return [];",
            onFailure: 'refuse',
          },
        ],
        {},
        { prelude: 'let counted = 0;' },
      );
      const pid = api.app.pluginRuntime.runner.pid;
      for (let i = 1; i <= 4; i++) {
        const plan = await api.command('plan', { narrative: `Commit ${i}` });
        const committed = await api.call('POST', `${C}/${plan.uuid}/commit/`);
        // The checker (refuse) ran each time: had it been skipped, the commit would be refused.
        assert.equal(committed.status, 200, committed.text);
      }
      // The checker kept its module state: it was never reloaded.
      assert.deepEqual(
        lines('checker').map((e) => e.event),
        ['checked 1', 'checked 2', 'checked 3', 'checked 4'],
      );
      const ended = failures('attacker').filter((e) => /inside a built-in that never checks it; its isolate was ended/.test(e.event));
      assert.equal(ended.length, 4, JSON.stringify(failures('attacker')));
      assert.equal(api.app.pluginRuntime.runner.pid, pid, 'the runner process was never restarted');
      await disable('attacker');
      await disable('checker');
    });

    it('a slow PRE handler holds up no other write: the commits after it are answered first, and it is called once', async () => {
      await install(
        'deliberate',
        [
          {
            className: 'Think',
            events: ['HISTORY_OF_PRESENT_ILLNESS_COMMAND__PRE_COMMIT'],
            compute:
              "    for (const end = Date.now() + 1200; Date.now() < end; );\n    this.log.info('thought about ' + this.event.target.id);\n    return [];",
          },
        ],
        { limits: { timeout_ms: 3000 } },
      );
      const hpi = await api.command('hpi', { narrative: 'Needs a moment' });
      const plans = await Promise.all([1, 2, 3].map((i) => api.command('plan', { narrative: `plain ${i}` })));
      const answered: string[] = [];
      const commit = (uuid: string, what: string) =>
        api.call('POST', `${C}/${uuid}/commit/`).then((r) => {
          assert.equal(r.status, 200, r.text);
          answered.push(what);
        });
      const slow = commit(hpi.uuid, 'hpi');
      // The plans are committed once the HPI's check is under way.
      await until('the HPI check under way', () => api.app.pluginRuntime.runner.begun > 0);
      await Promise.all(plans.map((p, i) => commit(p.uuid, `plan ${i + 1}`)));
      await slow;
      assert.deepEqual(answered.slice(-1), ['hpi'], JSON.stringify(answered));
      assert.equal((await api.call('GET', `${C}/${hpi.uuid}/`)).json.state, 'committed');
      assert.deepEqual(
        lines('deliberate').map((e) => e.event),
        [`thought about ${hpi.uuid}`],
        'the handler was called once, though its write ran again',
      );
      await disable('deliberate');
    });

    it("a plugin's slow POST handler holds up neither other events nor another plugin's handler of the same event", async () => {
      await install(
        'slowpoke',
        [
          {
            className: 'Slow',
            events: ['HISTORY_OF_PRESENT_ILLNESS_COMMAND__POST_COMMIT', 'GOAL_COMMAND__POST_COMMIT'],
            compute: "    for (const end = Date.now() + 1500; Date.now() < end; );\n    this.log.info('slow done ' + this.event.type);\n    return [];",
          },
        ],
        { limits: { timeout_ms: 3000 } },
      );
      await install('quick', [
        {
          className: 'Quick',
          events: ['PLAN_COMMAND__POST_COMMIT', 'GOAL_COMMAND__POST_COMMIT'],
          compute: "    this.log.info('quick done ' + this.event.type);\n    return [];",
        },
      ]);
      const order = () =>
        entries()
          .filter((e) => e.source === 'plugin' && (e.plugin === 'slowpoke' || e.plugin === 'quick'))
          .map((e) => e.event);
      // Another event: a plan committed while the slow handler runs on an HPI.
      const hpi = await api.command('hpi', { narrative: 'Slow to answer' });
      assert.equal((await api.call('POST', `${C}/${hpi.uuid}/commit/`)).status, 200);
      const plan = await api.command('plan', { narrative: 'Quick to answer' });
      assert.equal((await api.call('POST', `${C}/${plan.uuid}/commit/`)).status, 200);
      await until('both lines', () => order().length === 2);
      assert.deepEqual(order(), ['quick done PLAN_COMMAND__POST_COMMIT', 'slow done HISTORY_OF_PRESENT_ILLNESS_COMMAND__POST_COMMIT']);
      // The same event: both plugins listen to a goal's commit.
      const goal = await api.command('goal', { goal_statement: 'Walk daily', start_date: '2026-11-25' });
      assert.equal((await api.call('POST', `${C}/${goal.uuid}/commit/`)).status, 200, 'goal committed');
      await until('four lines', () => order().length === 4);
      assert.deepEqual(order().slice(2), ['quick done GOAL_COMMAND__POST_COMMIT', 'slow done GOAL_COMMAND__POST_COMMIT']);
      await disable('slowpoke');
      await disable('quick');
    });

    it("another plugin's log flood does not push a plugin's faults out of the history; its fault counts say them", async () => {
      await install('victim', [
        { className: 'Broken', events: ['HISTORY_OF_PRESENT_ILLNESS_COMMAND__POST_COMMIT'], compute: "    throw new Error('victim fault');" },
      ]);
      await install('flooder', [
        {
          className: 'Chatter',
          events: ['PLAN_COMMAND__POST_COMMIT'],
          compute: "    for (let i = 0; i < 100; i++) this.log.info('flood ' + i);\n    return [];",
        },
      ]);
      const faultLines = (list: Array<Record<string, unknown>>) => list.filter((e) => e.plugin === 'victim' && e.success === false && e.fault === 'threw');
      for (let i = 0; i < 4; i++) {
        const hpi = await api.command('hpi', { narrative: `fault ${i}` });
        assert.equal((await api.call('POST', `${C}/${hpi.uuid}/commit/`)).status, 200);
      }
      await until('four victim faults', () => faultLines(entries('victim') as never).length >= 4);
      for (let i = 0; i < 12; i++) {
        const plan = await api.command('plan', { narrative: `flood ${i}` });
        assert.equal((await api.call('POST', `${C}/${plan.uuid}/commit/`)).status, 200);
      }
      await until('the flood delivered', async () => {
        await api.app.pluginRuntime.delivery.idle();
        return (await countPluginEvents(api.storage.db)) === 0;
      });
      // The shared history holds the newest 1,000 entries: the flood alone.
      const all = (await api.call('GET', '/core/api/v1/logging/recent/?limit=1000', { authorization: TEST_API_KEY })).json.results;
      assert.ok(
        all.every((e: { plugin?: string; success?: boolean }) => e.plugin !== 'victim' || e.success === false),
        "only the victim's faults outlived the flood",
      );
      const recent = (await api.call('GET', '/core/api/v1/logging/recent/?plugin=victim', { authorization: TEST_API_KEY })).json.results;
      assert.equal(faultLines(recent).length, 4, JSON.stringify(recent));
      assert.ok(faultLines(recent).every((e) => /threw Error: victim fault/.test(String(e.event))));
      // The since= replay of the stream, of the plugin and of everything, has them too.
      for (const query of ['plugin=victim&since=1h', 'since=1h']) {
        const socket = await openJsonSocket(`${api.url.replace('http', 'ws')}/core/api/v1/logging/?${query}`, { authorization: TEST_API_KEY });
        try {
          await until(`the replay of ${query}`, () => faultLines(socket.messages).length === 4);
        } finally {
          socket.close();
        }
      }
      const faults = (await plugin('victim')).faults;
      assert.deepEqual(faults.last_hour, { failures: 4, timeouts: 0 });
      assert.deepEqual(faults.last_day, { failures: 4, timeouts: 0 });
      assert.equal(faults.last_error.fault, 'threw');
      assert.match(faults.last_error.message, /threw Error: victim fault/);
      // The handler and the event it was given, from the failure line's own members.
      assert.equal(faults.last_error.handler, 'dist/handlers.js:Broken');
      assert.equal(faults.last_error.event_type, 'HISTORY_OF_PRESENT_ILLNESS_COMMAND__POST_COMMIT');
      assert.deepEqual((await plugin('flooder')).faults, { last_hour: { failures: 0, timeouts: 0 }, last_day: { failures: 0, timeouts: 0 }, last_error: null });
      await disable('victim');
      await disable('flooder');
    });

    it('a plugin whose reload hangs (a time bomb) is failing and tried again with back-off; the others are loaded again and run; it runs again once it loads', async () => {
      // Its module evaluates in time at install, hangs in a built-in for a few seconds after, then is fine again.
      const from = Date.now() + 2000;
      const bombEnds = from + 3500;
      await install(
        'bomb',
        [{ className: 'Tick', events: ['PLAN_COMMAND__POST_COMMIT'], compute: "    this.log.info('tick');\n    return [];" }],
        { limits: { timeout_ms: 200 } },
        { prelude: `if (Date.now() > ${from} && Date.now() < ${bombEnds}) Array.prototype.indexOf.call({ length: 2 ** 40 }, 1);` },
      );
      await install('innocent', [
        {
          className: 'Note',
          events: ['PLAN_COMMAND__POST_COMMIT'],
          compute: "    this.log.info('innocent saw ' + this.event.context.command.uuid);\n    return [];",
        },
      ]);
      while (Date.now() <= from) await new Promise((resolve) => setTimeout(resolve, 50));
      const runner = api.app.pluginRuntime.runner;
      const pid = runner.pid!;
      process.kill(pid, 'SIGKILL');
      const failing = await until('the bomb failing', async () => {
        const view = await plugin('bomb');
        return view.runtime.state === 'failing' ? view : undefined;
      });
      assert.equal(failing.is_enabled, true);
      assert.match(failing.runtime.detail, /without stopping at the deadline .*its isolate was ended/);
      assert.ok(Date.parse(failing.runtime.retry_at) > Date.parse(failing.runtime.since));
      assert.ok(failing.runtime.failed_loads >= 1);
      const listed = (await api.call('GET', `${P}/?limit=100`, { authorization: TEST_API_KEY })).json.results;
      assert.equal(listed.find((p: { name: string }) => p.name === 'bomb').runtime.state, 'failing');
      assert.ok(failures('bomb').some((e) => /failed to load \(1 time in a row; tried again in 1 s\)/.test(e.event)));

      // The innocent plugin was loaded again and runs.
      assert.equal((await plugin('innocent')).runtime.state, 'running');
      const plan = await api.command('plan', { narrative: 'After the restart' });
      assert.equal((await api.call('POST', `${C}/${plan.uuid}/commit/`)).status, 200);
      await until('the innocent handler', () => lines('innocent').some((e) => e.event === `innocent saw ${plan.uuid}`));

      // Past its hour the bomb loads again, and runs.
      await until('the bomb running again', async () => (await plugin('bomb')).runtime.state === 'running', 30_000);
      const next = await api.command('plan', { narrative: 'Once it loads' });
      assert.equal((await api.call('POST', `${C}/${next.uuid}/commit/`)).status, 200);
      await until('the bomb handler', () => lines('bomb').some((e) => e.event === 'tick'));
      await disable('bomb');
      await disable('innocent');
      assert.equal((await plugin('bomb')).runtime.state, 'stopped');
    });
  });
}
