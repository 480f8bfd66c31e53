// Scheduled tasks on a real instance, on each engine (docs/plugins.md, "Scheduled tasks"): real
// plugins installed through the plugin API, the scheduler's clock a file the test writes
// (CHARTA_TEST_SCHEDULER_CLOCK) and its own timer an hour apart (CHARTA_TEST_SCHEDULER_MS), so
// that a tick runs only when the test steps the clock and asks for a pass, or when the registry
// changes (a plugin enabled). A tick runs once with its effects applied as the plugin (a banner
// needs effects:instance: a tick has no patient), a tick from before the plugin was enabled never
// runs, the ticks missed while the instance was down run once after a restart (previous_tick is
// the last one run), a run past its deadline or that throws is recorded and logged and not run
// again, disabling stops the ticks and enabling starts them, deleting the plugin deletes its ticks,
// and the plugin object shows the last tick.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ENGINES, createDatabase, request, testConfig, toReply, tokenFor, TEST_API_KEY, type CallOptions, type TestDatabase } from './support/harness.ts';
import { installPlugin, pluginPackage, setEnabled, type TestHandler } from './support/plugins.ts';
import { until } from './support/until.ts';
import { startServer, type Running } from '../src/server.ts';
import type { LogEntry } from '../src/logs/bus.ts';
import type { PluginHost } from '../src/runtime/host.ts';
import { claimTick, ticksOf } from '../src/storage/plugin-ticks-repository.ts';
import { nowMicros } from '../src/lib/time.ts';

const P = '/core/api/v1/plugins';
const MINUTE = 60_000;
const clockFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'charta-clock-')), 'now');
process.env.CHARTA_TEST_SCHEDULER_CLOCK = clockFile;
process.env.CHARTA_TEST_SCHEDULER_MS = String(3_600_000);

const setClock = (ms: number) => fs.writeFileSync(clockFile, new Date(ms).toISOString());
/** The first whole minute after `ms`. */
const nextMinute = (ms: number) => Math.floor(ms / MINUTE) * MINUTE + MINUTE;

/** A handler that logs its tick and the one before, and may do more. */
const ticker = (className: string, body = '    return [];', schedule = '* * * * *'): TestHandler => ({
  className,
  events: ['CRON'],
  schedule,
  compute: `    this.log.info('tick ' + this.event.context.tick + ' previous ' + this.event.context.previous_tick + ' schedule ' + this.event.context.schedule + ' target ' + this.event.target.id + ' actor ' + this.event.actor.id);\n${body}`,
});

for (const engine of ENGINES) {
  describe(`scheduled tasks (${engine})`, () => {
    let db: TestDatabase;
    let running: Running;
    const host = () => (running.app as unknown as { pluginRuntime: PluginHost }).pluginRuntime;
    const call = (method: string, urlPath: string, options: CallOptions = {}) =>
      request(running.url, method, urlPath, { ...options, authorization: TEST_API_KEY }, '');
    /** A patient, through the API (a staff token). */
    const newPatient = async () => {
      const reply = await request(
        running.url,
        'POST',
        '/core/api/v1/patients/',
        { body: { firstName: 'Tick', lastName: 'Patient' } },
        await tokenFor(running.url),
      );
      assert.equal(reply.status, 201, reply.text);
      return reply.json.key as string;
    };
    const bannersOf = async (patient: string) =>
      (await request(running.url, 'GET', `/core/api/v1/patients/${patient}/banner-alerts/`, {}, await tokenFor(running.url))).json.results as Array<
        Record<string, unknown>
      >;
    const entries = (plugin: string): LogEntry[] => running.app.logs.recent({ plugin }).map((r) => r.entry);
    const ticksLogged = (plugin: string) => entries(plugin).filter((e) => e.source === 'plugin' && e.event.startsWith('tick '));
    /** One pass of the scheduler at the clock's time, and every run it started, ended. */
    const pass = async () => {
      await host().scheduler.pass();
      await host().scheduler.idle();
    };
    const view = async (name: string) => (await call('GET', `${P}/${name}/`)).json;
    const untilRunning = (name: string) =>
      until(
        `${name} running`,
        async () => (await view(name)).runtime.state === 'running',
        20_000,
        () => JSON.stringify(entries(name)),
      );
    const updatedAt = async (name: string) => Date.parse((await view(name)).updated_at);
    /**
     * Installs and enables the plugin with the clock an hour back (no tick is due for it when it
     * starts); answers its first tick: the first whole minute after it was enabled.
     */
    const install = async (name: string, handlers: TestHandler[], extra: Record<string, unknown> = {}, grants: string[] = []) => {
      setClock(Date.now() - 3600_000);
      await installPlugin(running.url, name, handlers, extra, grants);
      await untilRunning(name);
      return nextMinute(await updatedAt(name));
    };

    before(async () => {
      db = await createDatabase(engine);
      running = await startServer(testConfig(db), () => undefined);
    });
    after(async () => {
      await running?.close();
      await db?.drop();
    });

    it('an invalid SCHEDULE, or a CRON handler without one, refuses the install with the reasons (400, nothing stored)', async () => {
      const form = new FormData();
      const pkg = await pluginPackage('bad-schedule', [
        ticker('Words', '    return [];', 'every night'),
        ticker('Minute61', '    return [];', '61 * * * *'),
        { className: 'NoSchedule', events: ['CRON'], compute: '    return [];' },
      ]);
      form.set('package', new Blob([new Uint8Array(pkg)]), 'bad-schedule.tar.gz');
      const reply = await toReply(await fetch(`${running.url}${P}/`, { method: 'POST', body: form, headers: { authorization: TEST_API_KEY } }));
      assert.equal(reply.status, 400, reply.text);
      const reasons = JSON.stringify(reply.json);
      assert.match(reasons, /Words.*SCHEDULE \\"every night\\" must be five fields \(minute hour day-of-month month day-of-week\), UTC/);
      assert.match(reasons, /Minute61.*SCHEDULE \\"61 \* \* \* \*\\" is not a cron expression/);
      assert.match(reasons, /NoSchedule.*its events list CRON but the class declares no SCHEDULE/);
      assert.equal((await call('GET', `${P}/bad-schedule/`)).status, 404);
    });

    it('runs a due tick once, as the plugin, its effects applied; never a tick from before the plugin was enabled; the plugin shows its last tick', async () => {
      const patient = await newPatient();
      const banner = `    return [{ type: 'ADD_BANNER_ALERT', payload: { patient: ${JSON.stringify(patient)}, key: 'overdue', narrative: 'Checked at ' + this.event.context.tick.slice(11, 16), placement: ['chart'], intent: 'info' } }];`;
      const first = await install('nightly', [ticker('Nightly', banner)], {}, ['effects:instance']);
      // The clock just after the plugin was enabled: the latest due tick is from before, and is not run.
      setClock(first - MINUTE + ((await updatedAt('nightly')) % MINUTE) + 1);
      await pass();
      assert.deepEqual(ticksLogged('nightly'), []);
      assert.equal((await view('nightly')).schedules[0].last_tick, null);

      setClock(first + 5_000);
      await pass();
      await pass(); // the same tick again: not run twice
      const lines = ticksLogged('nightly');
      assert.equal(lines.length, 1, JSON.stringify(entries('nightly')));
      const iso = new Date(first).toISOString();
      assert.equal(lines[0]!.event, `tick ${iso} previous null schedule * * * * * target dist/handlers.js:Nightly actor plugin:nightly`);
      assert.equal(lines[0]!.tick, iso);
      assert.equal(lines[0]!.handler, 'dist/handlers.js:Nightly');
      assert.equal(lines[0]!.event_type, 'CRON');
      const ran = entries('nightly').find((e) => /ran the tick/.test(e.event));
      assert.ok(ran, JSON.stringify(entries('nightly')));
      assert.equal(ran.tick, iso);
      const banners = await bannersOf(patient);
      assert.equal(banners.length, 1, JSON.stringify(banners));
      assert.equal(banners[0]!.narrative, `Checked at ${iso.slice(11, 16)}`);
      const rows = await ticksOf(running.storage.db, 'nightly');
      assert.deepEqual(
        rows.map((r) => [r.handler, r.tick, r.outcome]),
        [['dist/handlers.js:Nightly', first * 1000, 'ok']],
      );
      assert.ok(rows[0]!.finished_at !== null);
      const shown = await view('nightly');
      assert.equal(shown.schedules[0].last_tick, new Date(first).toISOString().replace(/\.(\d{3})Z$/, '.$1000Z'));
      const listed = (await call('GET', `${P}/`)).json.results.find((p: { name: string }) => p.name === 'nightly');
      assert.equal(listed.schedules[0].last_tick, shown.schedules[0].last_tick);
    });

    it('a tick without the effects:instance grant has no patient to reach: its banner is refused, logged with the tick', async () => {
      const patient = await newPatient();
      const banner = `    return [{ type: 'ADD_BANNER_ALERT', payload: { patient: ${JSON.stringify(patient)}, key: 'k', narrative: 'no', placement: ['chart'], intent: 'info' } }];`;
      const tick = await install('ungranted', [ticker('Ungranted', banner)]);
      setClock(tick + 1000);
      await pass();
      const refused = entries('ungranted').find((e) => e.success === false && e.fault === 'effect');
      assert.ok(refused, JSON.stringify(entries('ungranted')));
      assert.match(refused.event, /is not the event's patient: the event is about none \(the grant effects:instance allows it\)/);
      assert.equal(refused.tick, new Date(tick).toISOString());
      assert.deepEqual(await bannersOf(patient), []);
    });

    it('a run past its deadline, or one that throws, is recorded and logged with its tick, and is not run again until the next tick', async () => {
      const tick = await install('stuck', [ticker('Stuck', '    for (;;) {}'), ticker('Thrower', "    throw new Error('no luck');")], {
        limits: { timeout_ms: 100 },
      });
      setClock(tick + 1000);
      await pass();
      await pass();
      const rows = await ticksOf(running.storage.db, 'stuck');
      assert.deepEqual(rows.map((r) => [r.handler, r.tick, r.outcome]).sort(), [
        ['dist/handlers.js:Stuck', tick * 1000, 'timeout'],
        ['dist/handlers.js:Thrower', tick * 1000, 'threw'],
      ]);
      const failures = entries('stuck').filter((e) => e.success === false);
      assert.equal(failures.length, 2, JSON.stringify(failures));
      const timeout = failures.find((e) => e.fault === 'timeout')!;
      assert.match(timeout.event, /handler dist\/handlers\.js:Stuck on CRON ran longer than its 100 ms deadline.*; it runs again at its next tick/);
      assert.equal(timeout.tick, new Date(tick).toISOString());
      assert.equal(failures.find((e) => e.fault === 'threw')!.tick, new Date(tick).toISOString());
      // The next tick runs them again.
      setClock(tick + MINUTE + 1000);
      await pass();
      const next = await ticksOf(running.storage.db, 'stuck', 'dist/handlers.js:Thrower');
      assert.deepEqual(
        next.map((r) => [r.tick, r.outcome]),
        [
          [(tick + MINUTE) * 1000, 'threw'],
          [tick * 1000, 'threw'],
        ],
      );
      await setEnabled(running.url, 'stuck', false);
    });

    it('disabling stops the ticks (a claim too), enabling starts them at once, deleting the plugin deletes its ticks', async () => {
      await install('toggled', [ticker('Toggled')]);
      await setEnabled(running.url, 'toggled', false);
      await until('toggled stopped', async () => (await view('toggled')).runtime.state === 'stopped');
      const tick = nextMinute(await updatedAt('toggled'));
      setClock(tick + 1000);
      await pass();
      assert.deepEqual(await ticksOf(running.storage.db, 'toggled'), []);
      // A process that had not seen the plugin disabled yet could not claim its tick either.
      const claimed = await running.storage.transact((trx) =>
        claimTick(trx, { plugin: 'toggled', handler: 'dist/handlers.js:Toggled', tick: tick * 1000, claimer: 'stale', claimedAt: nowMicros() }),
      );
      assert.equal(claimed, undefined);
      assert.deepEqual(await ticksOf(running.storage.db, 'toggled'), []);
      assert.equal((await view('toggled')).schedules[0].next_tick, null);

      // Enabled: the registry's change wakes the scheduler (its own timer is an hour away here), which runs the first tick after the enable.
      const later = nextMinute(Date.now() + 2 * MINUTE);
      setClock(later + 1000);
      await setEnabled(running.url, 'toggled', true);
      const rows = await until('the tick run after the enable', async () => {
        const found = await ticksOf(running.storage.db, 'toggled');
        return found.length > 0 && found[0]!.outcome !== null ? found : undefined;
      });
      assert.deepEqual(
        rows.map((r) => [r.tick, r.outcome]),
        [[later * 1000, 'ok']],
      );
      assert.equal(ticksLogged('toggled').length, 1);

      await setEnabled(running.url, 'toggled', false);
      assert.equal((await call('DELETE', `${P}/toggled/`)).status, 204);
      assert.deepEqual(await ticksOf(running.storage.db, 'toggled'), []);
    });

    it('ticks missed while the instance was down run once when it comes back, previous_tick the last one run', async () => {
      const tick = await install('catchup', [ticker('Catchup')]);
      setClock(tick + 1000);
      await pass();
      assert.equal(ticksLogged('catchup').length, 1);
      await running.close();
      // Ten ticks go by while it is down; then it starts again on the same database.
      const back = tick + 10 * MINUTE;
      setClock(back + 1000);
      running = await startServer(testConfig(db), () => undefined);
      await untilRunning('catchup');
      const lines = await until('the missed tick run', () => (ticksLogged('catchup').length > 0 ? ticksLogged('catchup') : undefined));
      await pass();
      await host().scheduler.idle();
      assert.deepEqual(
        ticksLogged('catchup').map((e) => e.event.split(' ').slice(0, 4).join(' ')),
        [`tick ${new Date(back).toISOString()} previous ${new Date(tick).toISOString()}`],
        JSON.stringify(lines),
      );
      const rows = await ticksOf(running.storage.db, 'catchup');
      assert.deepEqual(
        rows.map((r) => [r.tick, r.outcome]),
        [
          [back * 1000, 'ok'],
          [tick * 1000, 'ok'],
        ],
      );
    });
  });
}
