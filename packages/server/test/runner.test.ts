// The runner child process (docs/plugins.md, "The runner process"): real bundles built as
// `charta plugin build` builds them, loaded in a real child process through PluginRunner.
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Bindings } from '../src/runtime/bindings.ts';
import { PluginRunner, type NoticeLevel, type RunnerStats } from '../src/runtime/runner/client.ts';
import { batchedSender, unbatched } from '../src/runtime/runner/protocol.ts';
import type { CallResult } from '../src/runtime/sandbox/types.ts';
import { effectsOf, event, probePlugin, EVENT_TYPE, PROBE_ENTRY } from './support/sandbox.ts';
import { until } from './support/until.ts';

const ENTRY = PROBE_ENTRY;
const plugin = probePlugin;

const COUNTER = { prelude: 'let calls = 0;', body: "calls++; return [{ type: 'COUNT', calls, secret: this.secrets.TOKEN ?? null }];" };

function runner(options: ConstructorParameters<typeof PluginRunner>[0] = {}): { runner: PluginRunner; notices: { level: NoticeLevel; message: string }[] } {
  const notices: { level: NoticeLevel; message: string }[] = [];
  const r = new PluginRunner({ onNotice: (level, message) => notices.push({ level, message }), ...options });
  runners.push(r);
  return { runner: r, notices };
}
const runners: PluginRunner[] = [];
after(async () => {
  for (const r of runners) await r.close();
});

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

const countOf = (result: CallResult) => effectsOf(result)[0]!['calls'];

describe('the plugin runner process', () => {
  it('starts on the first request, loads a real bundled plugin, lists its handlers and calls one with secrets', async () => {
    const { runner: r } = runner();
    assert.equal(r.pid, undefined, 'no child before the first request');
    const p = await plugin('counter', COUNTER.body, COUNTER.prelude);
    const answer = await r.load(p);
    assert.deepEqual(answer, { ok: true, handlers: [{ entry: ENTRY, name: 'Probe', respondsTo: [EVENT_TYPE] }] });
    assert.ok(r.pid !== undefined && alive(r.pid));
    const result = await r.call('counter', ENTRY, 'Probe', event(), { TOKEN: 's3cret' });
    assert.deepEqual(effectsOf(result), [{ type: 'COUNT', calls: 1, secret: 's3cret' }]);
    assert.deepEqual(r.loadedPlugins(), ['counter']);
  });

  it('runs the child with an empty environment in an empty working directory of its own', async () => {
    const { runner: r } = runner();
    await r.load(await plugin('env', 'return [];'));
    const pid = r.pid!;
    const environ = fs.readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').filter(Boolean);
    // fork() itself passes the IPC channel's descriptor; nothing of the host's environment is there.
    const names = environ.map((line) => line.slice(0, line.indexOf('=')));
    assert.deepEqual(
      names.filter((n) => !n.startsWith('NODE_CHANNEL_')),
      [],
      environ.join(' '),
    );
    assert.ok(Object.keys(process.env).length > 0, 'the host has an environment to leak');
    const cwd = fs.readlinkSync(`/proc/${pid}/cwd`);
    assert.notEqual(cwd, process.cwd());
    assert.match(cwd, /charta-runner-/);
    assert.deepEqual(fs.readdirSync(cwd), []);
  });

  it('keeps each plugin in its own state, and module state between calls', async () => {
    const { runner: r } = runner();
    await r.load(await plugin('one', COUNTER.body, COUNTER.prelude));
    await r.load(await plugin('two', COUNTER.body, COUNTER.prelude));
    assert.equal(countOf(await r.call('one', ENTRY, 'Probe', event(), {})), 1);
    assert.equal(countOf(await r.call('one', ENTRY, 'Probe', event(), {})), 2);
    assert.equal(countOf(await r.call('two', ENTRY, 'Probe', event(), {})), 1);
    // Secrets go to the call they are given to only.
    const withSecret = await r.call('one', ENTRY, 'Probe', event(), { TOKEN: 'only-one' });
    assert.equal(effectsOf(withSecret)[0]!['secret'], 'only-one');
    assert.equal(effectsOf(await r.call('two', ENTRY, 'Probe', event(), {}))[0]!['secret'], null);
  });

  it('replaces a plugin on a new load, keeps the loaded version when a load fails, and forgets it on unload', async () => {
    const { runner: r } = runner();
    await r.load(await plugin('swap', "return [{ type: 'V1' }];"));
    await r.load(await plugin('swap', "return [{ type: 'V2' }];"));
    assert.deepEqual(effectsOf(await r.call('swap', ENTRY, 'Probe', event(), {})), [{ type: 'V2' }]);
    const broken = await r.load(await plugin('swap', 'return [];', "throw new Error('boom at load');"));
    assert.equal(broken.ok, false);
    assert.match((broken as { reasons: string[] }).reasons.join(' '), /probe\/handlers\.js: .*boom at load/);
    assert.deepEqual(effectsOf(await r.call('swap', ENTRY, 'Probe', event(), {})), [{ type: 'V2' }]);
    await r.unload('swap');
    const gone = await r.call('swap', ENTRY, 'Probe', event(), {});
    assert.equal(gone.outcome.kind, 'unavailable');
    assert.deepEqual(r.loadedPlugins(), []);
  });

  it('an unload asked for while a load is under way wins', async () => {
    const { runner: r } = runner();
    const loading = r.load(await plugin('brief', 'return [];'));
    await r.unload('brief');
    assert.equal((await loading).ok, true);
    assert.deepEqual(r.loadedPlugins(), []);
    assert.equal((await r.call('brief', ENTRY, 'Probe', event(), {})).outcome.kind, 'unavailable');
  });

  it('answers a call of an unknown entry or handler with no-such-handler, and a sandbox fault with its outcome', async () => {
    const { runner: r } = runner();
    await r.load(await plugin('faulty', "throw new TypeError('nope');"));
    assert.equal((await r.call('faulty', 'other.js', 'Probe', event(), {})).outcome.kind, 'no-such-handler');
    assert.equal((await r.call('faulty', ENTRY, 'Missing', event(), {})).outcome.kind, 'no-such-handler');
    assert.deepEqual((await r.call('faulty', ENTRY, 'Probe', event(), {})).outcome, { kind: 'threw', message: 'TypeError: nope' });
  });

  it('check loads a plugin in fresh runtimes: nothing is loaded, its calls answer unavailable', async () => {
    const { runner: r } = runner();
    const answer = await r.check(await plugin('checked', 'return [];'));
    assert.equal(answer.ok, true);
    assert.equal((await r.call('checked', ENTRY, 'Probe', event(), {})).outcome.kind, 'unavailable');
    assert.deepEqual(r.loadedPlugins(), []);
  });

  it('SIGKILL of the child during a call: the call resolves crashed, an error notice is given, the child restarts with the plugin loaded again', async () => {
    const { runner: r, notices } = runner();
    await r.load(
      await plugin('loop', "if (this.event.context.fields.narrative === 'spin') for (;;) {} return [{ type: 'DONE' }];", '', { deadlineMs: 60_000 }),
    );
    await r.load(await plugin('bystander', COUNTER.body, COUNTER.prelude));
    assert.equal(countOf(await r.call('bystander', ENTRY, 'Probe', event(), {})), 1);
    const first = r.pid!;
    const spinning = r.call('loop', ENTRY, 'Probe', event({ context: { fields: { narrative: 'spin' } } }), {});
    await until('the call begun', () => r.begun > 0, { every: 5 });
    process.kill(first, 'SIGKILL');
    const result = await spinning;
    assert.equal(result.outcome.kind, 'crashed');
    assert.match((result.outcome as { message: string }).message, /the plugin runner process died \(signal SIGKILL\)/);
    assert.ok(
      notices.some((n) => n.level === 'error' && /the plugin runner process died/.test(n.message)),
      JSON.stringify(notices),
    );

    const next = await r.call('loop', ENTRY, 'Probe', event(), {});
    assert.deepEqual(effectsOf(next), [{ type: 'DONE' }]);
    assert.ok(r.pid !== undefined && r.pid !== first, 'a new child runs');
    assert.equal(alive(first), false);
    // The other plugin was loaded again too, with fresh module state.
    assert.equal(countOf(await r.call('bystander', ENTRY, 'Probe', event(), {})), 1);
  });

  it('a load under way when the child dies answers why and is not loaded again; the plugins loaded before are', async () => {
    const { runner: r } = runner();
    await r.load(await plugin('steady', COUNTER.body, COUNTER.prelude));
    const loading = r.load(await plugin('suspect', 'return [];', 'for (;;) {}', { deadlineMs: 60_000 }));
    await until('the call begun', () => r.begun > 0, { every: 5 });
    process.kill(r.pid!, 'SIGKILL');
    const answer = await loading;
    assert.equal(answer.ok, false);
    assert.match((answer as { reasons: string[] }).reasons.join(' '), /the plugin runner process died \(signal SIGKILL\)/);
    assert.equal(countOf(await r.call('steady', ENTRY, 'Probe', event(), {})), 1);
    assert.equal((await r.call('suspect', ENTRY, 'Probe', event(), {})).outcome.kind, 'unavailable');
    assert.deepEqual(r.loadedPlugins(), ['steady']);
  });

  it('waits longer before each restart while the child keeps dying soon after its start', async () => {
    const { runner: r, notices } = runner();
    await r.load(await plugin('survivor', COUNTER.body, COUNTER.prelude));
    for (let i = 0; i < 3; i++) {
      const pid = r.pid!;
      process.kill(pid, 'SIGKILL');
      await until('a new runner process', () => r.pid !== undefined && r.pid !== pid, { every: 5 });
      // The restarted child serves the reloaded plugin.
      assert.equal(countOf(await r.call('survivor', ENTRY, 'Probe', event(), {})), 1);
    }
    const deaths = notices.filter((n) => n.level === 'error').map((n) => n.message);
    assert.equal(deaths.length, 3, deaths.join('\n'));
    assert.match(deaths[0]!, /restarting it and loading 1 plugin\(s\) again$/);
    assert.match(deaths[1]!, /restarting it in 250 ms/);
    assert.match(deaths[2]!, /restarting it in 500 ms/);
  });

  it('kills and restarts a child that works on a call past its guard time', async () => {
    const notices: { level: NoticeLevel; message: string }[] = [];
    // A guard shorter than the plugin's own deadline stands for a child that hangs.
    const r = new PluginRunner({ guardMarginMs: -58_000, onNotice: (level, message) => notices.push({ level, message }) });
    runners.push(r);
    await r.load(await plugin('hang', "if (this.event.context.fields.narrative === 'spin') for (;;) {} return [{ type: 'OK' }];", '', { deadlineMs: 60_000 }));
    const first = r.pid!;
    const result = await r.call('hang', ENTRY, 'Probe', event({ context: { fields: { narrative: 'spin' } } }), {});
    assert.equal(result.outcome.kind, 'crashed');
    assert.match((result.outcome as { message: string }).message, /did not answer within 2000 ms/);
    assert.ok(
      notices.some((n) => n.level === 'error' && /plugin hang: calling Probe/.test(n.message)),
      JSON.stringify(notices),
    );
    assert.deepEqual(effectsOf(await r.call('hang', ENTRY, 'Probe', event(), {})), [{ type: 'OK' }]);
    assert.notEqual(r.pid, first);
  });

  it('a killed host leaves neither its child nor the directory behind', async () => {
    const host = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(new URL('./support/runner-host.ts', import.meta.url))], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    host.stdout.setEncoding('utf8');
    host.stdout.on('data', (text: string) => (out += text));
    try {
      await until('the host to print its pid or exit', () => out.includes('\n') || host.exitCode !== null, { every: 5 });
      const { pid, cwd } = JSON.parse(out) as { pid: number; cwd: string };
      assert.ok(alive(pid) && fs.existsSync(cwd));
      host.kill('SIGKILL');
      await until('the runner gone and its folder removed', () => !alive(pid) && !fs.existsSync(cwd), { every: 5 });
    } finally {
      host.kill('SIGKILL');
    }
  });

  it('close() kills the child and removes its directory; later requests answer that the runner is closed', async () => {
    const r = new PluginRunner();
    await r.load(await plugin('closing', 'return [];'));
    const pid = r.pid!;
    const cwd = fs.readlinkSync(`/proc/${pid}/cwd`);
    await r.close();
    assert.equal(alive(pid), false);
    assert.equal(fs.existsSync(cwd), false);
    assert.equal(r.pid, undefined);
    assert.deepEqual((await r.call('closing', ENTRY, 'Probe', event(), {})).outcome, { kind: 'unavailable', message: 'the plugin runner is closed' });
    assert.deepEqual(await r.load(await plugin('closing', 'return [];')), { ok: false, reasons: ['the plugin runner is closed'] });
    assert.equal(r.pid, undefined, 'no child was started after close');
  });
});

describe('the isolate of a check, taken by the load of the same code (docs/plugins.md, "The install check")', () => {
  const binding = '(globalThis as unknown as { __charta_binding(name: string, args?: unknown): Promise<unknown> }).__charta_binding';
  const stats = async (r: PluginRunner): Promise<RunnerStats> => (await r.stats())!;
  /** What the child counts of its isolates, without its memory. */
  const counts = ({ isolatesStarted, checkedTaken, checkedKept }: RunnerStats) => ({ isolatesStarted, checkedTaken, checkedKept });

  it('a load of exactly what was checked takes the checked isolate: its modules are not evaluated again, its state is fresh and its bindings reach the host', async () => {
    const bindings = new Bindings();
    bindings.register('test.echo', (plugin, args) => ({ plugin, args }));
    const { runner: r } = runner({ bindings });
    const p = await plugin(
      'taken',
      `calls++; const answer = await ${binding}('test.echo', { calls }); return [{ type: 'COUNT', calls, answer }];`,
      'let calls = 0;',
    );
    const handlers = [{ entry: ENTRY, name: 'Probe', respondsTo: [EVENT_TYPE] }];
    assert.deepEqual(await r.check(p), { ok: true, handlers });
    assert.deepEqual(counts(await stats(r)), { isolatesStarted: 1, checkedTaken: 0, checkedKept: 1 });
    assert.deepEqual(await r.load(p), { ok: true, handlers });
    assert.deepEqual(counts(await stats(r)), { isolatesStarted: 1, checkedTaken: 1, checkedKept: 0 }, 'no second isolate evaluated the modules');
    // Nothing ran in it since its modules were evaluated once; a binding goes to the host under the plugin's name.
    assert.deepEqual(effectsOf(await r.call('taken', ENTRY, 'Probe', event(), {})), [
      { type: 'COUNT', calls: 1, answer: { plugin: 'taken', args: { calls: 1 } } },
    ]);
    assert.equal(countOf(await r.call('taken', ENTRY, 'Probe', event(), {})), 2);
    // A load with no check before it starts an isolate of its own: the check's is not taken twice.
    assert.deepEqual(await r.load(p), { ok: true, handlers });
    assert.deepEqual(counts(await stats(r)), { isolatesStarted: 2, checkedTaken: 1, checkedKept: 0 });
    assert.equal(countOf(await r.call('taken', ENTRY, 'Probe', event(), {})), 1);
  });

  it('a load of anything but what was checked never takes its isolate: one character of the text, the limits, the name', async () => {
    const { runner: r } = runner();
    const checked = await plugin('changed', "return [{ type: 'V1' }];");
    const source = checked.modules[0]!.source;
    assert.equal(source.split('V1').length, 2, 'the bundle names V1 once');
    assert.equal((await r.check(checked)).ok, true);
    // The package changed between the check and the load (another update, a row changed): the load runs its own text.
    const changed = { ...checked, modules: [{ entry: ENTRY, source: source.replace('V1', 'V2') }] };
    assert.equal((await r.load(changed)).ok, true);
    assert.deepEqual(effectsOf(await r.call('changed', ENTRY, 'Probe', event(), {})), [{ type: 'V2' }]);
    assert.deepEqual(counts(await stats(r)), { isolatesStarted: 2, checkedTaken: 0, checkedKept: 1 });
    assert.equal((await r.load({ ...checked, limits: { deadlineMs: 900 } })).ok, true);
    assert.equal((await r.load({ ...checked, name: 'renamed' })).ok, true);
    assert.deepEqual(counts(await stats(r)), { isolatesStarted: 4, checkedTaken: 0, checkedKept: 1 });
    // What was checked, exactly: its isolate.
    assert.equal((await r.load(checked)).ok, true);
    assert.deepEqual(counts(await stats(r)), { isolatesStarted: 4, checkedTaken: 1, checkedKept: 0 });
    assert.deepEqual(effectsOf(await r.call('changed', ENTRY, 'Probe', event(), {})), [{ type: 'V1' }]);
  });

  it('keeps the isolates of the last 4 checks that passed, and none of a check that failed', async () => {
    const { runner: r } = runner();
    const plugins = await Promise.all([1, 2, 3, 4, 5].map((i) => plugin(`checked-${i}`, 'return [];')));
    for (const p of plugins) assert.equal((await r.check(p)).ok, true);
    assert.equal((await r.check(await plugin('failing', 'return [];', "throw new Error('boom at load');"))).ok, false);
    assert.deepEqual(counts(await stats(r)), { isolatesStarted: 6, checkedTaken: 0, checkedKept: 4 });
    // The oldest was ended: its load starts an isolate; a later one's is taken.
    assert.equal((await r.load(plugins[0]!)).ok, true);
    assert.equal((await r.load(plugins[4]!)).ok, true);
    assert.deepEqual(counts(await stats(r)), { isolatesStarted: 7, checkedTaken: 1, checkedKept: 3 });
  });
});

describe('the channel between the host and the runner child', () => {
  it('sends the messages of one turn as one batch, in order, at the next turn', async () => {
    const sent: number[][] = [];
    const send = batchedSender<number>((batch) => sent.push(batch));
    for (const n of [1, 2, 3]) send(n);
    assert.deepEqual(sent, [], 'nothing leaves before the turn ends');
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(sent, [[1, 2, 3]]);
    assert.deepEqual(unbatched(sent[0]), [1, 2, 3]);
    assert.deepEqual(unbatched(7), [7]);
  });

  it('with leaveAt, a batch leaves as soon as it is full: a long turn does not hold every message until it ends', async () => {
    const sent: number[][] = [];
    const send = batchedSender<number>((batch) => sent.push(batch), 8);
    for (let n = 1; n <= 20; n++) send(n);
    assert.deepEqual(sent, [
      [1, 2, 3, 4, 5, 6, 7, 8],
      [9, 10, 11, 12, 13, 14, 15, 16],
    ]);
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(sent.at(-1), [17, 18, 19, 20]);
    assert.equal(sent.length, 3, 'the turn ends with one more batch, not one per message');
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(sent.length, 3, 'an empty batch is never sent');
  });
});
