// POST events on two `charta-server` processes sharing one PostgreSQL database (docs/plugins.md,
// "Effects"): plans committed through both at once, each event handled exactly once in total (one
// follow-up instruct per plan, the handler's line once on each process's log stream, which carries
// the other's lines too), the outbox empty at the end; then a plugin disabled through one process
// stops on the other within one second, and a commit there fires nothing.
import { after, before, it } from 'node:test';
import assert from 'node:assert/strict';
import WebSocket from 'ws';
import { createDatabase, TEST_API_KEY, request, type TestDatabase, describeOnPostgres } from './support/harness.ts';
import { startServerProcess, stopAll, tokenFor, type ServerProcess } from './support/processes.ts';
import { installPlugin, setEnabled } from './support/plugins.ts';
import { until } from './support/until.ts';
import { openStorage, type Storage } from '../src/storage/db.ts';
import { countPluginEvents } from '../src/storage/plugin-events-repository.ts';
import { parseTimestampMicros } from '../src/lib/time.ts';

const C = '/core/api/v1/commands';
const PLANS = 40;

interface Stream {
  seen: Array<{ event: string; timestamp: string; source: string; plugin?: string; level: string }>;
  close(): void;
}

/** The log stream of one process, for one plugin, from now on. */
async function logStream(server: ServerProcess, plugin: string): Promise<Stream> {
  const seen: Stream['seen'] = [];
  const ws = new WebSocket(`${server.url.replace('http', 'ws')}/core/api/v1/logging/?plugin=${plugin}`, { headers: { authorization: TEST_API_KEY } });
  ws.on('message', (data) => seen.push(JSON.parse(data.toString())));
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
  });
  return { seen, close: () => ws.close() };
}

describeOnPostgres('plugin events on two server processes (postgres)', () => {
  let db: TestDatabase;
  let storage: Storage;
  let a: ServerProcess;
  let b: ServerProcess;
  const tokens = new Map<ServerProcess, string>();
  const call = (server: ServerProcess, method: string, path: string, body?: unknown) => request(server.url, method, path, { body }, tokens.get(server)!);
  const streams: Stream[] = [];

  before(async () => {
    db = await createDatabase('postgres');
    // One after the other: the first one migrates and bootstraps the database.
    a = await startServerProcess(db);
    b = await startServerProcess(db);
    for (const server of [a, b]) tokens.set(server, await tokenFor(server.url));
    storage = openStorage(db.url);
  });
  after(async () => {
    for (const s of streams) s.close();
    await stopAll();
    await storage?.close();
    await db?.drop();
  });

  /** A plan with a narrative in a new note of a new patient, through `server`. */
  const plan = async (server: ServerProcess, narrative: string) => {
    const p = await call(server, 'POST', '/core/api/v1/patients/', { firstName: 'Test', lastName: 'Patient' });
    assert.equal(p.status, 201, p.text);
    const n = await call(server, 'POST', '/core/api/v1/notes/', { patientKey: p.json.key, noteType: 'encounter' });
    assert.equal(n.status, 201, n.text);
    const c = await call(server, 'POST', `${C}/`, { schemaKey: 'plan', noteKey: n.json.uuid, values: { narrative } });
    assert.equal(c.status, 201, c.text);
    return { uuid: c.json.uuid as string, noteKey: n.json.uuid as string };
  };
  const kindsOf = async (server: ServerProcess, noteKey: string) =>
    ((await call(server, 'GET', `${C}/?note_key=${noteKey}&limit=100`)).json.results as Array<{ schema_key: string }>).map((c) => c.schema_key).sort();
  const outboxEmpty = async () => (await countPluginEvents(storage.db)) === 0;

  it('each POST event is handled exactly once in total; disabling through one process stops the plugin on the other', async () => {
    const onA = await logStream(a, 'follow-up');
    const onB = await logStream(b, 'follow-up');
    streams.push(onA, onB);
    await installPlugin(a.url, 'follow-up', [
      {
        className: 'FollowUp',
        events: ['PLAN_COMMAND__POST_COMMIT'],
        compute: `    this.log.info('follow-up for ' + this.event.target.id);
  return [{ type: 'ORIGINATE_INSTRUCT_COMMAND', payload: { command: null, note: this.event.context.note.uuid, data: { comment: 'after ' + this.event.context.fields.narrative }, line_number: -1 } }];`,
      },
    ]);
    // Each process loads it (its own line, and the other's through the relay: two on each stream).
    for (const s of [onA, onB]) await until('running on both', () => s.seen.filter((e) => /follow-up 1\.0\.0 running/.test(e.event)).length === 2);

    const plans = await Promise.all(Array.from({ length: PLANS }, (_, i) => plan(i % 2 === 0 ? a : b, `plan ${i}`)));
    const commits = await Promise.all(plans.map((p, i) => call(i % 2 === 0 ? a : b, 'POST', `${C}/${p.uuid}/commit/`)));
    for (const r of commits) assert.equal(r.status, 200, r.text);

    await until('every event delivered', outboxEmpty, 30_000);
    const line = (uuid: string) => `follow-up for ${uuid}`;
    for (const s of [onA, onB])
      await until('every handler line on both streams', () => plans.every((p) => s.seen.some((e) => e.event === line(p.uuid))), 15_000);
    // Exactly one instruct per plan, whichever process delivered it.
    for (const [i, p] of plans.entries()) assert.deepEqual(await kindsOf(i % 2 === 0 ? b : a, p.noteKey), ['instruct', 'plan'], p.uuid);
    // Each stream holds this process's lines and the other's: a line twice on one would be two deliveries.
    for (const s of [onA, onB]) {
      for (const p of plans) assert.equal(s.seen.filter((e) => e.source === 'plugin' && e.event === line(p.uuid)).length, 1, line(p.uuid));
      assert.deepEqual(
        s.seen.filter((e) => e.level === 'error'),
        [],
      );
    }
    assert.ok(await outboxEmpty());

    // Disable through A: B stops it too, within a second (both stop lines reach B's stream).
    await setEnabled(a.url, 'follow-up', false);
    const disabled = await until('the disable line on B', () => onB.seen.find((e) => e.event === 'plugin follow-up 1.0.0 disabled'));
    const stops = await until('both processes stopped it', () => {
      const found = onB.seen.filter((e) => /plugin runtime: follow-up 1\.0\.0 stopped/.test(e.event));
      return found.length === 2 ? found : undefined;
    });
    const at = parseTimestampMicros(disabled.timestamp)!;
    for (const stop of stops) assert.ok(parseTimestampMicros(stop.timestamp)! - at < 1_000_000, `stopped ${stop.timestamp}, disabled ${disabled.timestamp}`);

    const quiet = await plan(b, 'after disable');
    assert.equal((await call(b, 'POST', `${C}/${quiet.uuid}/commit/`)).status, 200);
    await until('no waiting event', outboxEmpty);
    assert.deepEqual(await kindsOf(b, quiet.noteKey), ['plan']);
    assert.ok(!onB.seen.some((e) => e.event === line(quiet.uuid)));
  });

  it('the events of one command changed through both processes are delivered in order', async () => {
    const onA = await logStream(a, 'order-log');
    streams.push(onA);
    await installPlugin(b.url, 'order-log', [
      {
        className: 'Narrate',
        events: ['PLAN_COMMAND__POST_UPDATE'],
        compute: `    const narrative = this.event.context.fields.narrative;
  // The first call is slow, so that the next events wait in the outbox while both processes look.
  if (narrative === 'step 0') for (const end = Date.now() + 300; Date.now() < end; );
  this.log.info('narrative ' + narrative);
  return [];`,
      },
    ]);
    await until('running on both', () => onA.seen.filter((e) => /order-log 1\.0\.0 running/.test(e.event)).length === 2);
    const p = await plan(a, 'start');
    const sent: string[] = [];
    for (let i = 0; i < 12; i++) {
      const r = await call(i % 2 === 0 ? a : b, 'PATCH', `${C}/${p.uuid}/`, { values: { narrative: `step ${i}` } });
      assert.equal(r.status, 200, r.text);
      sent.push(`narrative step ${i}`);
    }
    await until('every event delivered', outboxEmpty, 30_000);
    const lines = await until('twelve lines on A', () => {
      const found = onA.seen.filter((e) => e.source === 'plugin');
      return found.length >= 12 ? found : undefined;
    });
    // Whichever process delivered each, one command's events were handled one after the other:
    // by the time of each line (one clock: one host), in the order of the changes.
    const byTime = [...lines].sort((x, y) => parseTimestampMicros(x.timestamp)! - parseTimestampMicros(y.timestamp)!);
    assert.deepEqual(
      byTime.map((e) => e.event),
      sent,
    );
  });
});
