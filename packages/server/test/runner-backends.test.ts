// The runner's room for more (docs/plugins.md, "Bindings"; docs/architecture.md, "Plugin runtime"):
// a second sandbox backend is one file and one registry entry (support/echo-backend.mjs, given to
// the runner as a backend module), and a handler's call can ask the server for a binding through
// the real runner child and a real QuickJS isolate.
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { pathToFileURL } from 'node:url';
import { fileURLToPath } from 'node:url';
import type { ChartaManifest } from '@charta/plugin-sdk/manifest';
import { Bindings } from '../src/runtime/bindings.ts';
import { PluginRunner, type PluginRunnerOptions } from '../src/runtime/runner/client.ts';
import type { RunnablePlugin } from '../src/runtime/runnable.ts';
import { effectsOf, event, probePlugin, PROBE_ENTRY } from './support/sandbox.ts';

const ECHO_BACKEND = pathToFileURL(fileURLToPath(new URL('./support/echo-backend.mjs', import.meta.url))).href;

const runners: PluginRunner[] = [];
after(async () => {
  for (const r of runners) await r.close();
});
function runner(options: PluginRunnerOptions = {}): PluginRunner {
  const r = new PluginRunner(options);
  runners.push(r);
  return r;
}

/** A plugin for the echo backend: its entry file is JSON naming its handlers and their events. */
const echoPlugin = (name: string): RunnablePlugin => ({
  name,
  manifest: {} as ChartaManifest,
  modules: [{ entry: 'echo/handlers.json', source: JSON.stringify({ Echo: ['PLAN_COMMAND__POST_COMMIT'] }) }],
  limits: {},
});

describe('sandbox backends', () => {
  it('a backend registered by one module runs plugins through the real runner child and isolates', async () => {
    const r = runner({ backendModules: [ECHO_BACKEND], backend: 'echo' });
    const answer = await r.load(echoPlugin('echoed'));
    assert.deepEqual(answer, { ok: true, handlers: [{ entry: 'echo/handlers.json', name: 'Echo', respondsTo: ['PLAN_COMMAND__POST_COMMIT'] }] });
    const result = await r.call('echoed', 'echo/handlers.json', 'Echo', { type: 'PLAN_COMMAND__POST_COMMIT' }, { TOKEN: 't' });
    assert.deepEqual(effectsOf(result), [
      {
        type: 'ECHO',
        backend: 'echo',
        prepared: 'prepared in the main thread',
        plugin: 'echoed',
        entry: 'echo/handlers.json',
        handler: 'Echo',
        event: { type: 'PLAN_COMMAND__POST_COMMIT' },
        secrets: { TOKEN: 't' },
      },
    ]);
    assert.equal((await r.call('echoed', 'echo/handlers.json', 'Other', {}, {})).outcome.kind, 'no-such-handler');
  });

  it('a backend serves bindings too: the binding table is the same whatever runs the plugin', async () => {
    const bindings = new Bindings();
    bindings.register('test.echo', (plugin, args) => ({ plugin, args }));
    const r = runner({ backendModules: [ECHO_BACKEND], backend: 'echo', bindings });
    assert.equal((await r.load(echoPlugin('asks'))).ok, true);
    const result = await r.call('asks', 'echo/handlers.json', 'Echo', { binding: 'test.echo', args: [1, 'two'] }, {});
    assert.deepEqual(effectsOf(result), [{ type: 'BINDING', answer: { ok: true, value: { plugin: 'asks', args: [1, 'two'] } } }]);
  });

  it('a backend no registry names is a clear load failure, and the default backend is still there', async () => {
    const r = runner({ backend: 'nonesuch' });
    const answer = await r.load(echoPlugin('lost'));
    assert.deepEqual(answer, { ok: false, reasons: ['the sandbox backend "nonesuch" is not known here (known: quickjs)'] });
    const quickjs = runner();
    assert.equal((await quickjs.load(await probePlugin('plain', 'return [];'))).ok, true);
  });
});

describe('bindings', () => {
  const bindings = new Bindings();
  const calls: unknown[] = [];
  bindings.register('test.echo', (plugin, args) => {
    calls.push(args);
    return { plugin, args };
  });
  bindings.register('test.throws', () => {
    throw new Error('the record is locked');
  });
  bindings.register('test.slow', () => new Promise((resolve) => setTimeout(() => resolve('late'), 3000)));
  bindings.register('test.big', () => 'y'.repeat(1024 * 1024 + 1));
  const shared = runner({ bindings });

  const call = async (name: string, body: string, prelude = '', limits = {}) => {
    assert.equal((await shared.load(await probePlugin(name, body, prelude, limits))).ok, true);
    return shared.call(name, PROBE_ENTRY, 'Probe', event(), {});
  };
  const binding = '(globalThis as unknown as { __charta_binding(name: string, args?: unknown): Promise<unknown> }).__charta_binding';

  it("a plugin calling a binding gets its answer, and the binding learns which plugin asked (the runner's word)", async () => {
    const result = await call('reads', `const answer = await ${binding}('test.echo', { n: 1 }); return [{ type: 'ANSWER', answer }];`);
    assert.deepEqual(effectsOf(result), [{ type: 'ANSWER', answer: { plugin: 'reads', args: { n: 1 } } }]);
  });

  it('a binding that throws rejects with its message and nothing of the server (no stack); an unknown binding rejects', async () => {
    const result = await call(
      'refused',
      `const out = [];
for (const name of ['test.throws', 'test.nope']) {
  try { await ${binding}(name, null); out.push({ type: 'NO' }); }
  catch (e) { out.push({ type: 'CAUGHT', name: (e as Error).name, message: (e as Error).message, stack: String((e as Error).stack ?? '') }); }
}
return out;`,
    );
    const [thrown, unknown] = effectsOf(result);
    assert.equal(thrown!['message'], 'the record is locked');
    assert.doesNotMatch(String(thrown!['stack']), /bindings\.ts|node:|\/work\/|client\.ts/);
    assert.equal(unknown!['message'], 'no binding named test.nope is available');
  });

  it('a binding slower than the deadline ends the call as a timeout', async () => {
    const started = Date.now();
    const result = await call('waits', `await ${binding}('test.slow', null); return [{ type: 'NEVER' }];`, '', { deadlineMs: 300 });
    assert.equal(result.outcome.kind, 'timeout', JSON.stringify(result));
    assert.ok(Date.now() - started < 2500, 'the call ended at its deadline, not when the binding answered');
  });

  it('arguments or an answer over 1 MiB of JSON are refused, and the binding is never called with such arguments', async () => {
    const before = calls.length;
    const result = await call(
      'floods',
      `const out = [];
for (const [name, args] of [['test.echo', 'x'.repeat(1024 * 1024 + 10)], ['test.big', null]] as const) {
  try { await ${binding}(name, args); out.push({ type: 'NO' }); }
  catch (e) { out.push({ type: 'CAUGHT', name: (e as Error).name, message: (e as Error).message }); }
}
return out;`,
    );
    const [args, answer] = effectsOf(result);
    assert.deepEqual(args, {
      type: 'CAUGHT',
      name: 'RangeError',
      message: 'the arguments of binding test.echo are longer than 1048576 characters of JSON (the limit)',
    });
    assert.deepEqual(answer, {
      type: 'CAUGHT',
      name: 'Error',
      message: 'the answer of binding test.big is longer than 1048576 characters of JSON (the limit)',
    });
    assert.equal(calls.length, before);
  });

  it('the binding function is frozen and read-only; a plugin that redefines it fools only its own global', async () => {
    // The global is the plugin's module's own (a context of its own); every check is the host's
    // (sandbox/quickjs.ts), behind a function the plugin never sees.
    const result = await call(
      'tampers',
      `const g = globalThis as unknown as Record<string, unknown>;
const original = g['__charta_binding'] as (name: string, args: unknown) => Promise<unknown>;
let assigned = 'yes';
try { g['__charta_binding'] = () => 'mine'; } catch (e) { assigned = (e as Error).name; }
const d = Object.getOwnPropertyDescriptor(g, '__charta_binding')!;
const answer = await original('test.echo', 'still checked');
return [{ type: 'D', assigned, writable: d.writable, frozen: Object.isFrozen(original), answer }];`,
    );
    assert.deepEqual(effectsOf(result), [
      { type: 'D', assigned: 'TypeError', writable: false, frozen: true, answer: { plugin: 'tampers', args: 'still checked' } },
    ]);
  });

  it('a binding cannot be called outside a handler call (here: while the module is evaluated)', async () => {
    const before = calls.length;
    const result = await call(
      'early',
      'return [{ type: "AT_LOAD", atLoad }];',
      `let atLoad = 'pending';
${binding}('test.echo', 1).then(() => (atLoad = 'answered'), (e: Error) => (atLoad = e.message));`,
    );
    assert.deepEqual(effectsOf(result), [{ type: 'AT_LOAD', atLoad: 'a binding can be called only while a handler call runs' }]);
    assert.equal(calls.length, before);
  });
});

describe('the binding table', () => {
  const limits = { deadlineMs: 200, maxChars: 100 };

  it('refuses a bad name, an unknown binding, arguments over the limit, an answer that is not JSON or over the limit', async () => {
    const table = new Bindings();
    assert.throws(() => table.register('Bad Name', () => null), /a binding name is 1 to 64 characters/);
    table.register('test.bigint', () => 1n as unknown as null);
    table.register('test.long', () => 'z'.repeat(200));
    table.register('test.nothing', () => undefined as unknown as null);
    assert.throws(() => table.register('test.long', () => null), /registered already/);
    assert.deepEqual(await table.serve('p', '__proto__', null, limits), {
      ok: false,
      error: 'a binding name is 1 to 64 characters of a-z, 0-9, ".", "_" and "-"',
    });
    assert.deepEqual(await table.serve('p', 'constructor', null, limits), { ok: false, error: 'no binding named constructor is available' });
    assert.deepEqual(await table.serve('p', 'test.long', 'a'.repeat(200), limits), {
      ok: false,
      error: 'the arguments of binding test.long are longer than 100 characters of JSON (the limit)',
    });
    assert.deepEqual(await table.serve('p', 'test.bigint', null, limits), { ok: false, error: 'binding test.bigint answered a value that is not JSON' });
    assert.deepEqual(await table.serve('p', 'test.long', null, limits), {
      ok: false,
      error: 'the answer of binding test.long is longer than 100 characters of JSON (the limit)',
    });
    assert.deepEqual(await table.serve('p', 'test.nothing', null, limits), { ok: true, value: null });
    // Whatever a binding answers is its answer: no value of its own stands for "too late".
    table.register('test.late-word', () => 'late');
    assert.deepEqual(await table.serve('p', 'test.late-word', null, limits), { ok: true, value: 'late' });
  });

  it('gives the binding its own copy of the arguments, and a thrown non-Error nothing but a generic message', async () => {
    const table = new Bindings();
    const seen: unknown[] = [];
    table.register('test.keeps', (_plugin, args) => {
      seen.push(args);
      return 'ok';
    });
    table.register('test.throws-value', () => {
      throw { secret: 'server internals' };
    });
    const args = { a: [1] };
    await table.serve('p', 'test.keeps', args, limits);
    assert.notEqual(seen[0], args);
    assert.deepEqual(seen[0], args);
    assert.deepEqual(await table.serve('p', 'test.throws-value', null, limits), { ok: false, error: 'binding test.throws-value failed' });
  });
});
