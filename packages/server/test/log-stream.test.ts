// The log stream (docs/api.md, "Log stream") over real WebSockets on both engines: credentials in the
// header checked before the upgrade (the first-message path is log-stream-first-message.test.ts), command and plugin lifecycle entries after their commit, the
// `level` / `plugin` / `since` options, bounded per-consumer queues that report dropped lines,
// and on PostgreSQL two instances on one database that see each other's entries.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import WebSocket from 'ws';
import pg from 'pg';
import {
  createDatabase,
  ENGINES,
  TEST_API_KEY,
  startInstance,
  testConfig,
  toReply,
  type Instance,
  type TestDatabase,
  describeOnPostgres,
} from './support/harness.ts';
import { manifestJson, tarFromDir, VITALS_HANDLER_JS } from './support/archives.ts';
import { openJsonSocket, type JsonSocket } from './support/websockets.ts';
import { startServer, type Running } from '../src/server.ts';
import { Consumer, type LineSocket } from '../src/logs/consumer.ts';
import { LogBus, type LogEntry } from '../src/logs/bus.ts';
import { parseSince } from '../src/logs/routes.ts';
import { entryOf, MAX_PAYLOAD_BYTES, payloadOf } from '../src/logs/pg-relay.ts';

const PATH = '/core/api/v1/logging/';

/** An open log stream: its entries in `messages`. */
type Stream = JsonSocket<LogEntry>;

function wsUrl(base: string, query = '') {
  return `${base.replace(/^http/, 'ws')}${PATH}${query}`;
}

function openStream(base: string, query = '', authorization: string = TEST_API_KEY): Promise<Stream> {
  return openJsonSocket<LogEntry>(wsUrl(base, query), { authorization });
}

/** The HTTP answer to an upgrade request the server refuses. */
async function refusedUpgrade(base: string, query: string, headers: Record<string, string> = {}): Promise<{ status: number; body: any }> {
  const ws = new WebSocket(wsUrl(base, query), { headers });
  return new Promise((resolve, reject) => {
    ws.on('open', () => {
      ws.close();
      reject(new Error('the upgrade was accepted'));
    });
    ws.on('error', () => undefined);
    ws.on('unexpected-response', (req, res) => {
      let text = '';
      res.on('data', (chunk: Buffer) => (text += chunk.toString()));
      res.on('end', () => {
        req.destroy();
        resolve({ status: res.statusCode ?? 0, body: text ? JSON.parse(text) : undefined });
      });
    });
  });
}

/** A package upload the instance refuses (a warning entry with the reasons). */
async function refusedUpload(base: string) {
  const form = new FormData();
  form.set('package', new Blob([new Uint8Array(Buffer.from('not an archive at all'))]), 'bad.tar.gz');
  const r = await toReply(await fetch(`${base}/core/api/v1/plugins/`, { method: 'POST', body: form, headers: { authorization: TEST_API_KEY } }));
  assert.equal(r.status, 400, r.text);
}

const quiet = () => new Promise((r) => setTimeout(r, 150));

for (const engine of ENGINES) {
  describe(`log stream (${engine})`, () => {
    let api: Instance;
    const open: Stream[] = [];
    const stream = async (query = '') => {
      const s = await openStream(api.url, query);
      open.push(s);
      return s;
    };
    before(async () => {
      api = await startInstance(engine);
    });
    after(async () => {
      for (const s of open) s.close();
      await api?.stop();
    });

    it('refuses an upgrade with wrong credentials (401) and never takes them from the URL', async () => {
      const wrong = await refusedUpgrade(api.url, '', { authorization: 'wrong-key-0123456789' });
      assert.equal(wrong.status, 401);
      assert.equal(wrong.body.code, 'unauthorized');
      // Without the header the upgrade would wait for its first message (log-stream-first-message.test.ts); a credential in the query is an unknown option.
      const inUrl = await refusedUpgrade(api.url, `?api_key=${TEST_API_KEY}`);
      assert.equal(inUrl.status, 400, 'never authenticated by the URL');
      assert.equal(inUrl.body.code, 'validation_failed');
      assert.ok(!JSON.stringify(inUrl.body).includes(TEST_API_KEY), 'the key is not echoed');
      const anonymous = await fetch(`${api.url}${PATH}`);
      assert.equal(anonymous.status, 401, 'a plain GET without credentials');
      const plain = await fetch(`${api.url}${PATH}`, { headers: { authorization: TEST_API_KEY } });
      assert.equal(plain.status, 426);
      assert.equal(((await plain.json()) as { code: string }).code, 'upgrade_required');
    });

    it('refuses bad options with 400 before the upgrade', async () => {
      const level = await refusedUpgrade(api.url, '?level=loud', { authorization: TEST_API_KEY });
      assert.equal(level.status, 400);
      assert.equal(level.body.code, 'validation_failed');
      assert.equal(level.body.errors[0].field, 'querystring.level');
      const since = await refusedUpgrade(api.url, '?since=yesterday', { authorization: `Bearer ${TEST_API_KEY}` });
      assert.equal(since.status, 400);
      assert.equal(since.body.errors[0].field, 'querystring.since');
    });

    it('streams command lifecycle entries in order, after each commit (API key or Bearer token)', async () => {
      const s = await stream();
      const byToken = await openStream(api.url, '', `Bearer ${api.token}`);
      open.push(byToken);
      const c = await api.command('plan', { narrative: 'Follow up' });
      const commit = await api.call('POST', `/core/api/v1/commands/${c.uuid}/commit/`);
      assert.equal(commit.status, 200, commit.text);
      // A refused write (already committed) is never logged.
      assert.equal((await api.call('POST', `/core/api/v1/commands/${c.uuid}/commit/`)).status, 400);
      const mine = (await s.upTo(2)).filter((e) => e.event.includes(c.uuid));
      assert.deepEqual(
        mine.map((e) => e.event),
        [`command ${c.uuid} (plan) created in note ${c.noteKey}`, `command ${c.uuid} (plan) committed in note ${c.noteKey}`],
      );
      for (const e of mine) {
        assert.deepEqual(Object.keys(e).sort(), ['event', 'level', 'request_id', 'source', 'timestamp']);
        assert.equal(e.level, 'info');
        assert.equal(e.source, 'server');
        assert.match(e.timestamp, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
      }
      assert.equal(commit.headers.get('x-request-id'), mine[1]!.request_id);
      await byToken.upTo(2);
      await quiet();
      assert.equal(s.messages.filter((e) => e.event.includes(c.uuid)).length, 2, 'the refused commit logged nothing');
    });

    it('level=warning leaves info entries out', async () => {
      const s = await stream('?level=warning');
      await api.command('plan');
      await refusedUpload(api.url);
      const [first] = await s.upTo(1);
      assert.equal(first!.level, 'warning');
      assert.match(first!.event, /^plugin package rejected \(plugin_package_invalid\): /);
      await quiet();
      assert.ok(
        s.messages.every((e) => e.level === 'warning' || e.level === 'error'),
        JSON.stringify(s.messages),
      );
    });

    it('since=1m replays recent entries before following live', async () => {
      const earlier = await api.command('plan');
      const s = await stream('?since=1m');
      const replayed = await s.upTo(1);
      assert.ok(replayed.length > 0);
      await s.upTo(s.messages.length);
      await quiet();
      assert.ok(
        s.messages.some((e) => e.event === `command ${earlier.uuid} (plan) created in note ${earlier.noteKey}`),
        'replayed the earlier entry',
      );
      const n = s.messages.length;
      const later = await api.command('plan');
      const [last] = (await s.upTo(n + 1)).slice(n);
      assert.equal(last!.event, `command ${later.uuid} (plan) created in note ${later.noteKey}`);
      // A timestamp in the future replays nothing.
      const none = await stream(`?since=${encodeURIComponent(new Date(Date.now() + 3_600_000).toISOString())}`);
      await quiet();
      assert.equal(none.messages.length, 0);
    });

    it('plugin=<name> follows only that plugin: installed, disabled, deleted', async () => {
      const s = await stream('?plugin=vitals-alert');
      await api.command('plan');
      const pkg = await tarFromDir(
        { 'CHARTA_MANIFEST.json': manifestJson({ plugin_version: '1.0.0', name: 'Vitals Alert' }), 'dist/index.js': VITALS_HANDLER_JS },
        ['.'],
      );
      const form = new FormData();
      // Installed disabled: the lifecycle lines alone (an enabled plugin adds the runtime's own).
      form.set('is_enabled', 'False');
      form.set('package', new Blob([new Uint8Array(pkg)]), 'plugin.tar.gz');
      const headers = { authorization: TEST_API_KEY };
      assert.equal((await fetch(`${api.url}/core/api/v1/plugins/`, { method: 'POST', body: form, headers })).status, 201);
      const disable = await fetch(`${api.url}/core/api/v1/plugins/vitals-alert/`, {
        method: 'PATCH',
        body: 'is_enabled=False',
        headers: { ...headers, 'content-type': 'application/x-www-form-urlencoded' },
      });
      assert.equal(disable.status, 200);
      assert.equal((await fetch(`${api.url}/core/api/v1/plugins/vitals-alert/`, { method: 'DELETE', headers })).status, 204);
      const got = await s.upTo(3);
      assert.deepEqual(
        got.map((e) => e.event),
        ['plugin vitals-alert 1.0.0 installed (disabled)', 'plugin vitals-alert 1.0.0 disabled', 'plugin vitals-alert deleted'],
      );
      assert.ok(got.every((e) => e.plugin === 'vitals-alert' && e.level === 'info'));
      await quiet();
      assert.equal(s.messages.length, 3);
    });

    it('plugin=<name> takes the name as the original tool writes it (`_` for `-`)', async () => {
      // The entries of the test above, replayed to a filter naming vitals_alert.
      const s = await stream('?plugin=vitals_alert&since=1h');
      const got = await s.upTo(3);
      assert.deepEqual(
        got.map((e) => e.event),
        ['plugin vitals-alert 1.0.0 installed (disabled)', 'plugin vitals-alert 1.0.0 disabled', 'plugin vitals-alert deleted'],
      );
    });

    it('closes every stream when the instance stops', async () => {
      const other = await startInstance(engine);
      const s = await openStream(other.url);
      // The server closes the stream itself (1001, going away) as part of stopping: by the time
      // stop() is done the client has had the close frame, not waited for a timeout of its own.
      const closed = new Promise<number>((resolve) => s.ws.on('close', (code) => resolve(code)));
      await other.stop();
      assert.notEqual(s.ws.readyState, s.ws.OPEN);
      assert.equal(await closed, 1001);
    });
  });
}

describeOnPostgres('log stream across two processes on one PostgreSQL database', () => {
  let db: TestDatabase;
  let a: Running;
  let b: Running;
  before(async () => {
    db = await createDatabase('postgres');
    a = await startServer(testConfig(db), () => undefined);
    b = await startServer(testConfig(db), () => undefined);
  });
  after(async () => {
    await a?.close();
    await b?.close();
    await db?.drop();
  });

  it("each instance's subscribers see the other's entries, each exactly once", async () => {
    const onA = await openStream(a.url, '?level=warning');
    const onB = await openStream(b.url, '?level=warning');
    try {
      await refusedUpload(a.url);
      const [fromA] = await onB.upTo(1);
      assert.match(fromA!.event, /rejected/);
      assert.equal(fromA!.source, 'server');
      await refusedUpload(b.url);
      await onA.upTo(2);
      await onB.upTo(2);
      await new Promise((r) => setTimeout(r, 300));
      assert.equal(onA.messages.length, 2, 'no entry delivered twice');
      assert.equal(onB.messages.length, 2, 'no entry delivered twice');
      assert.deepEqual(onA.messages.map((e) => e.request_id).sort(), onB.messages.map((e) => e.request_id).sort());
      // The other process's entries are in the replayable history too.
      const replay = await openStream(b.url, '?since=5m&level=warning');
      try {
        assert.equal((await replay.upTo(2)).length, 2);
      } finally {
        replay.close();
      }
    } finally {
      onA.close();
      onB.close();
    }
  });

  it('the relay reconnects after losing its LISTEN connection', async () => {
    const admin = new pg.Client({ connectionString: db.url });
    await admin.connect();
    try {
      const killed = await admin.query(
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'charta-log-relay'",
      );
      assert.equal(killed.rowCount, 2, 'both relays were listening');
    } finally {
      await admin.end();
    }
    const onB = await openStream(b.url, '?level=warning');
    try {
      // Reconnection takes a moment; entries emitted meanwhile reach only their own process.
      const deadline = Date.now() + 10_000;
      while (onB.messages.length === 0 && Date.now() < deadline) {
        await refusedUpload(a.url);
        await new Promise((r) => setTimeout(r, 250));
      }
      assert.ok(onB.messages.length > 0, 'entries of a reach b again');
    } finally {
      onB.close();
    }
  });
});

describe('log stream parts', () => {
  it('a slow consumer drops its oldest lines and then says how many', () => {
    const sent: string[] = [];
    let buffered = 0;
    const callbacks: Array<() => void> = [];
    const socket: LineSocket = {
      readyState: 1,
      get bufferedAmount() {
        return buffered;
      },
      send(data, cb) {
        sent.push(data);
        buffered += data.length;
        callbacks.push(() => cb?.());
      },
    };
    const consumer = new Consumer(socket, { highWaterBytes: 10, maxQueued: 3 });
    consumer.push('"line-0-long"'); // sent: the buffer was empty
    for (let i = 1; i <= 6; i++) consumer.push(`"line-${i}"`); // queued; 1..3 dropped
    assert.deepEqual(sent, ['"line-0-long"']);
    assert.equal(consumer.queued, 3);
    assert.equal(consumer.droppedTotal, 3);
    buffered = 0; // the socket drained
    callbacks.shift()!();
    const notice = JSON.parse(sent[1]!) as LogEntry;
    assert.equal(notice.event, '3 log lines dropped (slow consumer)');
    assert.equal(notice.level, 'warning');
    assert.equal(notice.source, 'server');
    // The buffer filled again with the notice; the rest follows as it drains.
    buffered = 0;
    callbacks.shift()!();
    buffered = 0;
    callbacks.shift()!();
    buffered = 0;
    callbacks.shift()!();
    assert.deepEqual(sent.slice(2), ['"line-4"', '"line-5"', '"line-6"']);
    assert.equal(consumer.queued, 0);
  });

  it('the bus keeps a bounded history and filters by level, plugin and time', () => {
    const bus = new LogBus(3);
    for (let i = 0; i < 5; i++) bus.emit({ event: `e${i}\nsecond line`, level: i % 2 ? 'warning' : 'info', plugin: i === 4 ? 'p' : undefined });
    const all = bus.recent({});
    assert.deepEqual(
      all.map((r) => r.entry.event),
      ['e2 second line', 'e3 second line', 'e4 second line'],
    );
    assert.deepEqual(
      bus.recent({ level: 'warning' }).map((r) => r.entry.event),
      ['e3 second line'],
    );
    assert.deepEqual(
      bus.recent({ plugin: 'p' }).map((r) => r.entry.event),
      ['e4 second line'],
    );
    assert.deepEqual(bus.recent({ sinceMicros: Date.now() * 1000 + 60e6 }), []);
  });

  it('parses since as a duration or an ISO timestamp, else refuses it', () => {
    const now = 1_800_000_000_000_000;
    assert.equal(parseSince('30s', now), now - 30e6);
    assert.equal(parseSince('5m', now), now - 300e6);
    assert.equal(parseSince('1h', now), now - 3600e6);
    assert.equal(parseSince('2026-11-22T05:26:28.123456Z', now), Date.UTC(2026, 10, 22, 5, 26, 28) * 1000 + 123456);
    for (const bad of ['', '5', 'm', '-5m', '5 m', '1w', 'yesterday', '2026-11-22']) assert.equal(parseSince(bad, now), undefined, bad);
  });

  it('a NOTIFY payload fits 7,900 bytes and a process ignores its own', () => {
    const entry: LogEntry = { event: 'é'.repeat(2000) + 'x'.repeat(5000), level: 'info', timestamp: '2026-11-22T05:26:28.123456Z', source: 'server' };
    const payload = payloadOf(entry, 'host:1:aa');
    assert.ok(Buffer.byteLength(payload) <= MAX_PAYLOAD_BYTES);
    assert.equal(entryOf(payload, 'host:1:aa'), undefined);
    const other = entryOf(payload, 'host:2:bb');
    assert.ok(other && other.event.endsWith('…') && other.level === 'info');
    assert.equal(entryOf('{"origin":"x","event":1}', 'y'), undefined);
    assert.equal(entryOf('not json', 'y'), undefined);
  });
});
