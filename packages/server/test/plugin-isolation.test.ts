// Plugins cannot hurt each other in the runner (docs/plugins.md, "The runner process" and
// "Faults"): each plugin's isolate is ended alone when a built-in runs past its deadline, a call's
// clock starts when the call does, answers of any size leave at once, a plugin's modules share one
// memory limit, the plugins together stay within the runner's, an unloaded plugin's memory is
// freed, and a plugin whose reload fails after a restart fails alone. Real bundles in a real
// runner child process.
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { PluginRunner } from '../src/runtime/runner/client.ts';
import type { CallResult } from '../src/runtime/sandbox/types.ts';
import { bundle, effectsOf, event, handler, probePlugin, PROBE_ENTRY } from './support/sandbox.ts';

const MiB = 1024 * 1024;
const runners: PluginRunner[] = [];
after(async () => {
  for (const r of runners) await r.close();
});

function newRunner(options: ConstructorParameters<typeof PluginRunner>[0] = {}): PluginRunner {
  const r = new PluginRunner(options);
  runners.push(r);
  return r;
}

const COUNTER = { prelude: 'let calls = 0;', body: "calls++; return [{ type: 'COUNT', calls }];" };
const call = (r: PluginRunner, name: string, narrative = 'plan') => r.call(name, PROBE_ENTRY, 'Probe', event({ context: { fields: { narrative } } }), {});
const countOf = (result: CallResult) => effectsOf(result)[0]!['calls'];

/** Built-ins QuickJS runs in C without looking at the deadline (each found by attacking the runtime). */
const ATTACKS: Record<string, string> = {
  indexOf: 'Array.prototype.indexOf.call({ length: 2 ** 40 }, 1)',
  includes: 'Array.prototype.includes.call({ length: 2 ** 40 }, 1)',
  lastIndexOf: 'Array.prototype.lastIndexOf.call({ length: 2 ** 40 }, 1)',
  join: 'Array.prototype.join.call({ length: 2 ** 40 })',
  reverse: 'Array.prototype.reverse.call({ length: 2 ** 40 })',
  copyWithin: 'Array.prototype.copyWithin.call({ length: 2 ** 40 }, 0, 1)',
  'join of a sparse array': 'new Array(2 ** 32 - 1).join()',
  'String indexOf': "'a'.repeat(2 ** 24).indexOf('a'.repeat(2 ** 23) + 'b')",
};

describe('plugins cannot hurt each other in the runner', () => {
  it('a built-in that never checks the deadline ends its own plugin’s isolate only, for each one found', async () => {
    const r = newRunner();
    const cases = Object.entries(ATTACKS)
      .map(([name, code]) => `if (this.event.context.fields.narrative === ${JSON.stringify(name)}) ${code};`)
      .join('\n');
    assert.equal((await r.load(await probePlugin('hostile', `${cases}\nreturn [{ type: 'OK' }];`, '', { deadlineMs: 300, memoryBytes: 64 * MiB }))).ok, true);
    assert.equal((await r.load(await probePlugin('bystander', COUNTER.body, COUNTER.prelude))).ok, true);
    const pid = r.pid;
    let count = 0;
    for (const name of Object.keys(ATTACKS)) {
      const attack = call(r, 'hostile', name);
      // The bystander answers while the attack runs, from the same module state.
      const meanwhile = await call(r, 'bystander');
      assert.equal(countOf(meanwhile), ++count, name);
      const result = await attack;
      assert.deepEqual(result.outcome, { kind: 'timeout', deadlineMs: 300, ended: true }, `${name}: ${JSON.stringify(result.outcome)}`);
      // The hostile plugin is loaded again in a new isolate for its next call.
      assert.deepEqual(effectsOf(await call(r, 'hostile')), [{ type: 'OK' }], name);
    }
    assert.equal(r.pid, pid, 'the runner process was never restarted');
  });

  it("a call's clock starts when it starts: another plugin's slow legal call does not make it time out", async () => {
    const r = newRunner();
    await r.load(await probePlugin('slow', "for (const end = Date.now() + 2500; Date.now() < end; ); return [{ type: 'SLOW' }];", '', { deadlineMs: 3000 }));
    await r.load(await probePlugin('quick', "return [{ type: 'QUICK' }];"));
    const pid = r.pid;
    const slow = call(r, 'slow');
    const quick = call(r, 'quick');
    const first = await Promise.race([slow.then(() => 'slow'), quick.then(() => 'quick')]);
    assert.equal(first, 'quick', 'the quick call did not wait for the slow one');
    assert.deepEqual(effectsOf(await quick), [{ type: 'QUICK' }]);
    assert.deepEqual(effectsOf(await slow), [{ type: 'SLOW' }]);
    assert.equal(r.pid, pid);
  });

  it("a call waiting behind its own plugin's calls has its queue time reported apart and keeps its own deadline", async () => {
    const r = newRunner();
    await r.load(await probePlugin('steady', "for (const end = Date.now() + 400; Date.now() < end; ); return [{ type: 'DONE' }];", '', { deadlineMs: 1000 }));
    const results = await Promise.all([call(r, 'steady'), call(r, 'steady'), call(r, 'steady'), call(r, 'steady')]);
    // Four 400 ms calls in a row: the last waited about 1200 ms, longer than its deadline, and still ran whole.
    for (const result of results) assert.deepEqual(effectsOf(result), [{ type: 'DONE' }]);
    const queued = results.map((result) => result.queuedMs!);
    assert.ok(queued.every((ms) => typeof ms === 'number'));
    assert.ok(queued[3]! > queued[0]!, JSON.stringify(queued));
  });

  it('answers far larger than a socket buffer leave at once, however many calls of one plugin run back to back', async () => {
    const r = newRunner();
    // Eight 600 ms calls in a row: longer than a call's deadline and the host's margin together.
    const body = `for (const end = Date.now() + 600; Date.now() < end; );
for (let i = 0; i < 100; i++) this.log.info(String(i).padStart(4000, '.'));
return [{ type: 'BIG' }];`;
    await r.load(await probePlugin('chatty', body));
    const pid = r.pid;
    const results = await Promise.all(Array.from({ length: 8 }, () => call(r, 'chatty')));
    for (const result of results) {
      assert.deepEqual(effectsOf(result), [{ type: 'BIG' }]);
      assert.equal(result.logs.length, 100);
    }
    assert.equal(r.pid, pid);
  });

  it("reading the runner's memory while a plugin's call runs waits for it and ends nothing", async () => {
    const r = newRunner();
    // Busy for 300 ms: well within the second a memory question waits for a plugin's queue, even
    // on a loaded machine (at 600 ms, a CI machine's contention once pushed it past the second).
    await r.load(await probePlugin('busy', "for (const end = Date.now() + 300; Date.now() < end; ); return [{ type: 'DONE' }];"));
    const pid = r.pid;
    const running = call(r, 'busy');
    await new Promise((resolve) => setTimeout(resolve, 100));
    const stats = (await r.stats())!;
    assert.deepEqual(effectsOf(await running), [{ type: 'DONE' }]);
    assert.deepEqual(
      stats.plugins.map((p) => p.name),
      ['busy'],
    );
    assert.ok(stats.plugins[0]!.memoryBytes! > 0, JSON.stringify(stats));
    assert.deepEqual(effectsOf(await call(r, 'busy')), [{ type: 'DONE' }]);
    assert.equal(r.pid, pid);
  });

  it("all of a plugin's modules share one runtime and one memory limit", async () => {
    const r = newRunner();
    // Each module keeps 30 MiB alive at load: two fit in 64 MiB (and the interpreter's own 16), three do not.
    const module = async (entry: string) => ({
      entry,
      source: await bundle(handler('return [];', 'export const kept = new Uint8Array(30 * 1024 * 1024).fill(1);')),
    });
    const plugin = (count: number) => Promise.all(Array.from({ length: count }, (_, i) => module(`m${i}/handlers.js`)));
    const limits = { memoryBytes: 64 * MiB };
    const two = await r.load({ name: 'two', manifest: {} as never, modules: await plugin(2), limits });
    assert.equal(two.ok, true, JSON.stringify(two));
    const three = await r.load({ name: 'three', manifest: {} as never, modules: await plugin(3), limits });
    assert.equal(three.ok, false);
    assert.match(
      (three as { reasons: string[] }).reasons.join('\n'),
      /m2\/handlers\.js: evaluating the module ran out of memory \(limit 67108864 bytes, shared by the plugin's modules\)/,
    );
  });

  it('plugins loaded all at once start their isolates a few at a time, each under its own clock: every one loads', async () => {
    const r = newRunner();
    await r.load(await probePlugin('first', 'return [];'));
    const { loadsAtOnce } = (await r.stats())!;
    assert.ok(loadsAtOnce >= 2, String(loadsAtOnce));
    // Each module keeps its isolate busy 150 ms while it is evaluated, and says when.
    const prelude = 'const started = Date.now(); while (Date.now() - started < 150) {} const ended = Date.now();';
    const names = Array.from({ length: loadsAtOnce + 3 }, (_, i) => `busy-${i}`);
    const plugins = await Promise.all(names.map((name) => probePlugin(name, "return [{ type: 'EVALUATED', started, ended }];", prelude)));
    const answers = await Promise.all(plugins.map((p) => r.load(p)));
    assert.deepEqual(
      answers.map((a) => a.ok),
      names.map(() => true),
      JSON.stringify(answers),
    );
    const windows = await Promise.all(names.map(async (name) => effectsOf(await call(r, name))[0] as { started: number; ended: number }));
    const overlapping = Math.max(...windows.map((w) => windows.filter((o) => o.started <= w.started && w.started < o.ended).length));
    assert.ok(overlapping <= loadsAtOnce, `${overlapping} modules were evaluated at once: ${JSON.stringify(windows)}`);
  });

  it("the plugins loaded together stay within the runner's maximum", async () => {
    const r = newRunner({ maxTotalMemoryBytes: 64 * MiB });
    assert.equal((await r.load(await probePlugin('first', 'return [];', '', { memoryBytes: 32 * MiB }))).ok, true);
    assert.equal((await r.load(await probePlugin('second', 'return [];', '', { memoryBytes: 32 * MiB }))).ok, true);
    // A new version of a loaded plugin replaces its own share.
    assert.equal((await r.load(await probePlugin('second', 'return [];', '', { memoryBytes: 32 * MiB }))).ok, true);
    const third = await r.load(await probePlugin('third', 'return [];', '', { memoryBytes: 16 * MiB }));
    assert.deepEqual(third, {
      ok: false,
      reasons: ["the plugins loaded already ask for 64 MiB of the runner's 64 MiB, so its 16 MiB do not fit (CHARTA_PLUGIN_RUNNER_MAX_MEMORY_MB)"],
    });
    await r.unload('first');
    assert.equal((await r.load(await probePlugin('third', 'return [];', '', { memoryBytes: 16 * MiB }))).ok, true);
  });

  it("unloading a plugin frees its memory; the runner reports each plugin's", async () => {
    const r = newRunner();
    await r.load(await probePlugin('small', 'return [];'));
    await r.load(await probePlugin('hog', 'return [];', 'export const kept = new Uint8Array(100 * 1024 * 1024).fill(1);', { memoryBytes: 128 * MiB }));
    const before = (await r.stats())!;
    const hog = before.plugins.find((p) => p.name === 'hog');
    assert.ok(hog !== undefined && hog.memoryBytes! > 100 * MiB, JSON.stringify(before));
    assert.ok(before.plugins.find((p) => p.name === 'small')!.memoryBytes! < 32 * MiB, JSON.stringify(before));
    await r.unload('hog');
    let afterUnload = (await r.stats())!;
    assert.deepEqual(
      afterUnload.plugins.map((p) => p.name),
      ['small'],
    );
    // The isolate's thread ends at once; its memory goes back to the system a moment later.
    for (let i = 0; i < 100 && before.rssBytes - afterUnload.rssBytes <= 80 * MiB; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      afterUnload = (await r.stats())!;
    }
    assert.ok(before.rssBytes - afterUnload.rssBytes > 80 * MiB, `the runner held ${before.rssBytes} bytes, then ${afterUnload.rssBytes}`);
  });

  it('a plugin whose reload fails after a restart fails alone; the others are loaded again and run', async () => {
    const failed: Array<{ name: string; reasons: string[] }> = [];
    const r = newRunner({ onReloadFailed: (name, reasons) => failed.push({ name, reasons }) });
    // A time bomb: its module evaluates in time at install, and hangs in a built-in once its hour has come.
    const bomb = Date.now() + 1500;
    await r.load(
      await probePlugin('bomb', 'return [];', `if (Date.now() > ${bomb}) Array.prototype.indexOf.call({ length: 2 ** 40 }, 1);`, { deadlineMs: 300 }),
    );
    await r.load(await probePlugin('innocent-a', COUNTER.body, COUNTER.prelude));
    await r.load(await probePlugin('innocent-b', COUNTER.body, COUNTER.prelude));
    assert.equal(countOf(await call(r, 'innocent-a')), 1);
    while (Date.now() <= bomb) await new Promise((resolve) => setTimeout(resolve, 50));
    const pid = r.pid!;
    process.kill(pid, 'SIGKILL');
    while (r.pid === undefined || r.pid === pid) await new Promise((resolve) => setTimeout(resolve, 20));
    // Both innocents answer from the new child (fresh module state) while the bomb fails to load.
    assert.equal(countOf(await call(r, 'innocent-a')), 1);
    assert.equal(countOf(await call(r, 'innocent-b')), 1);
    while (failed.length === 0) await new Promise((resolve) => setTimeout(resolve, 50));
    assert.equal(failed.length, 1);
    assert.equal(failed[0]!.name, 'bomb');
    assert.match(failed[0]!.reasons.join(' '), /without stopping at the deadline .*its isolate was ended/);
    assert.deepEqual(r.loadedPlugins().sort(), ['innocent-a', 'innocent-b']);
    assert.equal((await call(r, 'bomb')).outcome.kind, 'unavailable');
    assert.notEqual(r.pid, pid);
  });

  it('a plugin whose ended isolate cannot be loaded again is reported at once, not at its next call', async () => {
    const failed: Array<{ name: string; reasons: string[] }> = [];
    const r = newRunner({ onReloadFailed: (name, reasons) => failed.push({ name, reasons }) });
    const hang = 'Array.prototype.indexOf.call({ length: 2 ** 40 }, 1);';
    // The fuse must burn after the first load: on a loaded machine a load can take longer than
    // the fuse, so a load that ended past it (and so hung and failed) is tried with a longer one.
    let fuse = 0;
    for (let budget = 800; ; budget *= 2) {
      fuse = Date.now() + budget;
      const loaded = await r.load(await probePlugin('fuse', `${hang} return [];`, `if (Date.now() > ${fuse}) ${hang}`, { deadlineMs: 200 }));
      if (loaded.ok && Date.now() < fuse) break;
      assert.ok(budget < 12_800, `the plugin did not load within ${budget} ms`);
    }
    while (Date.now() <= fuse) await new Promise((resolve) => setTimeout(resolve, 50));
    assert.deepEqual((await call(r, 'fuse')).outcome, { kind: 'timeout', deadlineMs: 200, ended: true });
    while (failed.length === 0) await new Promise((resolve) => setTimeout(resolve, 50));
    assert.equal(failed[0]!.name, 'fuse');
    assert.match(failed[0]!.reasons.join(' '), /could not be loaded again after its isolate was ended: .*without stopping at the deadline/);
    assert.equal((await call(r, 'fuse')).outcome.kind, 'unavailable');
  });

  it('ending one isolate starts that plugin over in a new one and leaves the others as they are', async () => {
    const r = newRunner();
    await r.load(await probePlugin('ended', COUNTER.body, COUNTER.prelude));
    await r.load(await probePlugin('kept', COUNTER.body, COUNTER.prelude));
    assert.equal(countOf(await call(r, 'ended')), 1);
    assert.equal(countOf(await call(r, 'kept')), 1);
    await r.endIsolate('ended');
    assert.equal(countOf(await call(r, 'ended')), 1, 'a new isolate, fresh module state');
    assert.equal(countOf(await call(r, 'kept')), 2, 'the other plugin kept its state');
  });
});
