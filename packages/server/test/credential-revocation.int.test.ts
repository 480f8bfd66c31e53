// Revocation across programs and processes (docs/operations.md, "Credentials"), with real
// `charta-server` processes: `charta-server list-credentials` and `revoke-api-key` /
// `revoke-client` typed beside a running server, on both engines, end the key's requests and close
// its streams within a couple of seconds (the server looks for revocations every second); on
// PostgreSQL, a key revoked through one server's API is refused by the other at once and the stream
// opened with it on the other is closed (the signal relayed by NOTIFY). And, without a process: the
// watcher's stop waits for a look under way, so a closing server closes its storage after it.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ENGINES, TEST_API_KEY, createDatabase, toReply, type TestDatabase } from './support/harness.ts';
import { runChartaServer, startServerProcess, stopAll, type ServerProcess } from './support/processes.ts';
import { openJsonSocket, type JsonSocket } from './support/websockets.ts';
import { Kysely } from 'kysely';
import { watchRevocations } from '../src/auth/revocation.ts';
import { SignalBus, type Signal } from '../src/signals/bus.ts';
import { SqliteReaderDialect } from '../src/storage/sqlite-reader.ts';
import type { Database } from '../src/storage/schema.ts';
import type { Storage } from '../src/storage/db.ts';

const A = '/core/api/v1/admin';
const within = <T>(p: Promise<T>, ms: number): Promise<T> =>
  Promise.race([p, new Promise<T>((_, reject) => setTimeout(() => reject(new Error(`not within ${ms} ms`)), ms))]);

for (const engine of ENGINES) {
  describe(`revocation by another program and across processes (${engine})`, () => {
    let db: TestDatabase;
    let a: ServerProcess;
    /** A second server on the same database (PostgreSQL only: SQLite serves from one process). */
    let b: ServerProcess | undefined;
    before(async () => {
      db = await createDatabase(engine);
      a = await startServerProcess(db);
      if (engine === 'postgres') b = await startServerProcess(db);
    });
    after(async () => {
      await stopAll();
      await db?.drop();
    });

    const call = async (server: ServerProcess, method: string, path: string, authorization: string, body?: unknown) =>
      toReply(
        await fetch(server.url + path, {
          method,
          headers: { authorization, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
          body: body === undefined ? undefined : JSON.stringify(body),
        }),
      );
    const cli = (args: string[]) => runChartaServer(args, { CHARTA_DATABASE_URL: db.url, CHARTA_DATA_DIR: db.dataDir, ...db.env });
    const servers = () => (b === undefined ? [a] : [a, b]);
    const stream = (server: ServerProcess, authorization: string): Promise<JsonSocket<unknown>> =>
      openJsonSocket(`${server.url.replace(/^http/, 'ws')}/core/api/v1/logging/`, { authorization });
    const newKey = async (label: string) => {
      const created = await call(a, 'POST', `${A}/api-keys/`, TEST_API_KEY, { label, scopes: ['system/Plugins.*'] });
      assert.equal(created.status, 201, created.text);
      return { id: created.json.id as string, key: created.json.api_key as string };
    };
    /** Every server answers `key` with `status` (a revocation found by a look may take a second). */
    const answered = async (key: string, status: number) => {
      for (const server of servers()) {
        let got = 0;
        for (let i = 0; i < 40 && got !== status; i++) {
          if (i > 0) await new Promise((r) => setTimeout(r, 100));
          got = (await call(server, 'GET', '/core/api/v1/logging/recent/', key)).status;
        }
        assert.equal(got, status, `${server.url} answers ${status}`);
      }
    };

    it('charta-server list-credentials and revoke-api-key beside a running server: the key is refused and its streams closed', async () => {
      const { id, key } = await newKey('revoked by the operator');
      await answered(key, 200); // cached by each server from here on
      const streams = await Promise.all(servers().map((s) => stream(s, key)));

      const listed = await cli(['list-credentials']);
      assert.equal(listed.code, 0, listed.stderr);
      assert.ok(!listed.stdout.includes(key), 'the listing never has the key');
      const mine = (JSON.parse(listed.stdout) as { api_keys: { id: string; label: string; revoked_at: string | null }[] }).api_keys.find((k) => k.id === id);
      assert.deepEqual({ label: mine?.label, revoked_at: mine?.revoked_at }, { label: 'revoked by the operator', revoked_at: null });

      const revoked = await cli(['revoke-api-key', id]);
      assert.equal(revoked.code, 0, revoked.stderr);
      assert.match(JSON.parse(revoked.stdout).revoked_at, /^\d{4}-/);
      for (const s of streams) assert.deepEqual(await within(s.closed, 5000), { code: 4401, reason: 'The credentials of this stream were revoked' });
      await answered(key, 401);
      const refused = await call(a, 'GET', '/core/api/v1/logging/recent/', key);
      assert.equal(refused.json.detail, 'This API key was revoked');
      const unknown = await cli(['revoke-api-key', 'no-such-key']);
      assert.notEqual(unknown.code, 0);
      assert.match(unknown.stderr, /No API key no-such-key/);
    });

    it('charta-server revoke-client: the client’s tokens are refused', async () => {
      const created = await call(a, 'POST', `${A}/oauth-clients/`, TEST_API_KEY, { label: 'revoked client' });
      assert.equal(created.status, 201, created.text);
      const form = new URLSearchParams({ grant_type: 'client_credentials', client_id: created.json.client_id, client_secret: created.json.client_secret });
      const issued = await toReply(await fetch(`${a.url}/auth/token/`, { method: 'POST', body: form }));
      assert.equal(issued.status, 200, issued.text);
      const token = `Bearer ${issued.json.access_token as string}`;
      for (const server of servers()) assert.equal((await call(server, 'GET', '/core/api/v1/patients/?limit=1', token)).status, 200);
      const revoked = await cli(['revoke-client', created.json.client_id]);
      assert.equal(revoked.code, 0, revoked.stderr);
      for (const server of servers()) {
        let reply = await call(server, 'GET', '/core/api/v1/patients/?limit=1', token);
        for (let i = 0; i < 40 && reply.status !== 401; i++) {
          await new Promise((r) => setTimeout(r, 100));
          reply = await call(server, 'GET', '/core/api/v1/patients/?limit=1', token);
        }
        assert.equal(reply.status, 401, `${server.url}: ${reply.text}`);
        assert.equal(reply.json.detail, 'The OAuth client of this token was revoked');
      }
    });

    if (engine === 'postgres') {
      it("a key revoked through one server's API is refused by the other at once, and the other's stream closed", async () => {
        const { id, key } = await newKey('revoked on A');
        await answered(key, 200);
        const onB = await stream(b!, key);
        const revoked = await call(a, 'POST', `${A}/api-keys/${id}/revoke/`, TEST_API_KEY);
        assert.equal(revoked.status, 200, revoked.text);
        assert.deepEqual(await within(onB.closed, 3000), { code: 4401, reason: 'The credentials of this stream were revoked' });
        // The stream's close came with the signal, which also emptied B's cache: no look needed.
        assert.equal((await call(b!, 'GET', '/core/api/v1/logging/recent/', key)).status, 401);
      });
    }
  });
}

describe("the revocation watcher's stop", () => {
  it('waits for a look under way: the storage is closed only after it, and what it found is delivered', async (t) => {
    // A reader whose answer the test gives: the look (every REVOCATION_POLL_MS) waits on it.
    let asked: () => void = () => undefined;
    const askedOnce = new Promise<void>((resolve) => (asked = resolve));
    let answer: (rows: unknown[]) => void = () => undefined;
    const reader = new Kysely<Database>({
      dialect: new SqliteReaderDialect(
        () => {
          asked();
          return new Promise<unknown[]>((resolve) => (answer = resolve));
        },
        () => undefined,
      ),
    });
    const signals = new SignalBus();
    const seen: Signal[] = [];
    signals.subscribe((signal) => seen.push(signal));
    const stop = watchRevocations({ reader } as unknown as Storage, signals);
    // The watcher's timer holds no process alive: the test's does, until the end.
    const alive = setInterval(() => undefined, 1000);
    t.after(() => clearInterval(alive));
    await askedOnce;
    let stopped = false;
    const stopping = stop().then(() => (stopped = true));
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.equal(stopped, false, 'stop waits for the look under way');
    answer([{ credential: 'api_key:gone', revoked_at: Date.now() * 1000 }]);
    await stopping;
    assert.deepEqual(seen, [{ type: 'credential-revoked', credential: 'api_key:gone' }]);
  });
});
