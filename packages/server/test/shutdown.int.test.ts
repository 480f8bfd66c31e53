// Graceful shutdown, per engine (docs/configuration.md, "Stopping"): SIGTERM to a real
// `charta-server start` in the middle of a concurrent write load, with a log stream connected.
// The process exits 0 (it exits 1 when CHARTA_SHUTDOWN_TIMEOUT had to cut requests off), the log
// stream gets a close frame (1001), no answer is a 500, and every acknowledged write is there
// after a restart on the same database.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import WebSocket from 'ws';
import { createDatabase, ENGINES, request, TEST_API_KEY, type Reply, type TestDatabase } from './support/harness.ts';
import { startServerProcess, tokenFor, stopAll } from './support/processes.ts';

const BASE = '/core/api/v1/commands';

for (const engine of ENGINES) {
  describe(`graceful shutdown (${engine})`, () => {
    let db: TestDatabase;

    before(async () => {
      db = await createDatabase(engine);
    });

    after(async () => {
      await stopAll();
      await db?.drop();
    });

    it('on SIGTERM during a write load: answers what is in flight, closes the log stream with a close frame, exits 0, loses no acknowledged write', async (t) => {
      const server = await startServerProcess(db);
      const token = await tokenFor(server.url);
      const call = (method: string, urlPath: string, body?: unknown): Promise<Reply> => request(server.url, method, urlPath, { body }, token);
      const patient = await call('POST', '/core/api/v1/patients/', { firstName: 'Shut', lastName: 'Down' });
      assert.equal(patient.status, 201, patient.text);
      const note = await call('POST', '/core/api/v1/notes/', { patientKey: patient.json.key, noteType: 'encounter' });
      assert.equal(note.status, 201, note.text);

      const ws = new WebSocket(`${server.url.replace('http', 'ws')}/core/api/v1/logging/`, { headers: { authorization: TEST_API_KEY } });
      await new Promise<void>((resolve, reject) => {
        ws.once('open', () => resolve());
        ws.once('error', reject);
      });
      const closed = new Promise<number>((resolve) => ws.once('close', (code) => resolve(code)));

      const acknowledged: string[] = [];
      const unexpected: string[] = [];
      let signalled = false;
      let refusedAfterSignal = 0;
      const loop = async (id: number) => {
        for (let n = 0; ; n++) {
          let r: Reply;
          try {
            r = await call('POST', `${BASE}/`, { schemaKey: 'plan', noteKey: note.json.uuid, values: { narrative: `loop ${id} write ${n}` } });
          } catch (err) {
            // Once the server stops listening, connections are refused: the load is over.
            if (!signalled) unexpected.push(`before SIGTERM: ${(err as Error).message}`);
            return;
          }
          if (r.status === 201) acknowledged.push(r.json.uuid);
          else if (signalled && r.status === 503)
            refusedAfterSignal++; // arrived while closing
          else unexpected.push(`${r.status} ${r.text}`);
        }
      };
      const loops = Array.from({ length: 6 }, (_, i) => loop(i));
      await new Promise((r) => setTimeout(r, 500));
      const acknowledgedBefore = acknowledged.length;
      signalled = true;
      const signalledAt = performance.now();
      server.child.kill('SIGTERM');
      const exit = await server.exited;
      const tookMs = performance.now() - signalledAt;
      await Promise.all(loops);

      assert.deepEqual(exit, { code: 0, signal: null }, `exit 0 within the shutdown timeout:\n${server.output().slice(-2000)}`);
      assert.equal(await closed, 1001, 'the log stream got a close frame (going away)');
      assert.deepEqual(unexpected, [], 'no answer other than 201, or 503 while closing');
      assert.ok(acknowledgedBefore > 0, 'the load got going');
      t.diagnostic(`${acknowledged.length} writes acknowledged (${refusedAfterSignal} refused while closing); exited ${Math.round(tookMs)} ms after SIGTERM`);

      const second = await startServerProcess(db);
      const token2 = await tokenFor(second.url);
      for (const uuid of acknowledged) {
        const r = await request(second.url, 'GET', `${BASE}/${uuid}`, {}, token2);
        assert.equal(r.status, 200, `acknowledged write ${uuid} is there after the shutdown: ${r.text}`);
      }
      second.child.kill('SIGTERM');
      assert.deepEqual(await second.exited, { code: 0, signal: null });
    });
  });
}

describe('graceful shutdown: the timeout', () => {
  let db: TestDatabase;
  before(async () => {
    db = await createDatabase('sqlite');
  });
  after(async () => {
    await stopAll();
    await db?.drop();
  });

  it('cuts off a request still running after CHARTA_SHUTDOWN_TIMEOUT and exits 1', async () => {
    const server = await startServerProcess(db, { CHARTA_SHUTDOWN_TIMEOUT: '0.5' });
    // A request whose body never finishes arriving: in flight until the timeout cuts it.
    const { port } = new URL(server.url);
    const socket = net.connect(Number(port), '127.0.0.1');
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
    socket.on('error', () => undefined);
    const cut = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    socket.write(
      `POST ${BASE}/ HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: ${TEST_API_KEY}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"schemaKey":`,
    );
    // The server has the request once it answers another one on a second connection.
    assert.equal((await fetch(`${server.url}/healthz`)).status, 200);
    server.child.kill('SIGTERM');
    const exit = await server.exited;
    await cut;
    assert.deepEqual(exit, { code: 1, signal: null }, server.output().slice(-2000));
    assert.match(server.output(), /cut off/);
  });
});
