// GET /metrics (docs/operations.md, "Monitoring"; docs/api.md, "Metrics") on each engine: who may
// read it (401 without credentials or with a wrong token, 403 for a clinical client's token or an
// API key without the admin scope, 200 for an admin API key and for CHARTA_METRICS_TOKEN), the
// Prometheus text format, requests counted by route pattern with no key, uuid or credential in any
// label, the storage's pools and group commit, plugin calls by outcome (a throw included), the
// outbox and the log stream; and nothing of it with CHARTA_METRICS=off.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { eachEngine, startInstance, TEST_API_KEY, type Instance } from './support/harness.ts';
import { installPlugin, settle, untilRunning } from './support/plugins.ts';
import { openJsonSocket } from './support/websockets.ts';
import { until } from './support/until.ts';
import { digest } from '../src/lib/secrets.ts';
import { insertApiKey } from '../src/storage/auth-repository.ts';
import { loadConfig, ConfigError } from '../src/config.ts';
import { Consumer } from '../src/logs/consumer.ts';

const METRICS_TOKEN = 'metrics-scraper-token-0123456789abcdef';
const C = '/core/api/v1/commands';

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

const NAME = '[a-zA-Z_:][a-zA-Z0-9_:]*';
const SAMPLE = new RegExp(`^(${NAME})(?:\\{(.*)\\})? (\\S+)$`);
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"(,|$)/y;

/**
 * The Prometheus text format (version 0.0.4), read strictly: every line empty, a HELP, a TYPE or a sample
 * of a declared family, every label quoted, every value a number. Throws on anything else.
 */
function parseExposition(text: string): Sample[] {
  assert.ok(text.endsWith('\n'), 'the exposition ends with a newline');
  const families = new Map<string, string>();
  const samples: Sample[] = [];
  for (const line of text.slice(0, -1).split('\n')) {
    if (line === '') continue; // "Empty lines are ignored" (the format's own rule)
    const type = new RegExp(`^# TYPE (${NAME}) (counter|gauge|histogram|summary|untyped)$`).exec(line);
    if (type) {
      assert.ok(!families.has(type[1]!), `${type[1]} declared twice`);
      families.set(type[1]!, type[2]!);
      continue;
    }
    if (new RegExp(`^# HELP ${NAME} .*$`).test(line)) continue;
    const m = SAMPLE.exec(line);
    assert.ok(m, `not a sample: ${JSON.stringify(line)}`);
    const labels: Record<string, string> = {};
    const text = m[2] ?? '';
    LABEL.lastIndex = 0;
    while (LABEL.lastIndex < text.length) {
      const at = LABEL.lastIndex;
      const l = LABEL.exec(text);
      assert.ok(l, `bad labels at ${at}: ${line}`);
      labels[l[1]!] = l[2]!.replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c));
    }
    // Values as Go's ParseFloat reads them, as Prometheus does: NaN and ±Inf in any case (prom-client writes `Nan`).
    const special = /^([+-]?)(inf|infinity|nan)$/i.exec(m[3]!);
    const value = special ? (special[2]!.toLowerCase() === 'nan' ? NaN : special[1] === '-' ? -Infinity : Infinity) : Number(m[3]);
    assert.ok(special || (m[3] !== '' && !Number.isNaN(value)), `not a number: ${line}`);
    const family = m[1]!.replace(/_(bucket|sum|count)$/, '');
    assert.ok(families.has(m[1]!) || families.get(family) === 'histogram', `${m[1]} has no TYPE`);
    samples.push({ name: m[1]!, labels, value });
  }
  return samples;
}

/** The value of the one sample of `name` whose labels include `labels` (0 when there is none). */
function valueOf(samples: Sample[], name: string, labels: Record<string, string> = {}): number {
  const found = samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));
  assert.ok(found.length <= 1, `${name} ${JSON.stringify(labels)} matches ${found.length} samples`);
  return found[0]?.value ?? 0;
}

eachEngine((engine) => {
  describe(`GET /metrics (${engine})`, () => {
    let api: Instance;

    before(async () => {
      api = await startInstance(engine, { metricsTokenHash: digest(METRICS_TOKEN) });
    });
    after(async () => {
      await api?.stop();
    });

    const scrape = async (authorization = TEST_API_KEY): Promise<Sample[]> => {
      const r = await api.call('GET', '/metrics', { authorization });
      assert.equal(r.status, 200, r.text);
      return parseExposition(r.text);
    };

    it('401 without credentials or with a wrong token, 403 for other credentials, 200 for an admin API key or the metrics token', async () => {
      const none = await api.call('GET', '/metrics', { token: null });
      assert.equal(none.status, 401);
      assert.equal(none.json.code, 'unauthorized');
      assert.match(none.headers.get('www-authenticate') ?? '', /^Bearer/);
      for (const wrong of ['Bearer metrics-scraper-token-0123456789abcdeX', 'Bearer ', METRICS_TOKEN.slice(0, -1)]) {
        const r = await api.call('GET', '/metrics', { authorization: wrong });
        assert.equal(r.status, 401, `${wrong}: ${r.text}`);
        assert.doesNotMatch(r.text, /charta_/);
      }
      // A clinical client's bearer token, and an API key without the admin scope.
      const clinical = await api.call('GET', '/metrics');
      assert.equal(clinical.status, 403, clinical.text);
      assert.equal(clinical.json.code, 'forbidden');
      const pluginKey = 'plugin-only-api-key-0123456789abcdef0123';
      await insertApiKey(api.storage.db, {
        id: 'plugin-only',
        key_hash: digest(pluginKey),
        label: 'no admin',
        staff_key: null,
        scopes: 'system/Plugins.*',
        created_at: 1,
      });
      assert.equal((await api.call('GET', '/metrics', { authorization: pluginKey })).status, 403);
      for (const authorization of [TEST_API_KEY, `Bearer ${TEST_API_KEY}`, `Bearer ${METRICS_TOKEN}`]) {
        const r = await api.call('GET', '/metrics', { authorization });
        assert.equal(r.status, 200, r.text);
        assert.equal(r.headers.get('content-type'), 'text/plain; version=0.0.4; charset=utf-8');
        assert.match(r.text, /^# HELP charta_http_requests_total /m);
      }
      // The metrics token opens /metrics and nothing else.
      for (const path of ['/core/api/v1/plugins/', `${C}?limit=1`, '/core/api/v1/logging/recent/'])
        assert.equal((await api.call('GET', path, { authorization: `Bearer ${METRICS_TOKEN}` })).status, 401, path);
    });

    it('the text format parses; GET a command is counted under its route pattern; no label carries a key, a uuid or a credential', async () => {
      const route = { method: 'GET', route: '/core/api/v1/commands/:uuid', status: '200' };
      const before = valueOf(await scrape(), 'charta_http_requests_total', route);
      const command = await api.command('plan', { narrative: 'Counted' });
      for (let i = 0; i < 3; i++) assert.equal((await api.call('GET', `${C}/${command.uuid}`)).status, 200);
      assert.equal((await api.call('GET', `${C}/00000000-0000-4000-8000-000000000000`)).status, 404);
      assert.equal((await api.call('GET', `/no/such/${command.uuid}`)).status, 404);
      const samples = await scrape(`Bearer ${METRICS_TOKEN}`);
      assert.equal(valueOf(samples, 'charta_http_requests_total', route), before + 3);
      assert.equal(valueOf(samples, 'charta_http_requests_total', { ...route, status: '404' }), 1);
      assert.ok(valueOf(samples, 'charta_http_requests_total', { method: 'GET', route: 'unmatched', status: '404' }) >= 1);
      assert.ok(valueOf(samples, 'charta_http_request_duration_seconds_count', { method: 'GET', route: route.route }) >= 4);
      const note = (await api.call('GET', `${C}/${command.uuid}`)).json;
      const secrets = [command.uuid, command.noteKey, note.patient_key, TEST_API_KEY, METRICS_TOKEN, api.token];
      const labelValues = samples.flatMap((s) => Object.values(s.labels));
      for (const secret of secrets) assert.ok(!labelValues.some((v) => v.includes(secret)), `a label carries ${secret}`);
      // Every route label is a pattern the app declares, or `unmatched`.
      for (const s of samples.filter((x) => x.labels.route !== undefined))
        assert.ok(s.labels.route === 'unmatched' || !/[0-9a-f]{8}-[0-9a-f]{4}-/.test(s.labels.route!), s.labels.route);
      // The process's own: memory and event-loop delay (prom-client's default metrics).
      assert.ok(valueOf(samples, 'process_resident_memory_bytes') > 0);
      assert.ok(samples.some((s) => s.name === 'nodejs_eventloop_lag_seconds'));
    });

    it(
      engine === 'sqlite'
        ? 'the writer queue, the reader thread and the group commit: batches and waits'
        : 'the two connection pools: their size, use and waits',
      async () => {
        const first = await scrape();
        await Promise.all(Array.from({ length: 6 }, () => api.command('plan', { narrative: 'Batched' })));
        const samples = await scrape();
        // SQLite's one reader thread is the default CHARTA_SQLITE_READ_THREADS.
        const pools = engine === 'sqlite' ? { writer: 1, readers: 1 } : { main: 10, plugin_reads: 4 };
        for (const [pool, max] of Object.entries(pools)) {
          assert.equal(valueOf(samples, 'charta_db_connections_max', { pool }), max);
          const busy = valueOf(samples, 'charta_db_connections', { pool, state: 'busy' });
          const idle = valueOf(samples, 'charta_db_connections', { pool, state: 'idle' });
          assert.ok(busy + idle <= max && busy >= 0 && idle >= 0, `${pool}: ${busy} busy, ${idle} idle`);
          assert.ok(valueOf(samples, 'charta_db_waiting', { pool }) >= 0);
        }
        const waited = engine === 'sqlite' ? 'writer' : 'main';
        assert.ok(
          valueOf(samples, 'charta_db_wait_seconds_count', { pool: waited }) >= valueOf(first, 'charta_db_wait_seconds_count', { pool: waited }) + 6,
          'every write waited for its connection or batch, and was timed',
        );
        const batches = valueOf(samples, 'charta_db_group_commit_batch_size_count') - valueOf(first, 'charta_db_group_commit_batch_size_count');
        const writes = valueOf(samples, 'charta_db_group_commit_batch_size_sum') - valueOf(first, 'charta_db_group_commit_batch_size_sum');
        if (engine === 'sqlite') {
          // Six commands: a patient, a note and a command each, some of them grouped.
          assert.ok(batches >= 1 && writes >= 18 && batches <= writes, `${batches} batches of ${writes} writes`);
          assert.equal(valueOf(samples, 'charta_db_group_commit_parked_total'), 0);
        } else {
          assert.ok(!samples.some((s) => s.name.startsWith('charta_db_group_commit')), 'PostgreSQL has no group commit');
        }
      },
    );

    it('plugin calls by plugin, handler and outcome (a throw included), their latency and memory; the outbox', async () => {
      await installPlugin(
        api.url,
        'metered',
        [
          { className: 'Fine', events: ['PLAN_COMMAND__POST_COMMIT'], compute: '    return [];' },
          { className: 'Broken', events: ['HISTORY_OF_PRESENT_ILLNESS_COMMAND__POST_COMMIT'], compute: "    throw new Error('metered fault');" },
          // A deadline overrun is retried with a back-off (a throw is final): its event waits in the outbox.
          { className: 'Late', events: ['GOAL_COMMAND__POST_COMMIT'], compute: '    for (;;) {}' },
        ],
        { limits: { timeout_ms: 100 } },
      );
      await untilRunning(api.url, 'metered');
      const plan = await api.command('plan', { narrative: 'Fine' });
      assert.equal((await api.call('POST', `${C}/${plan.uuid}/commit/`)).status, 200);
      const hpi = await api.command('hpi', { narrative: 'Broken' });
      assert.equal((await api.call('POST', `${C}/${hpi.uuid}/commit/`)).status, 200);
      const goal = await api.command('goal', { goal_statement: 'Late' });
      assert.equal((await api.call('POST', `${C}/${goal.uuid}/commit/`)).status, 200);
      const calls = (handler: string, outcome: string, samples: Sample[]) =>
        valueOf(samples, 'charta_plugin_calls_total', { plugin: 'metered', handler: `dist/handlers.js:${handler}`, outcome });
      const samples = await until('the three calls counted', async () => {
        const s = await scrape();
        return calls('Fine', 'ok', s) >= 1 && calls('Broken', 'threw', s) >= 1 && calls('Late', 'timeout', s) >= 1 ? s : undefined;
      });
      assert.equal(calls('Fine', 'threw', samples), 0);
      assert.equal(calls('Broken', 'ok', samples), 0);
      assert.ok(valueOf(samples, 'charta_plugin_call_duration_seconds_count', { plugin: 'metered', handler: 'dist/handlers.js:Fine' }) >= 1);
      assert.ok(valueOf(samples, 'charta_plugin_memory_bytes', { plugin: 'metered' }) > 0, 'the runner reports the plugin sandbox memory');
      assert.ok(valueOf(samples, 'charta_plugin_runner_resident_memory_bytes') > 0);
      // The overrun event waits in the outbox for its next attempt: it is counted, and its age grows from 0.
      assert.ok(valueOf(samples, 'charta_plugin_outbox_events') >= 1);
      assert.ok(valueOf(samples, 'charta_plugin_outbox_oldest_age_seconds') >= 0);
      const labelValues = samples.flatMap((s) => Object.values(s.labels));
      assert.ok(!labelValues.some((v) => v.includes('metered fault')), "no label carries the plugin's message");
      await api.call('DELETE', '/core/api/v1/plugins/metered/?force=true', { authorization: TEST_API_KEY });
      await settle(api);
      // Its next attempt finds no handler left (docs/plugins.md, "Delivery and guarantees"): the outbox empties and its age is 0 again.
      const empty = await until('the outbox empty', async () => {
        const s = await scrape();
        return valueOf(s, 'charta_plugin_outbox_events') === 0 ? s : undefined;
      });
      assert.equal(valueOf(empty, 'charta_plugin_outbox_oldest_age_seconds'), 0);
    });

    it('log stream subscribers while they follow, and the lines dropped for slow ones', async () => {
      const base = valueOf(await scrape(), 'charta_log_stream_subscribers');
      const socket = await openJsonSocket(`${api.url.replace('http', 'ws')}/core/api/v1/logging/`, { authorization: TEST_API_KEY });
      try {
        await until('one subscriber more', async () => valueOf(await scrape(), 'charta_log_stream_subscribers') === base + 1);
      } finally {
        socket.close();
      }
      await until('the subscriber gone', async () => valueOf(await scrape(), 'charta_log_stream_subscribers') === base);
      // A consumer whose socket never drains drops the lines past its queue, and the bus counts them.
      const dropped = valueOf(await scrape(), 'charta_log_stream_dropped_lines_total');
      const stuck = { bufferedAmount: 100, readyState: 1, send: () => undefined };
      const consumer = new Consumer(stuck, { highWaterBytes: 10, maxQueued: 2 }, () => api.app.logs.dropped());
      for (let i = 0; i < 5; i++) consumer.push(`line ${i}`);
      assert.equal(valueOf(await scrape(), 'charta_log_stream_dropped_lines_total'), dropped + 3);
    });
  });
});

describe('CHARTA_METRICS=off', () => {
  let api: Instance;
  before(async () => {
    api = await startInstance('sqlite', { metrics: false });
  });
  after(async () => {
    await api?.stop();
  });

  it('serves no /metrics and documents none', async () => {
    assert.equal((await api.call('GET', '/metrics', { authorization: TEST_API_KEY })).status, 404);
    const doc = (await api.call('GET', '/openapi.json', { token: null })).json;
    assert.equal(doc.paths['/metrics'], undefined);
    assert.equal(api.app.metrics, null);
  });
});

describe('metrics settings', () => {
  const base = { CHARTA_DATABASE_URL: 'sqlite::memory:' };

  it('CHARTA_METRICS is on unless off; the token is kept only as its digest', () => {
    assert.equal(loadConfig(base).metrics, true);
    assert.equal(loadConfig({ ...base, CHARTA_METRICS: 'OFF' }).metrics, false);
    assert.throws(() => loadConfig({ ...base, CHARTA_METRICS: 'maybe' }), ConfigError);
    const config = loadConfig({ ...base, CHARTA_METRICS_TOKEN: METRICS_TOKEN });
    assert.equal(config.metricsTokenHash, digest(METRICS_TOKEN));
    assert.ok(!JSON.stringify(config).includes(METRICS_TOKEN), 'the token itself is not in the configuration');
    assert.equal(loadConfig(base).metricsTokenHash, undefined);
  });

  it('refuses a metrics token shorter than 16 characters or with spaces, without printing it', () => {
    for (const token of ['short-token', 'has a space in it 0123456789']) {
      assert.throws(
        () => loadConfig({ ...base, CHARTA_METRICS_TOKEN: token }),
        (err: Error) => err instanceof ConfigError && !err.message.includes(token),
      );
    }
  });
});
