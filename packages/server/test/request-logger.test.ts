// request.log is made at its first enabled log call (http/request-logger.ts): a request that logs
// nothing makes no child logger; a line it logs carries its bindings (the request id) and is
// redacted as the server's own; a level that is off makes nothing; a route's own level decides.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { createRequire } from 'node:module';
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import { lazyRequestLogger } from '../src/http/request-logger.ts';

const pino = createRequire(import.meta.url)('pino') as typeof import('pino').default;

function logger(level: string) {
  const lines: Array<Record<string, unknown>> = [];
  const out = new Writable({
    write(chunk, _enc, done) {
      for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });
  const base = pino({ level, redact: ['req.headers.authorization'] }, out) as unknown as FastifyBaseLogger;
  let children = 0;
  const child = base.child.bind(base);
  base.child = ((...args: Parameters<typeof child>) => {
    children += 1;
    return child(...args);
  }) as typeof base.child;
  const make = (opts = {}) => lazyRequestLogger.call({} as FastifyInstance, base, { reqId: 'req-1' }, opts);
  return { lines, make, children: () => children };
}

describe('request loggers made at their first log call', () => {
  it('makes no child for a request that logs nothing, or only below the level', () => {
    const l = logger('info');
    const log = l.make();
    log.debug('not shown');
    log.trace({ a: 1 }, 'not shown either');
    assert.equal(l.children(), 0);
    assert.equal(log.level, 'info');
    assert.deepEqual(l.lines, []);
  });

  it('logs an enabled line with the request id, redacted, through one child', async () => {
    const l = logger('info');
    const log = l.make();
    log.error({ req: { headers: { authorization: 'Bearer secret-token' } } }, 'request failed');
    log.warn('second');
    await new Promise((r) => setImmediate(r));
    assert.equal(l.children(), 1);
    assert.deepEqual(
      l.lines.map((x) => [x.reqId, x.msg, x.level]),
      [
        ['req-1', 'request failed', 50],
        ['req-1', 'second', 40],
      ],
    );
    assert.ok(!JSON.stringify(l.lines).includes('secret-token'), 'redacted as the server logger is');
    assert.equal(typeof log.child({ more: 1 }).info, 'function');
  });

  it("follows a route's own level", async () => {
    const l = logger('info');
    const quiet = l.make({ level: 'error' });
    quiet.warn('off for this route');
    assert.equal(l.children(), 0);
    const loud = l.make({ level: 'debug' });
    loud.debug('on for this route');
    await new Promise((r) => setImmediate(r));
    assert.deepEqual(
      l.lines.map((x) => x.msg),
      ['on for this route'],
    );
  });
});
