// The cap on open streams (docs/api.md, "Streams open at once"): one principal keeps at most
// MAX_STREAMS_PER_PRINCIPAL log and change streams open together (the next is closed with 4429, and
// one closed makes room); another principal is not held back by it; a staff member's tokens of
// the console's OAuth client count apart from another's; the server's sockets in all are capped
// (1013). The streams hold no storage of their own: SQLite only.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import type { WebSocket } from 'ws';
import { startInstance, TEST_API_KEY, type Instance } from './support/harness.ts';
import { openJsonSocket, type JsonSocket } from './support/websockets.ts';
import { MAX_STREAMS_PER_PRINCIPAL, OpenStreams } from '../src/http/open-streams.ts';
import type { Principal } from '../src/auth/principal.ts';
import { ConfigError, loadConfig } from '../src/config.ts';

describe('streams open at once', () => {
  let api: Instance;
  let patientKey: string;
  const open: JsonSocket<unknown>[] = [];
  const logs = () => openJsonSocket(`${api.url.replace(/^http/, 'ws')}/core/api/v1/logging/`, { authorization: TEST_API_KEY });
  const changes = (token: string) =>
    openJsonSocket(`${api.url.replace(/^http/, 'ws')}/core/api/v1/changes/?patient_key=${patientKey}`, { authorization: `Bearer ${token}` });
  /** Resolves with the close code if the socket closes within `ms`, else with 'open'. */
  const fate = (s: JsonSocket<unknown>, ms = 300) => Promise.race([s.closed.then((c) => c.code), new Promise<'open'>((r) => setTimeout(() => r('open'), ms))]);

  before(async () => {
    api = await startInstance('sqlite');
    ({ patientKey } = await api.note());
  });
  after(async () => {
    for (const s of open) s.close();
    await api?.stop();
  });

  it(`keeps ${MAX_STREAMS_PER_PRINCIPAL} streams of one API key open; the next is closed with 4429 until one closes`, async () => {
    for (let i = 0; i < MAX_STREAMS_PER_PRINCIPAL; i++) open.push(await logs());
    const extra = await logs();
    assert.equal(await fate(extra, 3000), 4429);
    const { reason } = await extra.closed;
    assert.match(reason, /Too many streams open with these credentials/);
    assert.ok(
      (await Promise.all(open.map((s) => fate(s, 0)))).every((f) => f === 'open'),
      'the open ones stay open',
    );
    // One closed makes room for one.
    const first = open.shift()!;
    first.close();
    await first.closed;
    await new Promise((r) => setTimeout(r, 50)); // the server's close event
    const again = await logs();
    assert.equal(await fate(again), 'open');
    open.push(again);
    // Another principal (a token) is not held back, on the change stream.
    const other = await changes(api.token);
    assert.equal(await fate(other), 'open');
    open.push(other);
  });

  it('counts log and change streams together, per principal', async () => {
    // The token has one change stream open: fill it up with change streams, then a log stream is the one too many.
    const token = api.token;
    for (let i = 1; i < MAX_STREAMS_PER_PRINCIPAL; i++) open.push(await changes(token));
    const extra = await changes(token);
    assert.equal(await fate(extra, 3000), 4429);
  });

  it('closes a socket past the server-wide cap with 1013, and counts each socket until it closes', () => {
    const streams = new OpenStreams(2, 3);
    const sockets = Array.from({ length: 4 }, () => fakeSocket());
    assert.deepEqual(
      sockets.map((s) => streams.admit(s as unknown as WebSocket)),
      [true, true, true, false],
    );
    assert.deepEqual(sockets[3]!.closedWith, 1013);
    assert.equal(streams.open, 3);
    const alice = { credential: 'client:console', staffKey: 'a'.repeat(32) } as Principal;
    const bob = { credential: 'client:console', staffKey: 'b'.repeat(32) } as Principal;
    assert.equal(streams.follow(sockets[0] as unknown as WebSocket, alice), true);
    assert.equal(streams.follow(sockets[1] as unknown as WebSocket, alice), true);
    assert.equal(streams.follow(sockets[2] as unknown as WebSocket, alice), false, "alice's third");
    assert.equal(sockets[2]!.closedWith, 4429);
    assert.equal(streams.open, 2, 'the refused socket closed, and its place with it');
    const fifth = fakeSocket();
    sockets[0]!.emit('close');
    assert.equal(streams.open, 1);
    assert.equal(streams.admit(fifth as unknown as WebSocket), true);
    assert.equal(streams.follow(fifth as unknown as WebSocket, alice), true, 'room again for alice');
    assert.equal(streams.follow(fakeSocket() as unknown as WebSocket, bob), true, "bob, on the same client, counts apart from alice's");
  });
});

describe('CHARTA_STREAMS_PER_PRINCIPAL', () => {
  it('sets the cap; anything but an integer from 1 to 1000 is refused with its name', async () => {
    assert.equal(loadConfig({}).streamsPerPrincipal, MAX_STREAMS_PER_PRINCIPAL);
    assert.equal(loadConfig({ CHARTA_STREAMS_PER_PRINCIPAL: '2' }).streamsPerPrincipal, 2);
    for (const bad of ['0', '-1', '1.5', 'many', '1001'])
      assert.throws(
        () => loadConfig({ CHARTA_STREAMS_PER_PRINCIPAL: bad }),
        (err: unknown) => err instanceof ConfigError && /CHARTA_STREAMS_PER_PRINCIPAL/.test(err.message),
        bad,
      );
    const api = await startInstance('sqlite', { streamsPerPrincipal: 2 });
    try {
      const url = `${api.url.replace(/^http/, 'ws')}/core/api/v1/logging/`;
      const two = [await openJsonSocket(url, { authorization: TEST_API_KEY }), await openJsonSocket(url, { authorization: TEST_API_KEY })];
      const third = await openJsonSocket(url, { authorization: TEST_API_KEY });
      assert.deepEqual(await third.closed, { code: 4429, reason: 'Too many streams open with these credentials (at most 2): close one first' });
      for (const s of two) s.close();
    } finally {
      await api.stop();
    }
  });
});

/** What OpenStreams uses of a socket: `once('close')` and `close(code)`, which emits close as ws does. */
function fakeSocket() {
  const s = new EventEmitter() as EventEmitter & { closedWith?: number; close(code: number): void };
  s.close = (code: number) => {
    s.closedWith = code;
    s.emit('close');
  };
  return s;
}
