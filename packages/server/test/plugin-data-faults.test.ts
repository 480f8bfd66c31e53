// A read while the database is away (docs/plugins.md, "Reading the record"): the read fails inside
// the sandbox as `database_unavailable` (a typed error, nothing of the server's); a call that then
// throws is `unavailable` (retried like a crash, not the plugin's fault), and a PRE check that
// could not read answers its change 503 `database_unavailable` with Retry-After, whatever the
// handler's on_failure. Units over the data binding, the calls and dispatch, with a database that
// refuses every query.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Bindings } from '../src/runtime/bindings.ts';
import { registerDataReads } from '../src/runtime/data-reads.ts';
import { HandlerCalls, type ActiveHandler, type CallContext, type CallRunner } from '../src/runtime/calls.ts';
import { Dispatch } from '../src/runtime/dispatch.ts';
import { LogBus, type LogEntry } from '../src/logs/bus.ts';
import { DatabaseUnavailableError } from '../src/storage/errors.ts';
import { Problem } from '../src/http/problem.ts';
import type { Storage } from '../src/storage/db.ts';
import type { CallResult, JsonObject } from '../src/runtime/sandbox/types.ts';

const PATIENT = 'a'.repeat(32);

/** A database every query of which finds it away. */
const away = new Proxy(
  {},
  {
    get: () => {
      throw new DatabaseUnavailableError('The database is unreachable');
    },
  },
);
const storage = {
  reader: away,
  pluginReader: away,
  db: away,
  engine: 'sqlite',
  transact: () => Promise.reject(new DatabaseUnavailableError('down')),
} as unknown as Storage;

const handler = (onFailure: 'allow' | 'refuse'): ActiveHandler => ({
  plugin: 'reader',
  entry: 'dist/handlers.js',
  className: 'Reader',
  id: 'dist/handlers.js:Reader',
  events: ['PLAN_COMMAND__PRE_COMMIT'],
  secrets: {},
  onFailure,
  effectsPerAnswer: 100,
  routes: [],
  schedule: null,
  data: { read: ['patients'], scope: 'event_patient', reads: 50, rows: 2000 },
});

const event = (type: string): JsonObject => ({ id: 'e1', type, context: { patient: { key: PATIENT } } });
const context = (type: string, onFailure: 'allow' | 'refuse' = 'allow'): CallContext => ({
  handler: handler(onFailure),
  type,
  event: event(type),
  requestId: 'r1',
  pre: type.includes('__PRE_'),
  reads: { count: 0, rows: 0, overBudget: null, databaseUnavailable: false },
});

/** A runner whose handler reads the event's patient through the data binding, and throws what the read threw (it does not catch it). */
function readingRunner(bindings: Bindings): CallRunner {
  return {
    async call(name, _entry, _handler, _event, _secrets, ctx): Promise<CallResult> {
      const answer = await bindings.serve(name, 'data', { resource: 'patients', op: 'get', key: PATIENT }, { deadlineMs: 1000, maxChars: 1 << 20 }, ctx);
      const error = answer.ok ? (answer.value as { error?: { code: string; message: string } }).error : undefined;
      const outcome = error === undefined ? { kind: 'ok' as const, effects: [] } : { kind: 'threw' as const, message: `DataError: ${error.message}` };
      return { outcome, logs: [], droppedLogLines: 0, reloaded: false };
    },
  };
}

describe('a read while the database is away', () => {
  const bindings = new Bindings();
  registerDataReads(bindings, { storage, logs: new LogBus() });

  it('fails in the sandbox as database_unavailable, a message and nothing of the server', async () => {
    const ctx = context('PLAN_COMMAND__POST_COMMIT');
    const answer = await bindings.serve('reader', 'data', { resource: 'patients', op: 'get', key: PATIENT }, { deadlineMs: 1000, maxChars: 1 << 20 }, ctx);
    assert.deepEqual(answer, { ok: true, value: { error: { code: 'database_unavailable', message: 'the database is unavailable' } } });
    assert.equal(ctx.reads.databaseUnavailable, true);
  });

  it('a POST call that then throws is unavailable (retried), not threw (final)', async () => {
    const logs = new LogBus();
    const lines: LogEntry[] = [];
    logs.subscribe((e) => lines.push(e));
    const calls = new HandlerCalls(readingRunner(bindings), logs);
    const answer = await calls.call(handler('allow'), 'PLAN_COMMAND__POST_COMMIT', event('PLAN_COMMAND__POST_COMMIT'), 'r1');
    assert.equal(answer.ok, false);
    assert.deepEqual(!answer.ok && answer.fault, {
      kind: 'unavailable',
      message: 'a read found the database unavailable (DataError: the database is unavailable)',
      database: true,
    });
    assert.equal(lines.at(-1)?.fault, 'unavailable');
  });

  it('a PRE check that could not read answers its change 503 database_unavailable with Retry-After, even with on_failure allow', async () => {
    for (const onFailure of ['allow', 'refuse'] as const) {
      const calls = new HandlerCalls(readingRunner(bindings), new LogBus());
      const active = handler(onFailure);
      const dispatch = new Dispatch({ handlersOf: (type) => (type === 'PLAN_COMMAND__PRE_COMMIT' ? [active] : []) }, calls, { preBudgetMs: 2000 });
      const command = { uuid: 'c1', schema_key: 'plan', patient_key: PATIENT, note_key: 'n1', data: {} };
      const refused = await dispatch
        .pre(away as never, { action: 'COMMIT', command: command as never, previous: command as never }, { staffKey: 's', requestId: 'r1', depth: 0 })
        .then(
          () => undefined,
          (e: unknown) => e,
        );
      assert.ok(refused instanceof Problem, String(refused));
      assert.equal(refused.code, 'database_unavailable');
      assert.equal(refused.status, 503);
      assert.equal(refused.headers?.['retry-after'], '2');
      assert.match(refused.detail, /plugin reader could not read the record for its check .*nothing was written/);
    }
  });
});
