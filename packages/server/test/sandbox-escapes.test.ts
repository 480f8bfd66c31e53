// Attempts to get out of the plugin sandbox (docs/plugins.md, "The sandbox"). Each test is one
// attempt, made by a real bundled handler, and fails if the attempt gets anywhere: a value of the
// host reached, the host's built-ins changed, a later call affected, or a host exception raised.
import { afterEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { effectsOf, event, handler, load, loadModule, probe, tryLoad } from './support/sandbox.ts';
import { INTERPRETER_BYTES } from '../src/runtime/sandbox/quickjs.ts';
import type { CallResult } from '../src/runtime/sandbox/types.ts';

const HOST_NAMES = ['process', 'require', 'module', 'exports', 'Buffer', '__dirname', '__filename', 'global', 'fetch', 'std', 'os', 'hostLog'];
const objectPrototypeKeys = Object.getOwnPropertyNames(Object.prototype).sort();
const arrayPrototypeKeys = Object.getOwnPropertyNames(Array.prototype).sort();
const env = JSON.stringify(process.env);

afterEach(() => {
  // Nothing a plugin did reached the host's built-ins or environment.
  assert.deepEqual(Object.getOwnPropertyNames(Object.prototype).sort(), objectPrototypeKeys);
  assert.deepEqual(Object.getOwnPropertyNames(Array.prototype).sort(), arrayPrototypeKeys);
  assert.equal(JSON.stringify(process.env), env);
  assert.equal(JSON.parse('{"a":1}').a, 1);
});

/** The outcome is a typed failure (not ok), with a message matching `pattern` when given. */
function refused(result: CallResult, kind: string, pattern?: RegExp): void {
  assert.equal(result.outcome.kind, kind, JSON.stringify(result.outcome));
  if (pattern) assert.match((result.outcome as { message: string }).message, pattern);
}

/** Runs `body` twice in one plugin; the second call returns what `check` sees. */
async function thenNextCall(body: string, check: string): Promise<{ first: CallResult; second: CallResult }> {
  const plugin = await load(handler(`if (this.event.context.fields.narrative === 'attack') { ${body} } ${check}`));
  try {
    const first = await plugin.call('Probe', event({ context: { fields: { narrative: 'attack' } } }), { KEY: 'k' });
    const second = await plugin.call('Probe', event(), { KEY: 'k' });
    return { first, second };
  } finally {
    plugin.dispose();
  }
}

describe('sandbox escapes: modules and host globals', () => {
  it('require is not defined', async () => {
    // esbuild's bundle has its own `require` shim that throws; the sandbox's global has none.
    assert.deepEqual(effectsOf(await probe(`return [{ t: (0, eval)('typeof require') }];`)), [{ t: 'undefined' }]);
  });

  it("require('fs') throws inside the sandbox", async () => {
    refused(await probe(`const r = (0, eval)('require'); return [{ fs: typeof r('fs') }];`), 'threw', /require/);
  });

  it("a static import of 'node:child_process' fails the load", async () => {
    const loaded = await tryLoad(handler(`return [{ t: typeof cp.exec }];`, `import cp from 'node:child_process';`));
    assert.equal(loaded.ok, false);
  });

  it("a dynamic import('node:fs') is refused", async () => {
    const effects = effectsOf(
      await probe(
        `try { const fs = await import('node:fs'); return [{ got: typeof fs.readFileSync }]; } catch (e) { return [{ refused: String(e.message) }]; }`,
      ),
    );
    assert.match(String(effects[0]!.refused), /node:fs/);
  });

  it('a dynamic import of a computed relative path is refused', async () => {
    const effects = effectsOf(
      await probe(`const p = ['.', 'secret.js'].join('/'); try { await import(p); return [{ got: true }]; } catch (e) { return [{ refused: true }]; }`),
    );
    assert.deepEqual(effects, [{ refused: true }]);
  });

  it("an import of QuickJS's own 'std' and 'os' modules fails the load", async () => {
    for (const specifier of ['std', 'os', 'qjs:std']) {
      const loaded = await loadModule('test_plugin', `import * as m from '${specifier}';\nexport const x = m;\n`);
      assert.equal(loaded.ok, false, specifier);
    }
  });

  it('process is not defined', async () => {
    assert.deepEqual(effectsOf(await probe(`return [{ t: typeof process, g: typeof globalThis.process }];`)), [{ t: 'undefined', g: 'undefined' }]);
  });

  it('the global object has no host names', async () => {
    const [effect] = effectsOf(await probe(`return [{ names: Reflect.ownKeys(globalThis).map(String) }];`));
    const names = effect!.names as string[];
    for (const name of HOST_NAMES) assert.ok(!names.includes(name), name);
  });

  it('a walk of everything reachable from globalThis finds no host name', async () => {
    const [effect] = effectsOf(
      await probe(`const seen = new Set(); const names = new Set(); const queue = [globalThis, this, this.event, this.secrets, this.log];
while (queue.length) { const v = queue.pop(); if ((typeof v !== 'object' && typeof v !== 'function') || v === null || seen.has(v)) continue; seen.add(v);
  queue.push(Object.getPrototypeOf(v));
  for (const k of Reflect.ownKeys(v)) { names.add(String(k)); const d = Reflect.getOwnPropertyDescriptor(v, k); if (d) queue.push(d.value, d.get, d.set); } }
return [{ names: [...names], objects: seen.size }];`),
    );
    const names = effect!.names as string[];
    for (const name of HOST_NAMES.filter((n) => n !== 'global')) assert.ok(!names.includes(name), name); // RegExp.prototype.global is a built-in
    assert.ok((effect!.objects as number) > 50);
  });

  it('import.meta carries no resolve and no environment', async () => {
    const [effect] = effectsOf(await probe(`return [{ keys: Object.keys(import.meta), resolve: typeof import.meta.resolve }];`));
    assert.equal(effect!.resolve, 'undefined');
    assert.ok(!(effect!.keys as string[]).includes('env'));
  });

  it('the environment is not readable anywhere', async () => {
    const [effect] = effectsOf(await probe(`return [{ text: JSON.stringify(Object.getOwnPropertyNames(globalThis)) }];`));
    assert.ok(!String(effect!.text).includes('PATH'));
  });
});

describe('sandbox escapes: constructor chains on what the host passes in', () => {
  it("this.constructor.constructor('return process')() finds no process", async () => {
    refused(await probe(`return [{ p: typeof this.constructor.constructor('return process')() }];`), 'threw', /'?process'? is not defined/);
  });

  it("the event's constructor chain gives the sandbox's Function only", async () => {
    refused(await probe(`return [{ p: this.event.constructor.constructor('return process')() }];`), 'threw', /'?process'? is not defined/);
  });

  it("the secrets' constructor chain reaches only the sandbox's own global", async () => {
    const [effect] = effectsOf(
      await probe(
        `const g = this.secrets.constructor.constructor('return this')(); return [{ same: g === globalThis, p: typeof g.process, r: typeof g.require }];`,
      ),
    );
    assert.deepEqual(effect, { same: true, p: 'undefined', r: 'undefined' });
  });

  it("the log functions' constructor gives the sandbox's Function only", async () => {
    refused(await probe(`return [{ p: this.log.info.constructor('return process')() }];`), 'threw', /'?process'? is not defined/);
  });

  it('the log functions are sandbox functions, with no host source', async () => {
    const [effect] = effectsOf(
      await probe(
        `const f = this.log.info; return [{ proto: Object.getPrototypeOf(f) === Function.prototype, src: String(f), own: Object.getOwnPropertyNames(this.log).sort() }];`,
      ),
    );
    assert.equal(effect!.proto, true);
    assert.doesNotMatch(String(effect!.src), /\[native code\]|hostLog\(level, message\)/);
    assert.deepEqual(effect!.own, ['debug', 'error', 'info', 'warning']);
  });

  it("an async function's constructor finds no process", async () => {
    refused(
      await probe(`const AsyncFunction = (async () => {}).constructor; return [{ p: await AsyncFunction('return process')() }];`),
      'threw',
      /'?process'? is not defined/,
    );
  });

  it("a generator function's constructor finds no require", async () => {
    assert.deepEqual(effectsOf(await probe(`const G = (function* () {}).constructor; return [{ t: G('yield typeof require')().next().value }];`)), [
      { t: 'undefined' },
    ]);
  });

  it("the handler class's own constructor chain stays inside", async () => {
    const [effect] = effectsOf(
      await probe(
        `const C = Object.getPrototypeOf(this).constructor; const g = C.constructor('return this')(); return [{ same: g === globalThis, p: typeof g.process }];`,
      ),
    );
    assert.deepEqual(effect, { same: true, p: 'undefined' });
  });

  it('Error.prepareStackTrace cannot be installed to capture host frames', async () => {
    refused(await probe(`Error.prepareStackTrace = (e, frames) => frames; return [{ s: typeof new Error('x').stack }];`), 'threw', /TypeError/);
  });
});

describe('sandbox escapes: prototype pollution', () => {
  it('polluting the event prototype fails and leaves the next call clean', async () => {
    const { first, second } = await thenNextCall(`this.event.__proto__.polluted = 'yes';`, `return [{ polluted: typeof ({}).polluted }];`);
    refused(first, 'threw', /TypeError/);
    assert.deepEqual(effectsOf(second), [{ polluted: 'undefined' }]);
  });

  it('Object.prototype cannot be changed', async () => {
    const { first, second } = await thenNextCall(`Object.prototype.isAdmin = true;`, `return [{ isAdmin: typeof ({}).isAdmin }];`);
    refused(first, 'threw', /TypeError/);
    assert.deepEqual(effectsOf(second), [{ isAdmin: 'undefined' }]);
  });

  it("polluting the secrets' prototype fails", async () => {
    const { first, second } = await thenNextCall(
      `Object.getPrototypeOf(this.secrets).KEY = 'stolen';`,
      `return [{ extra: ({}).KEY === undefined, key: this.secrets.KEY }];`,
    );
    refused(first, 'threw', /TypeError/);
    assert.deepEqual(effectsOf(second), [{ extra: true, key: 'k' }]);
  });

  it('Array.prototype.push cannot be replaced', async () => {
    const { first, second } = await thenNextCall(`Array.prototype.push = function () { return 0; };`, `const a = []; a.push(1); return [{ n: a.length }];`);
    refused(first, 'threw', /TypeError/);
    assert.deepEqual(effectsOf(second), [{ n: 1 }]);
  });

  it('JSON.parse and JSON.stringify cannot be replaced', async () => {
    const { first, second } = await thenNextCall(`JSON.parse = () => ({ type: 'forged' });`, `return [{ type: this.event.type }];`);
    refused(first, 'threw', /TypeError/);
    assert.deepEqual(effectsOf(second), [{ type: 'PLAN_COMMAND__POST_COMMIT' }]);
  });

  it('replacing the global JSON binding does not change what the host reads', async () => {
    const { first, second } = await thenNextCall(
      `globalThis.JSON = { parse: () => ({}), stringify: () => '[{"type":"forged"}]' };`,
      `return [{ type: this.event.type }];`,
    );
    assert.equal(first.outcome.kind, 'ok');
    assert.deepEqual(effectsOf(second), [{ type: 'PLAN_COMMAND__POST_COMMIT' }]);
  });

  it('the logger cannot be replaced or extended', async () => {
    const { first, second } = await thenNextCall(`this.log.info = () => {};`, `this.log.info('still logging'); return [];`);
    refused(first, 'threw', /TypeError/);
    assert.deepEqual(second.logs, [{ level: 'info', message: 'still logging' }]);
  });

  it('changing the event changes neither the host object nor the next event', async () => {
    const plugin = await load(
      handler(
        `const before = this.event.context.fields.narrative; this.event.context.fields.narrative = 'changed'; delete this.event.type; return [{ before }];`,
      ),
    );
    try {
      const host = event();
      assert.deepEqual(effectsOf(await plugin.call('Probe', host, {})), [{ before: 'plan' }]);
      assert.deepEqual(host, event());
      assert.deepEqual(effectsOf(await plugin.call('Probe', host, {})), [{ before: 'plan' }]);
    } finally {
      plugin.dispose();
    }
  });

  it('a __proto__ key in the event stays an own property', async () => {
    const plugin = await load(handler(`return [{ inherited: typeof ({}).injected, own: Object.keys(this.event.context) }];`));
    try {
      const host = event({ context: JSON.parse('{"__proto__": {"injected": true}, "fields": {}}') as never });
      assert.deepEqual(effectsOf(await plugin.call('Probe', host, {})), [{ inherited: 'undefined', own: ['__proto__', 'fields'] }]);
    } finally {
      plugin.dispose();
    }
  });

  it('an Error subclass may still set its own name (the frozen built-ins allow overrides)', async () => {
    refused(await probe(`class Oops extends Error { constructor() { super('custom'); this.name = 'Oops'; } } throw new Oops();`), 'threw', /^Oops: custom$/);
  });
});

describe('sandbox escapes: eval, Function, timers and promises', () => {
  it('eval sees no process', async () => {
    assert.deepEqual(effectsOf(await probe(`return [{ t: eval('typeof process') }];`)), [{ t: 'undefined' }]);
  });

  it('an indirect eval reaches only the sandbox global', async () => {
    const [effect] = effectsOf(await probe(`const g = (0, eval)('this'); return [{ same: g === globalThis, r: typeof g.require }];`));
    assert.deepEqual(effect, { same: true, r: 'undefined' });
  });

  it('new Function sees no require', async () => {
    assert.deepEqual(effectsOf(await probe(`return [{ t: new Function('return typeof require')() }];`)), [{ t: 'undefined' }]);
  });

  it('there are no timers', async () => {
    const [effect] = effectsOf(
      await probe(`return [{ t: [typeof setTimeout, typeof setInterval, typeof setImmediate, typeof queueMicrotask, typeof clearTimeout] }];`),
    );
    assert.deepEqual(effect, { t: ['undefined', 'undefined', 'undefined', 'undefined', 'undefined'] });
  });

  it('a promise that never settles is a timeout, and the plugin is reloaded', async () => {
    const result = await probe(`return new Promise(() => {});`);
    assert.equal(result.outcome.kind, 'timeout');
    assert.equal(result.reloaded, true);
  });

  it('an endless chain of promise jobs queued after compute() returns is cut at the deadline', async () => {
    const plugin = await load(
      handler(`if (this.event.context.fields.narrative === 'attack') { const spin = () => Promise.resolve().then(spin); spin(); } return [{ type: 'OK' }];`),
      {
        deadlineMs: 200,
      },
    );
    try {
      const first = await plugin.call('Probe', event({ context: { fields: { narrative: 'attack' } } }), {});
      assert.deepEqual(first.outcome, { kind: 'timeout', deadlineMs: 200 });
      assert.deepEqual(effectsOf(await plugin.call('Probe', event(), {})), [{ type: 'OK' }]);
    } finally {
      plugin.dispose();
    }
  });

  it('work queued by a call runs inside that call, never in the next one', async () => {
    const { first, second } = await thenNextCall(`Promise.resolve().then(() => Promise.resolve()).then(() => this.log.info('late'));`, `return [];`);
    assert.deepEqual(first.logs, [{ level: 'info', message: 'late' }]);
    assert.deepEqual(second.logs, []);
  });

  it('a thenable whose then throws is a typed error', async () => {
    refused(await probe(`return { then() { throw new Error('bad then'); } };`), 'threw', /bad then/);
  });
});

describe('sandbox escapes: shared memory, WebAssembly, memory and stack', () => {
  it('SharedArrayBuffer and Atomics are absent', async () => {
    assert.deepEqual(effectsOf(await probe(`return [{ s: typeof SharedArrayBuffer, a: typeof Atomics }];`)), [{ s: 'undefined', a: 'undefined' }]);
  });

  it('WebAssembly is absent', async () => {
    assert.deepEqual(effectsOf(await probe(`return [{ w: typeof WebAssembly }];`)), [{ w: 'undefined' }]);
  });

  it('a huge string is refused inside the sandbox', async () => {
    const result = await probe(`const s = 'x'.repeat(2 ** 30); return [{ n: s.length }];`, { limits: { memoryBytes: 8 * 1024 * 1024 } });
    assert.ok(['out-of-memory', 'threw'].includes(result.outcome.kind), JSON.stringify(result.outcome));
  });

  it("many allocations each under the limit run out of memory at the plugin's limit (QuickJS's own count misses them under WebAssembly)", async () => {
    // Each about 1 MiB; the count of those kept is logged as it grows.
    for (const allocate of ['new Uint8Array(1 << 20)', 'new Array(1 << 17).fill(0)']) {
      const result = await probe(`const all = []; for (;;) { all.push(${allocate}); this.log.info(String(all.length)); }`, {
        limits: { memoryBytes: 8 * 1024 * 1024, deadlineMs: 5000 },
      });
      assert.equal(result.outcome.kind, 'out-of-memory', `${allocate}: ${JSON.stringify(result.outcome)}`);
      // Never more than the plugin's limit and the interpreter's own memory.
      const kept = Number(result.logs.at(-1)?.message ?? 0);
      assert.ok(kept > 0 && kept <= (8 * 1024 * 1024 + INTERPRETER_BYTES) / (1 << 20), `${allocate}: ${kept} MiB kept`);
    }
  });

  it('repeat() in a loop runs out of memory (as an out-of-memory outcome, not a RangeError)', async () => {
    const result = await probe(`const all = []; for (;;) all.push('x'.repeat(1 << 20));`, { limits: { memoryBytes: 8 * 1024 * 1024, deadlineMs: 5000 } });
    assert.equal(result.outcome.kind, 'out-of-memory', JSON.stringify(result.outcome));
  });

  it("repeat() is the bootstrap's, not QuickJS's native one (which ran out of memory blind to the deadline for seconds to minutes), and does what the specification says", async () => {
    const result = await probe(
      `const threw = (f) => { try { f(); return 'no'; } catch (e) { return e.constructor.name; } };
      return [{ ab3: 'ab'.repeat(3), none: 'a'.repeat(0), empty: ''.repeat(5), cut: 'x'.repeat(2.7), nan: 'x'.repeat(NaN), text: '7'.repeat('2'),
        call: String.prototype.repeat.call(5, 2), negative: threw(() => 'a'.repeat(-1)), infinite: threw(() => 'a'.repeat(Infinity)),
        tooLong: threw(() => 'ab'.repeat(2 ** 29)), onNull: threw(() => String.prototype.repeat.call(null, 2)),
        name: String.prototype.repeat.name, length: String.prototype.repeat.length, frozen: Object.isFrozen(String.prototype),
        native: /native code/.test(Function.prototype.toString.call(String.prototype.repeat)) }];`,
    );
    assert.deepEqual(effectsOf(result), [
      {
        ab3: 'ababab',
        none: '',
        empty: '',
        cut: 'xx',
        nan: '',
        text: '77',
        call: '55',
        negative: 'RangeError',
        infinite: 'RangeError',
        tooLong: 'RangeError',
        onNull: 'TypeError',
        name: 'repeat',
        length: 1,
        frozen: true,
        native: false,
      },
    ]);
  });

  it('a string doubled without end runs out of memory or length, not the host', async () => {
    const result = await probe(`let s = 'x'; for (;;) s += s;`, { limits: { memoryBytes: 8 * 1024 * 1024 } });
    assert.ok(['out-of-memory', 'threw'].includes(result.outcome.kind), JSON.stringify(result.outcome));
  });

  it('deep recursion is a stack overflow inside the sandbox, and the next call works', async () => {
    const { first, second } = await thenNextCall(`const down = (n) => down(n + 1) + 1; down(0);`, `return [{ type: 'OK' }];`);
    refused(first, 'threw', /stack overflow|call stack/i);
    assert.deepEqual(effectsOf(second), [{ type: 'OK' }]);
  });

  it('a result nested deeper than the host stack crashes only that runtime, which is replaced', async () => {
    const { first, second } = await thenNextCall(`let v = []; for (let i = 0; i < 200000; i++) v = [v]; return [{ v }];`, `return [{ type: 'OK' }];`);
    assert.ok(['invalid-result', 'threw', 'crashed'].includes(first.outcome.kind), JSON.stringify(first.outcome));
    assert.deepEqual(effectsOf(second), [{ type: 'OK' }]);
  });
});

describe('sandbox escapes: other plugins', () => {
  it("a plugin cannot read another plugin's module state, globals or secrets", async () => {
    const a = await load(handler(`globalThis.stash = this.secrets.KEY; kept = this.secrets.KEY; return [];`, 'let kept = null;'), undefined, 'plugin_a');
    const b = await load(
      handler(
        `const texts = []; for (const k of Reflect.ownKeys(globalThis)) { try { texts.push(String(k), JSON.stringify(globalThis[k]) ?? ''); } catch (_) {} } return [{ all: texts.join(' ') }];`,
      ),
      undefined,
      'plugin_b',
    );
    try {
      effectsOf(await a.call('Probe', event(), { KEY: 'secret-of-a' }));
      const [effect] = effectsOf(await b.call('Probe', event(), { KEY: 'secret-of-b' }));
      assert.ok(!String(effect!.all).includes('secret-of-a'));
      assert.ok(!String(effect!.all).includes('stash'));
    } finally {
      a.dispose();
      b.dispose();
    }
  });

  it("secrets given to one call are not visible in another plugin's call", async () => {
    const a = await load(handler(`return [{ keys: Object.keys(this.secrets) }];`), undefined, 'plugin_a');
    const b = await load(handler(`return [{ keys: Object.keys(this.secrets) }];`), undefined, 'plugin_b');
    try {
      assert.deepEqual(effectsOf(await a.call('Probe', event(), { ONLY_A: 'x' })), [{ keys: ['ONLY_A'] }]);
      assert.deepEqual(effectsOf(await b.call('Probe', event(), {})), [{ keys: [] }]);
    } finally {
      a.dispose();
      b.dispose();
    }
  });

  it('a plugin that loops forever does not stop another plugin', async () => {
    const a = await load(handler(`for (;;) {}`), { deadlineMs: 200 }, 'plugin_a');
    const b = await load(handler(`return [{ type: 'B' }];`), undefined, 'plugin_b');
    try {
      const [looped, fine] = await Promise.all([a.call('Probe', event(), {}), b.call('Probe', event(), {})]);
      assert.equal(looped.outcome.kind, 'timeout');
      assert.deepEqual(effectsOf(fine), [{ type: 'B' }]);
    } finally {
      a.dispose();
      b.dispose();
    }
  });
});

describe('sandbox escapes: results and errors that are not JSON', () => {
  it('a function in the result is an invalid result', async () => {
    refused(await probe(`return [() => 1];`), 'invalid-result', /not a JSON object/);
  });

  it('a cycle in the result is an invalid result', async () => {
    refused(await probe(`const e = { type: 'X' }; e.self = e; return [e];`), 'invalid-result', /circular|cycle/i);
  });

  it('a BigInt in the result is an invalid result', async () => {
    refused(await probe(`return [{ n: 10n }];`), 'invalid-result', /BigInt|bigint/i);
  });

  it('a result over the size cap is an invalid result', async () => {
    refused(await probe(`return [{ big: 'x'.repeat(5000) }];`, { limits: { resultChars: 1000 } }), 'invalid-result', /longer than 1000/);
  });

  it('a getter that throws on the result is an invalid result', async () => {
    refused(await probe(`return [{ get type() { throw new Error('gotcha'); } }];`), 'invalid-result', /gotcha/);
  });

  it('a toJSON that loops forever is a timeout', async () => {
    const result = await probe(`return [{ toJSON() { for (;;) {} } }];`, { limits: { deadlineMs: 200 } });
    assert.deepEqual(result.outcome, { kind: 'timeout', deadlineMs: 200 });
  });

  it('a Proxy result whose traps throw is a typed failure', async () => {
    const result = await probe(`return new Proxy([], { get() { throw new Error('trap'); } });`);
    assert.ok(['invalid-result', 'threw'].includes(result.outcome.kind), JSON.stringify(result.outcome));
  });

  it('a result that is not a list is an invalid result', async () => {
    refused(await probe(`return { type: 'X' };`), 'invalid-result', /list of effects/);
  });

  it('a thrown value whose message getter throws is described without a host exception', async () => {
    refused(await probe(`throw { get message() { throw new Error('inner'); } };`), 'threw', /cannot be described/);
  });

  it('a thrown value whose message getter loops is a timeout', async () => {
    const result = await probe(`throw { get message() { for (;;) {} } };`, { limits: { deadlineMs: 200 } });
    assert.equal(result.outcome.kind, 'timeout');
  });

  it('throwing null or a symbol is a typed error', async () => {
    refused(await probe(`throw null;`), 'threw', /null/);
    refused(await probe(`throw Symbol('s');`), 'threw', /Symbol\(s\)/);
  });
});

describe('sandbox escapes: the log', () => {
  it('a message whose toString throws is logged as a placeholder', async () => {
    const result = await probe(`this.log.info({ toString() { throw new Error('no'); } }); return [];`);
    assert.deepEqual(result.logs, [{ level: 'info', message: '[a message that cannot be turned into text]' }]);
  });

  it('a log flood keeps the cap and counts the rest', async () => {
    const result = await probe(`for (let i = 0; i < 1000; i++) this.log.info('x'); return [];`);
    assert.equal(result.logs.length, 100);
    assert.equal(result.droppedLogLines, 900);
  });

  it('a huge log message is cut', async () => {
    const result = await probe(`this.log.error('y'.repeat(1000000)); return [];`);
    assert.equal(result.logs.length, 1);
    assert.ok(result.logs[0]!.message.length < 4200);
  });
});
