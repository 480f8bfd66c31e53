// Signals are not logs (docs/architecture.md, "Signals"): with every log line reworded
// (CHARTA_TEST_REWORD_LOGS) and the runtime's own poll pushed out of reach (CHARTA_TEST_PLUGIN_POLL_MS,
// so only a signal can make the runtime look), an install, update of secrets, disable, enable and
// delete still reach the runtime, and a command write with a POST handler is still delivered: on
// both engines in one process, and across two processes on one PostgreSQL database. Each change is
// signalled once, and wakes the runtime once (a rejected package, whose warning names the plugin,
// wakes nothing).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  createDatabase,
  ENGINES,
  startInstance,
  testConfig,
  TEST_API_KEY,
  tokenFor,
  toReply,
  request,
  type Instance,
  type TestDatabase,
  describeOnPostgres,
} from './support/harness.ts';
import { installPlugin, pluginPackage, setEnabled, untilRunning, type TestHandler } from './support/plugins.ts';
import { until } from './support/until.ts';
import { startServerProcess, stopAll, type ServerProcess } from './support/processes.ts';
import { startServer, type Running } from '../src/server.ts';
import { countPluginEvents } from '../src/storage/plugin-events-repository.ts';
import type { Signal, SignalType } from '../src/signals/bus.ts';

/** Far beyond any test: the runtime never looks on its own. */
const POLL_MS = 600_000;
const HOOKS = { CHARTA_TEST_REWORD_LOGS: '1', CHARTA_TEST_PLUGIN_POLL_MS: String(POLL_MS) };
// Read when an instance's log bus and runtime are made (src/lib/test-hooks.ts): this process's instances.
Object.assign(process.env, HOOKS);

const P = '/core/api/v1/plugins';
const C = '/core/api/v1/commands';
const NAME = 'signalled';
/** On every plan originated: an instruct in its note naming the plan's narrative and the secret TOKEN. */
const HANDLERS: TestHandler[] = [
  {
    className: 'FollowUp',
    events: ['PLAN_COMMAND__POST_ORIGINATE'],
    compute: `    this.log.info('follow-up for ' + this.event.target.id);
    const comment = 'after ' + this.event.context.fields.narrative + ' (' + (this.secrets.TOKEN ?? 'unset') + ')';
    return [{ type: 'ORIGINATE_INSTRUCT_COMMAND', payload: { command: null, note: this.event.context.note.uuid, data: { comment }, line_number: -1 } }];`,
  },
];
const EXTRA = { secrets: ['TOKEN'] };

const plugin = (url: string) => fetch(`${url}${P}/${NAME}/`, { headers: { authorization: TEST_API_KEY } }).then(toReply);
const setSecret = async (url: string, value: string) => {
  const r = await fetch(`${url}${P}/${NAME}/secrets/`, {
    method: 'PATCH',
    body: JSON.stringify({ TOKEN: value }),
    headers: { authorization: TEST_API_KEY, 'content-type': 'application/json' },
  }).then(toReply);
  assert.equal(r.status, 200, r.text);
};
const deletePlugin = async (url: string) => {
  const r = await fetch(`${url}${P}/${NAME}/?force=true`, { method: 'DELETE', headers: { authorization: TEST_API_KEY } }).then(toReply);
  assert.equal(r.status, 204, r.text);
};

/** A plan with `narrative` in a new note of a new patient, through `url`. */
async function plan(url: string, token: string, narrative: string): Promise<{ uuid: string; noteKey: string }> {
  const call = (method: string, path: string, body: unknown) => request(url, method, path, { body }, token);
  const p = await call('POST', '/core/api/v1/patients/', { firstName: 'Test', lastName: 'Patient' });
  assert.equal(p.status, 201, p.text);
  const n = await call('POST', '/core/api/v1/notes/', { patientKey: p.json.key, noteType: 'encounter' });
  assert.equal(n.status, 201, n.text);
  const c = await call('POST', `${C}/`, { schemaKey: 'plan', noteKey: n.json.uuid, values: { narrative } });
  assert.equal(c.status, 201, c.text);
  return { uuid: c.json.uuid, noteKey: n.json.uuid };
}

/** The comments of the instructs of a note (what the handler wrote), waiting for `count` of them. */
async function instructs(url: string, token: string, noteKey: string, count = 1): Promise<string[]> {
  return until(
    `${count} instruct(s) in note ${noteKey}`,
    async () => {
      const r = await request(url, 'GET', `${C}/?note_key=${noteKey}&limit=100`, {}, token);
      const found = (r.json.results as Array<{ schema_key: string; data: { comment?: string } }>).filter((c) => c.schema_key === 'instruct');
      return found.length >= count ? found.map((c) => c.data.comment ?? '') : undefined;
    },
    10_000,
  );
}

/** What a process's signal bus and runtime do, counted (an in-process instance). */
function watch(running: Running) {
  const signals: Array<{ signal: Signal; from: string }> = [];
  running.app.signals.subscribe((signal, from) => signals.push({ signal, from }));
  const host = running.app.pluginRuntime;
  const counts = { looks: 0, wakes: 0 };
  // The runtime's two reactions: look at the plugins, wake the delivery.
  const pluginsChanged = host.pluginsChanged.bind(host);
  host.pluginsChanged = () => {
    counts.looks++;
    pluginsChanged();
  };
  const wake = host.delivery.wake.bind(host.delivery);
  host.delivery.wake = () => {
    counts.wakes++;
    wake();
  };
  const count = (type: SignalType, from: 'local' | 'remote') => signals.filter((s) => s.signal.type === type && s.from === from).length;
  return { signals, counts, count, status: () => host.status(NAME) };
}

/** Every line of the log stream of `running` is reworded: the hook is on, for this process's lines and those relayed. */
function assertReworded(running: Running): void {
  const entries = running.app.logs.recent({}).map((r) => r.entry);
  assert.ok(entries.length > 0);
  for (const e of entries) assert.match(e.event, /^REWORDED: /, JSON.stringify(e));
}

for (const engine of ENGINES) {
  describe(`signals, not log lines, drive the runtime (${engine}, one process)`, () => {
    let api: Instance;
    let seen: ReturnType<typeof watch>;
    before(async () => {
      api = await startInstance(engine);
      seen = watch(api);
    });
    after(async () => {
      await api?.stop();
    });

    it('install, secrets, disable, enable and delete reach the runtime, and POST events are delivered, each signalled once', async () => {
      const { count, counts } = seen;
      await installPlugin(api.url, NAME, HANDLERS, EXTRA);
      assert.equal(count('plugins-changed', 'local'), 1);
      assert.equal(counts.looks, 1, 'one look for the install');
      await untilRunning(api.url, NAME);

      const first = await plan(api.url, api.token, 'first');
      assert.equal(count('outbox-written', 'local'), 1, 'the plan wrote one outbox row');
      assert.equal(counts.wakes, 1, 'one wake for it');
      assert.deepEqual(await instructs(api.url, api.token, first.noteKey), ['after first (unset)']);
      await until('the outbox to empty', async () => (await countPluginEvents(api.storage.db)) === 0);
      // The handler's instruct has no handler: no outbox row, no signal.
      assert.equal(count('outbox-written', 'local'), 1);

      const since = (await plugin(api.url)).json.runtime.since;
      await setSecret(api.url, 'sesame');
      assert.equal(count('secrets-changed', 'local'), 1);
      assert.equal(count('plugins-changed', 'local'), 1, 'a secrets write is not a plugin change');
      assert.equal(counts.looks, 2);
      await until('reloaded with the secret', async () => {
        const runtime = (await plugin(api.url)).json.runtime;
        return runtime.state === 'running' && runtime.since !== since;
      });
      const second = await plan(api.url, api.token, 'second');
      assert.deepEqual(await instructs(api.url, api.token, second.noteKey), ['after second (sesame)']);
      assert.equal(counts.wakes, 2);

      // A rejected package: its warning names the plugin, and the runtime does not look.
      const form = new FormData();
      form.set('package', new Blob([new Uint8Array(await pluginPackage('someone-else', HANDLERS))]), 'someone-else.tar.gz');
      const refused = await fetch(`${api.url}${P}/${NAME}/`, { method: 'PATCH', body: form, headers: { authorization: TEST_API_KEY } }).then(toReply);
      assert.equal(refused.status, 400, refused.text);
      assert.ok(api.app.logs.recent({ plugin: NAME, level: 'warning' }).length > 0, 'the warning is logged');
      assert.equal(counts.looks, 2, 'a rejected package changes nothing');

      await setEnabled(api.url, NAME, false);
      assert.equal(count('plugins-changed', 'local'), 2);
      await until('stopped', () => seen.status() === undefined);
      const quiet = await plan(api.url, api.token, 'while disabled');
      assert.equal(count('outbox-written', 'local'), 2, 'no outbox row while no handler listens');
      assert.equal(counts.wakes, 2);
      assert.equal(await countPluginEvents(api.storage.db), 0);
      assert.equal((await request(api.url, 'GET', `${C}/?note_key=${quiet.noteKey}`, {}, api.token)).json.count, 1);

      await setEnabled(api.url, NAME, true);
      assert.equal(count('plugins-changed', 'local'), 3);
      await untilRunning(api.url, NAME);
      const third = await plan(api.url, api.token, 'third');
      assert.deepEqual(await instructs(api.url, api.token, third.noteKey), ['after third (sesame)']);

      await deletePlugin(api.url);
      assert.equal(count('plugins-changed', 'local'), 4);
      await until('out of the runtime', () => seen.status() === undefined);
      assert.equal(counts.looks, 5, 'one look per change: install, secrets, disable, enable, delete');
      assert.equal(count('outbox-written', 'local'), 3);
      assert.equal(counts.wakes, 3, 'one wake per outbox row');
      assert.equal(count('plugins-changed', 'remote') + count('secrets-changed', 'remote') + count('outbox-written', 'remote'), 0);
      assertReworded(api);
    });
  });
}

describeOnPostgres('signals, not log lines, across two processes on one PostgreSQL database', () => {
  let db: TestDatabase;
  let a: ServerProcess;
  let b: Running;
  let tokenA: string;
  let tokenB: string;
  let seen: ReturnType<typeof watch>;
  before(async () => {
    db = await createDatabase('postgres');
    // A: a charta-server process; B: an instance in this test's process, whose signals are counted.
    a = await startServerProcess(db, HOOKS);
    b = await startServer(testConfig(db), () => undefined);
    seen = watch(b);
    tokenA = await tokenFor(a.url);
    tokenB = await tokenFor(b.url);
  });
  after(async () => {
    await stopAll();
    await b?.close();
    await db?.drop();
  });

  it('a change through either process reaches the runtime of the other, and each POST event is delivered', async () => {
    const { count, counts } = seen;
    const stateOnA = async () => (await plugin(a.url)).json.runtime.state as string;

    await installPlugin(a.url, NAME, HANDLERS, EXTRA);
    await until('running on B', () => seen.status()?.state === 'running', 10_000);
    await until('running on A', async () => (await stateOnA()) === 'running', 10_000);
    assert.equal(count('plugins-changed', 'remote'), 1, "B heard A's install once");
    assert.equal(counts.looks, 1);

    // A write through A: B hears of its outbox row once; the event is delivered (by either).
    const first = await plan(a.url, tokenA, 'first');
    assert.deepEqual(await instructs(b.url, tokenB, first.noteKey), ['after first (unset)']);
    await until("B heard of A's outbox row", () => count('outbox-written', 'remote') === 1, 10_000);
    // A write through B: signalled here, delivered.
    const second = await plan(b.url, tokenB, 'second');
    assert.equal(count('outbox-written', 'local'), 1);
    assert.deepEqual(await instructs(a.url, tokenA, second.noteKey), ['after second (unset)']);

    // Secrets set through A: B reloads the plugin with them.
    const since = seen.status()!.since;
    await setSecret(a.url, 'sesame');
    await until('B reloaded with the secret', () => seen.status()?.state === 'running' && seen.status()!.since !== since, 10_000);
    assert.equal(count('secrets-changed', 'remote'), 1);
    const third = await plan(b.url, tokenB, 'third');
    assert.deepEqual(await instructs(b.url, tokenB, third.noteKey), ['after third (sesame)']);

    // Disabled and enabled through B: A's runtime follows (as A's own answer shows it).
    await setEnabled(b.url, NAME, false);
    await until('stopped on A', async () => (await stateOnA()) === 'stopped', 10_000);
    await setEnabled(b.url, NAME, true);
    await until('running on A again', async () => (await stateOnA()) === 'running', 10_000);
    await until('running on B again', () => seen.status()?.state === 'running', 10_000);

    // Deleted through A: out of B's runtime.
    await deletePlugin(a.url);
    await until('out of B', () => seen.status() === undefined, 10_000);
    assert.equal(count('plugins-changed', 'remote'), 2, 'install and delete through A, once each');
    assert.equal(count('plugins-changed', 'local'), 2, 'disable and enable through B, once each');
    assert.equal(count('secrets-changed', 'remote'), 1);
    assert.equal(counts.looks, 5, 'one look per change on B');
    await until('the outbox to empty', async () => (await countPluginEvents(b.storage.db)) === 0);
    assert.equal(count('outbox-written', 'remote'), 1);
    assert.equal(count('outbox-written', 'local'), 2);
    // The log lines of both processes (B's stream holds A's too) are reworded.
    assert.ok(
      b.app.logs.recent({ plugin: NAME }).some((r) => /INSTALLED/.test(r.entry.event)),
      "A's install line reached B",
    );
    assertReworded(b);
  });
});
