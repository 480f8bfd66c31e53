// The log stream authenticated in its first message (docs/api.md, "Log stream"), over real
// WebSockets on both engines: an upgrade without the Authorization header is accepted, streams
// nothing until `{"type":"auth","token":…}` is verified, then answers `{"type":"ready"}` and
// follows with the query's filters and `since` replay; a wrong key, a missing scope, a malformed,
// oversized or missing first message each close the socket with their documented code and reason.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ENGINES, TEST_API_KEY, startInstance, toReply, type Instance } from './support/harness.ts';
import { openJsonSocket, type JsonSocket } from './support/websockets.ts';
import { AUTH_TIMEOUT_MS, CLOSE, FirstMessageGate, MAX_AUTH_MESSAGE_BYTES, tokenOf } from '../src/logs/first-message.ts';

const PATH = '/core/api/v1/logging/';

type Socket = JsonSocket<Record<string, unknown>>;

/** A WebSocket to the log stream without any Authorization header, open. */
const connect = (base: string, query = ''): Promise<Socket> => openJsonSocket(`${base.replace(/^http/, 'ws')}${PATH}${query}`);

const auth = (token: string) => JSON.stringify({ type: 'auth', token });
const quiet = () => new Promise((r) => setTimeout(r, 150));

/** A refused package upload: one `warning` entry. */
async function refusedUpload(base: string) {
  const form = new FormData();
  form.set('package', new Blob([new Uint8Array(Buffer.from('not an archive at all'))]), 'bad.tar.gz');
  const r = await toReply(await fetch(`${base}/core/api/v1/plugins/`, { method: 'POST', body: form, headers: { authorization: TEST_API_KEY } }));
  assert.equal(r.status, 400, r.text);
}

for (const engine of ENGINES) {
  describe(`log stream, first-message authentication (${engine})`, () => {
    let api: Instance;
    const open: Socket[] = [];
    const socket = async (query = '') => {
      const s = await connect(api.url, query);
      open.push(s);
      return s;
    };
    /** Connected and authenticated: the first message it got is the ready message. */
    const ready = async (query = '', token = TEST_API_KEY) => {
      const s = await socket(query);
      s.ws.send(auth(token));
      const [first] = await s.upTo(1);
      assert.deepEqual(first, { type: 'ready' });
      return s;
    };
    before(async () => {
      api = await startInstance(engine);
    });
    after(async () => {
      for (const s of open) s.ws.terminate();
      await api?.stop();
    });

    it('streams nothing before the first message, then follows once an API key is verified', async () => {
      const s = await socket();
      const earlier = await api.command('plan');
      await quiet();
      assert.equal(s.messages.length, 0, 'nothing before authentication');
      s.ws.send(auth(TEST_API_KEY));
      assert.deepEqual((await s.upTo(1))[0], { type: 'ready' });
      const later = await api.command('plan');
      const [, entry] = await s.upTo(2);
      assert.equal(entry!.event, `command ${later.uuid} (plan) created in note ${later.noteKey}`);
      assert.equal(entry!.type, undefined, 'entries have no type member');
      await quiet();
      assert.ok(!s.messages.some((m) => String(m.event).includes(earlier.uuid)), 'the entry from before is not replayed');
    });

    it('takes a bearer token of the OAuth client', async () => {
      const s = await ready('', api.token);
      await refusedUpload(api.url);
      const [, entry] = await s.upTo(2);
      assert.match(String(entry!.event), /^plugin package rejected/);
    });

    it('a wrong key: closed with 4401, nothing streamed, nothing echoed', async () => {
      const s = await socket();
      s.ws.send(auth('wrong-key-0123456789abcdef'));
      await api.command('plan');
      const { code, reason } = await s.closed;
      assert.equal(code, 4401);
      assert.equal(code, CLOSE.unauthorized.code);
      assert.equal(reason, 'The credentials are not valid or have expired');
      assert.deepEqual(s.messages, []);
    });

    it('a token without system/Plugins.*: closed with 4403', async () => {
      const t = await api.call('POST', '/auth/token/', {
        token: null,
        raw: {
          contentType: 'application/x-www-form-urlencoded',
          data: 'grant_type=client_credentials&client_id=test-client&client_secret=test-client-secret-0123456789abcdef&scope=user/*.*',
        },
      });
      assert.equal(t.status, 200, t.text);
      const s = await socket();
      s.ws.send(auth(t.json.access_token));
      const { code, reason } = await s.closed;
      assert.equal(code, 4403);
      assert.equal(reason, 'The log stream needs the scope system/Plugins.*');
      assert.deepEqual(s.messages, []);
    });

    it('a malformed first message: closed with 4400 (not JSON, another shape, a binary frame)', async () => {
      for (const send of [
        'hello',
        JSON.stringify({ type: 'auth' }),
        JSON.stringify({ type: 'auth', token: TEST_API_KEY, extra: 1 }),
        JSON.stringify([TEST_API_KEY]),
      ]) {
        const s = await socket();
        s.ws.send(send);
        assert.equal((await s.closed).code, 4400, send);
        assert.deepEqual(s.messages, []);
      }
      const binary = await socket();
      binary.ws.send(Buffer.from(auth(TEST_API_KEY)));
      assert.equal((await binary.closed).code, 4400, 'a binary frame');
    });

    it('an oversized first message: closed with 4413, even with a valid key in it', async () => {
      const s = await socket();
      s.ws.send(JSON.stringify({ type: 'auth', token: TEST_API_KEY, padding: 'x'.repeat(MAX_AUTH_MESSAGE_BYTES) }));
      const { code, reason } = await s.closed;
      assert.equal(code, 4413);
      assert.equal(reason, `The first message is over ${MAX_AUTH_MESSAGE_BYTES} bytes`);
      assert.deepEqual(s.messages, []);
    });

    it('no first message: closed with 4408 after the timeout', async () => {
      const s = await socket();
      await api.command('plan');
      const { code, reason } = await s.closed;
      assert.equal(code, 4408);
      assert.equal(reason, `No authentication message within ${AUTH_TIMEOUT_MS / 1000} seconds`);
      assert.deepEqual(s.messages, []);
    });

    it("the query's filters apply: level=warning leaves info entries out", async () => {
      const s = await ready('?level=warning');
      await api.command('plan');
      await refusedUpload(api.url);
      const [, entry] = await s.upTo(2);
      assert.equal(entry!.level, 'warning');
      await quiet();
      assert.equal(s.messages.length, 2, JSON.stringify(s.messages));
    });

    it('since replays recent entries after the ready message, then follows live', async () => {
      const earlier = await api.command('plan');
      const s = await ready('?since=1m');
      await s.upTo(2);
      await quiet();
      assert.ok(
        s.messages.some((m) => m.event === `command ${earlier.uuid} (plan) created in note ${earlier.noteKey}`),
        'replayed the earlier entry',
      );
      const n = s.messages.length;
      const later = await api.command('plan');
      const [last] = (await s.upTo(n + 1)).slice(n);
      assert.equal(last!.event, `command ${later.uuid} (plan) created in note ${later.noteKey}`);
    });

    it('a bad option is still refused before the upgrade (400)', async () => {
      await assert.rejects(connect(api.url, '?level=loud'), /unexpected 400/);
    });
  });
}

describe('first-message parts', () => {
  it('reads the token of exactly {"type":"auth","token":…}', () => {
    assert.equal(tokenOf('{"type":"auth","token":"abc"}'), 'abc');
    for (const bad of [
      '',
      'null',
      '[]',
      '"abc"',
      '{"type":"auth"}',
      '{"type":"login","token":"abc"}',
      '{"type":"auth","token":""}',
      '{"type":"auth","token":5}',
    ]) {
      assert.equal(tokenOf(bad), undefined, bad);
    }
    assert.equal(tokenOf(JSON.stringify({ type: 'auth', token: 'x'.repeat(513) })), undefined, 'over 512 characters');
  });

  it('closes sockets beyond the pending limit with 1013', () => {
    const gate = new FirstMessageGate(() => new Promise(() => undefined), { maxPending: 1, timeoutMs: 60_000 });
    const closes: number[] = [];
    const fake = () => {
      const listeners: Record<string, Array<(...a: unknown[]) => void>> = {};
      return {
        readyState: 1,
        on: (e: string, f: (...a: unknown[]) => void) => void (listeners[e] ??= []).push(f),
        once: (e: string, f: (...a: unknown[]) => void) => void (listeners[e] ??= []).push(f),
        off: () => undefined,
        close: (code: number) => void closes.push(code),
        send: () => undefined,
        fire: (e: string, ...a: unknown[]) => (listeners[e] ?? []).forEach((f) => f(...a)),
      };
    };
    const first = fake();
    gate.admit(first as never, () => undefined);
    gate.admit(fake() as never, () => undefined);
    assert.deepEqual(closes, [1013]);
    assert.equal(gate.pending, 1);
    first.fire('close');
    assert.equal(gate.pending, 0, 'a closed socket no longer counts');
  });
});
