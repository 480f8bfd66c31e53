// Two `charta-server` processes on one PostgreSQL database: a plugin installed and enabled
// through one is seen, enabled, by the other, and the log stream of each carries the other's
// entries (LISTEN/NOTIFY).
import { after, before, it } from 'node:test';
import assert from 'node:assert/strict';
import WebSocket from 'ws';
import { createDatabase, TEST_API_KEY, toReply, type TestDatabase, describeOnPostgres } from './support/harness.ts';
import { children, killAll, startServerProcess, type ServerProcess } from './support/processes.ts';
import { manifestJson, tarFromDir, VITALS_HANDLER_JS } from './support/archives.ts';

describeOnPostgres('two server processes on one PostgreSQL database', () => {
  let db: TestDatabase;
  let a: ServerProcess;
  let b: ServerProcess;
  before(async () => {
    db = await createDatabase('postgres');
    a = await startServerProcess(db);
    b = await startServerProcess(db);
  });
  after(async () => {
    killAll();
    await Promise.all([...children].map((c) => (c.exitCode === null && c.signalCode === null ? new Promise((r) => c.once('exit', r)) : Promise.resolve())));
    children.clear();
    await db?.drop();
  });

  const call = async (server: ServerProcess, method: string, path: string, body?: FormData | string, contentType?: string) =>
    toReply(
      await fetch(server.url + path, { method, body, headers: { authorization: TEST_API_KEY, ...(contentType ? { 'content-type': contentType } : {}) } }),
    );

  it("share plugins and each other's log entries", async () => {
    // A subscriber on B, before anything happens on A.
    const seen: Array<{ event: string; plugin?: string }> = [];
    const ws = new WebSocket(`${b.url.replace('http', 'ws')}/core/api/v1/logging/?plugin=vitals-alert`, { headers: { authorization: TEST_API_KEY } });
    ws.on('message', (data) => seen.push(JSON.parse(data.toString())));
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
    });
    try {
      const form = new FormData();
      form.set('is_enabled', 'False');
      const pkg = await tarFromDir({ 'CHARTA_MANIFEST.json': manifestJson(), 'dist/index.js': VITALS_HANDLER_JS }, ['.']);
      form.set('package', new Blob([new Uint8Array(pkg)]), 'vitals.tar.gz');
      assert.equal((await call(a, 'POST', '/core/api/v1/plugins/', form)).status, 201);
      assert.equal((await call(a, 'PATCH', '/core/api/v1/plugins/vitals-alert/', 'is_enabled=True', 'application/x-www-form-urlencoded')).status, 200);
      const onB = await call(b, 'GET', '/core/api/v1/plugins/vitals-alert/');
      assert.equal(onB.status, 200, onB.text);
      assert.equal(onB.json.is_enabled, true);
      const deadline = Date.now() + 10_000;
      while (seen.length < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      const events = seen.map((e) => e.event);
      assert.ok(
        events.some((e) => /vitals-alert .*installed/.test(e)),
        JSON.stringify(events),
      );
      assert.ok(
        events.some((e) => /vitals-alert .*enabled/.test(e)),
        JSON.stringify(events),
      );
      assert.ok(seen.every((e) => e.plugin === 'vitals-alert'));
    } finally {
      ws.close();
    }
  });
});
