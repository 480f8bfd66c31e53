// Scheduled tasks across real `charta-server` processes on one PostgreSQL database (docs/plugins.md,
// "Scheduled tasks"): the clock of every process is a file the test writes
// (CHARTA_TEST_SCHEDULER_CLOCK) and each looks for due ticks every 20 ms, so both race for every
// tick. Two processes, ten ticks: each tick runs exactly once (one handler line per tick on the log
// stream, which carries both processes' lines). And the database going away during a tick: the
// process stays up, says so on the log stream, the tick's row keeps no outcome, and the next tick
// runs once the database is back.
import { after, before, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import WebSocket from 'ws';
import { createDatabase, describeOnPostgres, PG_ADMIN_URL, TEST_API_KEY, toReply, type TestDatabase } from './support/harness.ts';
import { startServerProcess, stopAll, type ServerProcess } from './support/processes.ts';
import { installPlugin, type TestHandler } from './support/plugins.ts';
import { until } from './support/until.ts';

const MINUTE = 60_000;
const nextMinute = (ms: number) => Math.floor(ms / MINUTE) * MINUTE + MINUTE;

describeOnPostgres('scheduled tasks on several processes (postgres)', () => {
  let db: TestDatabase;
  let a: ServerProcess;
  let b: ServerProcess;
  /** A connection of the test's own (kept while the database refuses new ones). */
  let client: pg.Client;
  const clockFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'charta-clock-')), 'now');
  const setClock = (ms: number) => fs.writeFileSync(clockFile, new Date(ms).toISOString());
  const dbName = () => new URL(db.url).pathname.slice(1);
  const admin = async (query: string) => {
    const c = new pg.Client({ connectionString: PG_ADMIN_URL });
    await c.connect();
    try {
      await c.query(query);
    } finally {
      await c.end();
    }
  };
  const ticks = async (plugin: string) =>
    (
      await client.query<{ handler: string; tick: string; claimed_by: string; outcome: string | null }>(
        'SELECT handler, tick, claimed_by, outcome FROM plugin_ticks WHERE plugin_name = $1 ORDER BY tick',
        [plugin],
      )
    ).rows.map((r) => ({ ...r, tick: Number(r.tick) }));
  const view = async (server: ServerProcess, name: string) =>
    (await toReply(await fetch(`${server.url}/core/api/v1/plugins/${name}/`, { headers: { authorization: TEST_API_KEY } }))).json;
  const runningOn = (server: ServerProcess, name: string) =>
    until(`${name} running on ${server.url}`, async () => (await view(server, name))?.runtime?.state === 'running', 30_000);
  /** Follows the log stream of `server` for the plugin: every entry, in order. */
  const follow = async (server: ServerProcess, plugin: string) => {
    const seen: Array<{ event: string; source: string; tick?: string; success?: boolean }> = [];
    const ws = new WebSocket(`${server.url.replace('http', 'ws')}/core/api/v1/logging/?plugin=${plugin}`, { headers: { authorization: TEST_API_KEY } });
    ws.on('message', (data) => seen.push(JSON.parse(data.toString())));
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
    });
    return { seen, close: () => ws.close() };
  };
  const alive = (server: ServerProcess) => {
    assert.equal(server.child.exitCode, null, server.output().slice(-3000));
    assert.equal(server.child.signalCode, null, server.output().slice(-3000));
    assert.doesNotMatch(server.output(), /Unhandled|uncaught|unhandledRejection/i);
  };

  before(async () => {
    db = await createDatabase('postgres');
    setClock(Date.now() - 3600_000);
    const env = { CHARTA_TEST_SCHEDULER_CLOCK: clockFile, CHARTA_TEST_SCHEDULER_MS: '20' };
    [a, b] = await Promise.all([startServerProcess(db, env), startServerProcess(db, env)]);
    client = new pg.Client({ connectionString: db.url });
    client.on('error', () => undefined);
    await client.connect();
  });
  after(async () => {
    if (db) await admin(`ALTER DATABASE ${dbName()} ALLOW_CONNECTIONS true`).catch(() => undefined);
    await client?.end().catch(() => undefined);
    await stopAll();
    await db?.drop();
  });

  it('two processes, ten ticks: each tick runs exactly once', async () => {
    const handler: TestHandler = {
      className: 'EveryMinute',
      events: ['CRON'],
      schedule: '* * * * *',
      compute: "    this.log.info('ran ' + this.event.context.tick);\n    return [];",
    };
    const stream = await follow(a, 'every-minute');
    try {
      await installPlugin(a.url, 'every-minute', [handler]);
      await Promise.all([runningOn(a, 'every-minute'), runningOn(b, 'every-minute')]);
      const first = nextMinute(Date.parse((await view(a, 'every-minute')).updated_at));
      const expected: string[] = [];
      for (let i = 0; i < 10; i++) {
        const tick = first + i * MINUTE;
        expected.push(new Date(tick).toISOString());
        setClock(tick + 1000);
        await until(`tick ${i + 1} run`, async () => {
          const rows = await ticks('every-minute');
          return rows.some((r) => r.tick === tick * 1000 && r.outcome !== null);
        });
      }
      // Both processes' lines reach A's stream: wait until every tick's line has, then look for a second run of any.
      const ran = () => stream.seen.filter((e) => e.source === 'plugin').map((e) => e.event.replace(/^ran /, ''));
      await until(
        'every tick on the log stream',
        () => expected.every((t) => ran().includes(t)),
        15_000,
        () => JSON.stringify(stream.seen),
      );
      assert.deepEqual(ran().sort(), expected, JSON.stringify(stream.seen));
      const rows = await ticks('every-minute');
      // Only the latest rows are kept; those are ok.
      assert.ok(rows.every((r) => r.outcome === 'ok'));
      assert.deepEqual(
        rows.map((r) => r.tick),
        [first + 8 * MINUTE, first + 9 * MINUTE].map((t) => t * 1000),
      );
      assert.equal(stream.seen.filter((e) => / ran the tick /.test(e.event)).length, 10);
      alive(a);
      alive(b);
    } finally {
      stream.close();
    }
  });

  it('the database going away during a tick: the process stays up and says so, the row keeps no outcome, the next tick runs once it is back', async () => {
    // A tick that takes a while, and then asks for an effect (applied as the plugin: effects:instance for a patient).
    const handler: TestHandler = {
      className: 'Slow',
      events: ['CRON'],
      schedule: '* * * * *',
      compute:
        "    this.log.info('started ' + this.event.context.tick);\n    const end = Date.now() + 1500;\n    while (Date.now() < end) {}\n    return [{ type: 'ADD_BANNER_ALERT', payload: { patient: 'nobody', key: 'k', narrative: 'n', placement: ['chart'], intent: 'info' } }];",
    };
    setClock(Date.now() - 3600_000);
    await installPlugin(a.url, 'slow', [handler], { limits: { timeout_ms: 5000 } }, ['effects:instance']);
    await Promise.all([runningOn(a, 'slow'), runningOn(b, 'slow')]);
    const streams = [await follow(a, 'slow'), await follow(b, 'slow')];
    try {
      const tick = nextMinute(Date.parse((await view(a, 'slow')).updated_at));
      setClock(tick + 1000);
      const claimed = await until('the tick claimed', async () => (await ticks('slow')).find((r) => r.tick === tick * 1000));
      await admin(`ALTER DATABASE ${dbName()} ALLOW_CONNECTIONS false`);
      await client.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()', [dbName()]);
      const runner = claimed.claimed_by;
      // The process that ran it says its outcome could not be recorded (its own stream: the relay is away too).
      const said = await until(
        'the outcome not recorded, on the log stream',
        () => streams.flatMap((s) => s.seen).find((e) => /could not be recorded/.test(e.event)),
        20_000,
        () => JSON.stringify(streams.map((s) => s.seen)),
      );
      assert.equal(said.tick, new Date(tick).toISOString());
      alive(a);
      alive(b);
      await admin(`ALTER DATABASE ${dbName()} ALLOW_CONNECTIONS true`);
      const row = (await ticks('slow')).find((r) => r.tick === tick * 1000)!;
      assert.equal(row.outcome, null);
      assert.equal(row.claimed_by, runner);
      // The scheduler keeps going: the next tick runs (its effect fails on the unknown patient: the tick itself ran).
      setClock(tick + MINUTE + 1000);
      const next = await until(
        'the next tick run',
        async () => (await ticks('slow')).find((r) => r.tick === (tick + MINUTE) * 1000 && r.outcome !== null),
        30_000,
      );
      assert.equal(next.outcome, 'ok');
      alive(a);
      alive(b);
    } finally {
      for (const s of streams) s.close();
    }
  });
});
