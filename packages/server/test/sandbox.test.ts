// The plugin sandbox in isolation (docs/plugins.md, "The sandbox"): real bundles built as
// `charta plugin build` builds them, loaded in the QuickJS backend, no database.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { bundle, effectsOf, event, handler, load, loadModule, probe, tryLoad, ENTRY, EVENT_TYPE } from './support/sandbox.ts';
import { DEFAULT_SANDBOX_LIMITS } from '../src/runtime/sandbox/types.ts';

describe('the QuickJS sandbox', () => {
  it("lists the exported handler classes and returns a handler's effect", async () => {
    const plugin = await load(`import { BaseHandler } from '@charta/plugin-sdk';
export class FollowUp extends BaseHandler {
  static RESPONDS_TO = ['${EVENT_TYPE}'];
  compute() {
    return [{ type: 'ORIGINATE_COMMAND', kind: 'instruct', noteId: this.event.target.id, values: { narrative: 'follow up: ' + this.event.context.fields.narrative } }];
  }
}
export const notAHandler = 42;
export function helper() { return 1; }
`);
    try {
      assert.deepEqual(plugin.handlers(), [{ name: 'FollowUp', respondsTo: [EVENT_TYPE] }]);
      const result = await plugin.call('FollowUp', event(), {});
      assert.deepEqual(effectsOf(result), [
        { type: 'ORIGINATE_COMMAND', kind: 'instruct', noteId: '7d0b8c1e-0000-4000-8000-000000000001', values: { narrative: 'follow up: plan' } },
      ]);
      assert.equal(result.reloaded, false);
    } finally {
      plugin.dispose();
    }
  });

  it('follows runHandler: other events and acceptEvent() false give no effects; a missing list is []', async () => {
    const plugin = await load(`import { BaseHandler } from '@charta/plugin-sdk';
export class Picky extends BaseHandler {
  static RESPONDS_TO = ['${EVENT_TYPE}'];
  acceptEvent() { return this.event.context.fields.narrative === 'yes'; }
  compute() { return [{ type: 'X' }]; }
}
export class Nothing extends BaseHandler {
  static RESPONDS_TO = ['${EVENT_TYPE}'];
  compute() { return undefined; }
}
`);
    try {
      assert.deepEqual(effectsOf(await plugin.call('Picky', event({ type: 'PLAN_COMMAND__PRE_COMMIT' }), {})), []);
      assert.deepEqual(effectsOf(await plugin.call('Picky', event(), {})), []);
      assert.deepEqual(effectsOf(await plugin.call('Picky', event({ context: { fields: { narrative: 'yes' } } }), {})), [{ type: 'X' }]);
      assert.deepEqual(effectsOf(await plugin.call('Nothing', event(), {})), []);
      assert.deepEqual((await plugin.call('Absent', event(), {})).outcome, { kind: 'no-such-handler', handler: `${ENTRY}:Absent` });
    } finally {
      plugin.dispose();
    }
  });

  it('awaits an async compute() that chains promises', async () => {
    const result = await probe(`const a = await Promise.resolve(2); const b = await new Promise((r) => r(a * 21)); return [{ type: 'X', value: b }];`);
    assert.deepEqual(effectsOf(result), [{ type: 'X', value: 42 }]);
  });

  it('returns the log lines, cuts long messages and counts the lines over the cap', async () => {
    const result = await probe(
      `this.log.info('hello'); this.log.warning({ toString() { return 'as text'; } }); this.log.error('x'.repeat(100));
for (let i = 0; i < 10; i++) this.log.debug('line ' + i);
return [];`,
      { limits: { logLinesPerCall: 5, logMessageChars: 20 } },
    );
    assert.deepEqual(effectsOf(result), []);
    assert.deepEqual(result.logs.slice(0, 3), [
      { level: 'info', message: 'hello' },
      { level: 'warning', message: 'as text' },
      { level: 'error', message: `${'x'.repeat(20)}… [cut at 20 characters]` },
    ]);
    assert.equal(result.logs.length, 5);
    assert.equal(result.droppedLogLines, 8);
  });

  it('reads a secret', async () => {
    const result = await probe(`return [{ type: 'X', key: this.secrets.API_KEY }];`, { secrets: { API_KEY: 's3cret' } });
    assert.deepEqual(effectsOf(result), [{ type: 'X', key: 's3cret' }]);
  });

  it('a throw is a typed error with the message, and the next call works', async () => {
    const plugin = await load(handler(`if (this.event.context.fields.narrative === 'boom') throw new Error('kaput'); return [{ type: 'OK' }];`));
    try {
      const thrown = await plugin.call('Probe', event({ context: { fields: { narrative: 'boom' } } }), {});
      assert.deepEqual(thrown.outcome, { kind: 'threw', message: 'Error: kaput' });
      assert.equal(thrown.reloaded, false);
      assert.deepEqual(effectsOf(await plugin.call('Probe', event(), {})), [{ type: 'OK' }]);
    } finally {
      plugin.dispose();
    }
  });

  it('an infinite loop times out at the deadline, the runtime is reloaded and the next call works', async () => {
    const plugin = await load(
      handler(`calls++; if (this.event.context.fields.narrative === 'loop') for (;;) {} return [{ type: 'OK', calls }];`, 'let calls = 0;'),
      {
        deadlineMs: 200,
      },
    );
    try {
      const looped = await plugin.call('Probe', event({ context: { fields: { narrative: 'loop' } } }), {});
      assert.deepEqual(looped.outcome, { kind: 'timeout', deadlineMs: 200 });
      assert.equal(looped.reloaded, true);
      // The module was evaluated again: its state starts over.
      assert.deepEqual(effectsOf(await plugin.call('Probe', event(), {})), [{ type: 'OK', calls: 1 }]);
    } finally {
      plugin.dispose();
    }
  });

  it('unbounded allocation is out of memory, the host is unharmed and the next call works', async () => {
    const plugin = await load(
      handler(
        `if (this.event.context.fields.narrative === 'grow') { const all = []; for (;;) all.push({ n: all.length, text: 'item ' + all.length }); } return [{ type: 'OK' }];`,
      ),
      {
        memoryBytes: 8 * 1024 * 1024,
        deadlineMs: 20000,
      },
    );
    try {
      const grown = await plugin.call('Probe', event({ context: { fields: { narrative: 'grow' } } }), {});
      assert.deepEqual(grown.outcome, { kind: 'out-of-memory', memoryBytes: 8 * 1024 * 1024 });
      assert.equal(grown.reloaded, true);
      assert.deepEqual(effectsOf(await plugin.call('Probe', event(), {})), [{ type: 'OK' }]);
      assert.deepEqual(effectsOf(await probe(`return [{ type: 'OTHER' }];`)), [{ type: 'OTHER' }]);
    } finally {
      plugin.dispose();
    }
  });

  it('an import of node:fs fails the load with a clear reason', async () => {
    const loaded = await tryLoad(handler(`return [{ type: 'X', fs: typeof fs }];`, `import fs from 'node:fs';`));
    assert.equal(loaded.ok, false);
    assert.match(loaded.ok ? '' : loaded.reasons.join('\n'), /imports "node:fs".*inline everything/);
  });

  it('an import nothing resolves fails the load with a clear reason', async () => {
    const source = `import { thing } from 'not-a-package';\nexport const x = thing;\n`;
    const loaded = await loadModule('test_plugin', source);
    assert.equal(loaded.ok, false);
    assert.match(loaded.ok ? '' : loaded.reasons.join('\n'), /imports "not-a-package"/);
  });

  it('a module that throws, loops or never settles while it evaluates fails the load', async () => {
    const threw = await tryLoad(`throw new Error('not today');\nexport {};\n`);
    assert.deepEqual(threw.ok ? [] : threw.reasons, ['evaluating the module failed: Error: not today']);
    const looped = await tryLoad(`for (;;) {}\nexport {};\n`, { deadlineMs: 200 });
    assert.deepEqual(looped.ok ? [] : looped.reasons, ['evaluating the module took longer than 200 ms']);
    const stuck = await tryLoad(`await new Promise(() => {});\nexport {};\n`);
    assert.deepEqual(stuck.ok ? [] : stuck.reasons, ['evaluating the module waits on a promise that can never settle']);
    const syntax = await loadModule('test_plugin', 'export const = ;');
    assert.equal(syntax.ok, false);
    assert.match(syntax.ok ? '' : syntax.reasons[0]!, /^evaluating the module failed: SyntaxError/);
  });

  it('promise jobs a module queues while it evaluates run within the load deadline', async () => {
    const spinning = await tryLoad(`const spin = () => Promise.resolve().then(spin);\nspin();\nexport {};\n`, { deadlineMs: 200 });
    assert.deepEqual(spinning.ok ? [] : spinning.reasons, ['evaluating the module took longer than 200 ms']);
  });

  it("two plugins see neither each other's globals nor secrets", async () => {
    const a = await load(
      handler(`globalThis.shared = this.secrets.KEY; moduleState = this.secrets.KEY; return [{ type: 'A' }];`, 'let moduleState = null;'),
      undefined,
      'plugin_a',
    );
    const b = await load(handler(`return [{ type: 'B', shared: typeof globalThis.shared, keys: Object.keys(this.secrets) }];`), undefined, 'plugin_b');
    try {
      effectsOf(await a.call('Probe', event(), { KEY: 'a-secret' }));
      assert.deepEqual(effectsOf(await b.call('Probe', event(), {})), [{ type: 'B', shared: 'undefined', keys: [] }]);
    } finally {
      a.dispose();
      b.dispose();
    }
  });

  it('has documented defaults and refuses calls after dispose', async () => {
    assert.deepEqual(
      { ...DEFAULT_SANDBOX_LIMITS },
      { memoryBytes: 33554432, stackBytes: 262144, deadlineMs: 1000, logMessageChars: 4096, logLinesPerCall: 100, resultChars: 1048576 },
    );
    const plugin = await load(handler(`return [];`));
    plugin.dispose();
    assert.equal((await plugin.call('Probe', event(), {})).outcome.kind, 'unavailable');
    assert.ok((await bundle(handler('return [];'))).length > 0);
  });
});
