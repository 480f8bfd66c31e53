// `charta-server start --workers N` as real processes, as docs/configuration.md,
// "Multi-process serving" describes it. On PostgreSQL: a first start prints the credentials
// once, from the primary; requests are served by two worker processes (told apart by the pid of
// the debug log line carrying each answer's X-Request-Id); every acknowledged write of a
// concurrent load through both is stored; a worker killed with SIGKILL is replaced while the
// service keeps answering; SIGTERM stops every worker and the primary exits 0, or 1 when a worker
// had to cut a request off. On SQLite, more than one worker is refused with exit 2 and the
// reason; so is any value that is not 1 to 64. GET /metrics through either worker answers both.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import { openStorage } from '../src/storage/db.ts';
import { startServer } from '../src/server.ts';
import { createDatabase, ENGINES, TEST_API_KEY, testConfig, type TestDatabase, describeOnPostgres } from './support/harness.ts';
import { runBinary, startServerProcess, stopAll, tokenFor, type ServerProcess } from './support/processes.ts';

const BASE = '/core/api/v1/commands';

interface Answer {
  status: number;
  requestId: string;
  json: any;
}

/** One request on a connection of its own, so the primary hands each to the next worker. */
function call(url: string, method: string, urlPath: string, token: string, body?: unknown): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const req = http.request(
      url + urlPath,
      {
        method,
        agent: false,
        headers: { authorization: `Bearer ${token}`, ...(payload ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) } : {}) },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => {
          let json: unknown;
          try {
            json = JSON.parse(text);
          } catch {
            json = text;
          }
          resolve({ status: res.statusCode!, requestId: String(res.headers['x-request-id']), json });
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

/** The JSON lines of a process's output (its workers' and its own log). */
const logLines = (server: ServerProcess): Array<Record<string, any>> =>
  server
    .output()
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .flatMap((l) => {
      try {
        return [JSON.parse(l) as Record<string, any>];
      } catch {
        return [];
      }
    });

/** Waits (at most 20 s) until `found` answers something for the output so far. */
async function waitFor<T>(server: ServerProcess, what: string, found: () => T | undefined): Promise<T> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const value = found();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`no ${what} within 20 s:\n${server.output().slice(-3000)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** The pid of the process that logged each request (debug level logs "request completed" with its reqId). */
async function servedBy(server: ServerProcess, requestIds: string[]): Promise<number[]> {
  return waitFor(server, `log line for each of ${requestIds.length} requests`, () => {
    const pids = new Map<string, number>();
    for (const line of logLines(server)) if (typeof line.reqId === 'string' && line.msg === 'request completed') pids.set(line.reqId, line.pid);
    return requestIds.every((id) => pids.has(id)) ? requestIds.map((id) => pids.get(id)!) : undefined;
  });
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** Commands in the database among these uuids, read directly (not through the workers). */
async function stored(db: TestDatabase, uuids: string[]): Promise<number> {
  const storage = openStorage(db.url);
  try {
    const rows = await storage.db.selectFrom('commands').select('uuid').where('uuid', 'in', uuids).execute();
    return rows.length;
  } finally {
    await storage.close();
  }
}

describeOnPostgres('charta-server start --workers 2 on PostgreSQL', () => {
  let db: TestDatabase;
  let server: ServerProcess;
  let token: string;
  let noteKey: string;
  let workerPids: number[] = [];

  before(async () => {
    db = await createDatabase('postgres');
  });
  after(async () => {
    await stopAll();
    await db?.drop();
  });

  it('first start: the primary prepares the database and prints the credentials once; the startup line says how many workers serve', async () => {
    const first = await startServerProcess(db, {
      CHARTA_WORKERS: '2',
      CHARTA_BOOTSTRAP_API_KEY: '',
      CHARTA_BOOTSTRAP_CLIENT_ID: '',
      CHARTA_BOOTSTRAP_CLIENT_SECRET: '',
    });
    const secret = await waitFor(first, 'client secret', () => /OAuth client secret: +(\S+)/.exec(first.output())?.[1]);
    const out = first.output();
    assert.equal(out.split('Charta is listening on').length - 1, 1, out);
    assert.equal(out.split('First start: these credentials are shown ONCE').length - 1, 1, out);
    assert.equal(out.split('API key (plugin tool)').length - 1, 1, out);
    assert.match(out, /Charta is listening on http:\/\/127\.0\.0\.1:\d+ \(database postgres:\/\/[^)]*, 2 worker processes\)/);
    // The printed client works against the workers.
    const clientId = /OAuth client id: +(\S+)/.exec(out)![1]!;
    const res = await fetch(`${first.url}/auth/token/`, {
      method: 'POST',
      body: new URLSearchParams({ grant_type: 'client_credentials', client_id: clientId, client_secret: secret }),
    });
    assert.equal(res.status, 200, await res.text());
    first.child.kill('SIGTERM');
    assert.deepEqual(await first.exited, { code: 0, signal: null }, first.output().slice(-2000));
    const storage = openStorage(db.url);
    try {
      const keys = await storage.db.selectFrom('api_keys').select('label').execute();
      assert.deepEqual(
        keys.map((k) => k.label),
        ['first start'],
        'one first-start key: nobody else made one',
      );
    } finally {
      await storage.close();
    }
  });

  it('serves from two worker processes, and keeps every acknowledged write of a concurrent load through both', async () => {
    server = await startServerProcess(db, { CHARTA_LOG_LEVEL: 'debug' }, ['--workers', '2']);
    assert.doesNotMatch(server.output(), /First start/, 'a later start prints no credentials');
    assert.match(server.output(), /2 worker processes/);
    token = await tokenFor(server.url);
    const patient = await call(server.url, 'POST', '/core/api/v1/patients/', token, { firstName: 'Two', lastName: 'Workers' });
    assert.equal(patient.status, 201, JSON.stringify(patient.json));
    const note = await call(server.url, 'POST', '/core/api/v1/notes/', token, { patientKey: patient.json.key, noteType: 'encounter' });
    assert.equal(note.status, 201, JSON.stringify(note.json));
    noteKey = note.json.uuid;

    const acknowledged: Answer[] = [];
    const refused: string[] = [];
    const loop = async (id: number) => {
      for (let n = 0; n < 10; n++) {
        const r = await call(server.url, 'POST', `${BASE}/`, token, { schemaKey: 'plan', noteKey, values: { narrative: `loop ${id} write ${n}` } });
        if (r.status === 201) acknowledged.push(r);
        else refused.push(`${r.status} ${JSON.stringify(r.json)}`);
      }
    };
    await Promise.all(Array.from({ length: 8 }, (_, i) => loop(i)));
    assert.deepEqual(refused, []);
    assert.equal(acknowledged.length, 80);

    const pids = await servedBy(
      server,
      acknowledged.map((a) => a.requestId),
    );
    workerPids = [...new Set(pids)].sort();
    assert.equal(workerPids.length, 2, `two processes served the writes: ${workerPids.join(', ')}`);
    assert.ok(!workerPids.includes(server.child.pid!), 'the primary serves nothing itself');
    assert.equal(
      await stored(
        db,
        acknowledged.map((a) => a.json.uuid),
      ),
      80,
      'every acknowledged write is stored',
    );
  });

  it('GET /metrics through either worker answers every worker, each series labelled with its worker (docs/operations.md, "Monitoring")', async () => {
    for (let i = 0; i < 4; i++) {
      const answer = await call(server.url, 'GET', '/metrics', TEST_API_KEY);
      assert.equal(answer.status, 200);
      const text = String(answer.json);
      const writes = [...text.matchAll(/^charta_http_requests_total\{method="POST",route="\/core\/api\/v1\/commands\/",status="201",worker="(\d)"\} (\d+)$/gm)];
      assert.deepEqual(writes.map((m) => m[1]).sort(), ['1', '2'], text.slice(0, 3000));
      assert.equal(
        writes.reduce((sum, m) => sum + Number(m[2]), 0),
        80,
        "the load's 80 writes, between the two workers",
      );
      assert.match(text, /^nodejs_eventloop_lag_seconds\{worker="1"\} /m);
      assert.match(text, /^charta_db_connections\{pool="main",state="idle",worker="2"\} \d+$/m);
    }
  });

  it('replaces a worker killed with SIGKILL, and keeps answering meanwhile', async () => {
    const [victim, survivor] = workerPids as [number, number];
    process.kill(victim, 'SIGKILL');
    const died = await waitFor(server, "the primary's line about the dead worker", () =>
      logLines(server).find((l) => l.role === 'primary' && l.pid === server.child.pid && l.workerPid === victim && l.exit === 'signal SIGKILL'),
    );
    assert.equal(typeof died.restartInMs, 'number');
    assert.equal(died.level, 50, 'logged as an error');

    // Until the replacement listens, the survivor answers everything.
    const meanwhile: Answer[] = [];
    for (let i = 0; i < 6; i++) meanwhile.push(await call(server.url, 'GET', '/core/api/v1/notes/' + noteKey, token));
    assert.deepEqual(
      meanwhile.map((a) => a.status),
      [200, 200, 200, 200, 200, 200],
    );

    await waitFor(server, 'the replacement', () => logLines(server).find((l) => l.role === 'primary' && l.msg.includes('replaced')));
    const after: Answer[] = [];
    for (let i = 0; i < 10; i++) after.push(await call(server.url, 'GET', '/core/api/v1/notes/' + noteKey, token));
    assert.ok(
      after.every((a) => a.status === 200),
      JSON.stringify(after.map((a) => a.status)),
    );
    const pids = new Set(
      await servedBy(
        server,
        after.map((a) => a.requestId),
      ),
    );
    assert.ok(pids.has(survivor), 'the survivor still serves');
    assert.ok(!pids.has(victim), 'the dead one does not');
    assert.equal(pids.size, 2, `the replacement serves too: ${[...pids].join(', ')}`);
    workerPids = [...pids];
  });

  it('SIGTERM during a write load: the workers finish what is in flight and exit, the primary exits 0, no acknowledged write is lost', async () => {
    const acknowledged: string[] = [];
    const unexpected: string[] = [];
    let signalled = false;
    const loop = async (id: number) => {
      for (let n = 0; ; n++) {
        let r: Answer;
        try {
          r = await call(server.url, 'POST', `${BASE}/`, token, { schemaKey: 'plan', noteKey, values: { narrative: `stop ${id} write ${n}` } });
        } catch (err) {
          // Once nothing listens, connections are refused: the load is over.
          if (!signalled) unexpected.push(`before SIGTERM: ${(err as Error).message}`);
          return;
        }
        if (r.status === 201) acknowledged.push(r.json.uuid);
        else if (!(signalled && r.status === 503)) unexpected.push(`${r.status} ${JSON.stringify(r.json)}`);
      }
    };
    const loops = Array.from({ length: 6 }, (_, i) => loop(i));
    while (acknowledged.length < 20 && unexpected.length === 0) await new Promise((r) => setTimeout(r, 20));
    signalled = true;
    server.child.kill('SIGTERM');
    const exit = await server.exited;
    await Promise.all(loops);
    assert.deepEqual(exit, { code: 0, signal: null }, server.output().slice(-3000));
    assert.deepEqual(unexpected, []);
    await waitFor(server, 'every worker gone', () => (workerPids.every((pid) => !alive(pid)) ? true : undefined));
    assert.equal(await stored(db, acknowledged), acknowledged.length, 'every acknowledged write is stored');
  });

  it('fails the start with exit 1 when the workers cannot listen (the port is taken)', async () => {
    const taken = net.createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    try {
      const port = (taken.address() as net.AddressInfo).port;
      const r = await runBinary(['start', '--workers', '2'], {
        ...db.env,
        CHARTA_DATABASE_URL: db.url,
        CHARTA_PORT: String(port),
        CHARTA_BOOTSTRAP_API_KEY: TEST_API_KEY,
      });
      assert.equal(r.code, 1, r.stderr);
      assert.match(r.stderr, /address in use/);
      assert.match(r.stderr, /charta-server: worker \d exited before listening/);
      assert.doesNotMatch(r.stdout, /Charta is listening/);
    } finally {
      taken.close();
    }
  });

  it('exits 1 when a worker had to cut a request off at CHARTA_SHUTDOWN_TIMEOUT', async () => {
    const s = await startServerProcess(db, { CHARTA_WORKERS: '2', CHARTA_SHUTDOWN_TIMEOUT: '0.5', CHARTA_LOG_LEVEL: 'debug' });
    // A request whose body never finishes arriving: in flight in one worker until the timeout cuts it.
    const socket = net.connect(Number(new URL(s.url).port), '127.0.0.1');
    socket.on('error', () => undefined);
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
    socket.write(
      `POST ${BASE}/ HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: ${TEST_API_KEY}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"schemaKey":`,
    );
    await waitFor(s, 'the incoming request', () => logLines(s).find((l) => l.msg === 'incoming request' && l.req?.method === 'POST'));
    s.child.kill('SIGTERM');
    assert.deepEqual(await s.exited, { code: 1, signal: null }, s.output().slice(-3000));
    assert.match(s.output(), /cut off/);
    socket.destroy();
  });
});

for (const engine of ENGINES) {
  describe(`a worker's start (${engine})`, () => {
    it('opens the database the primary prepared and changes nothing in it: on an empty one it fails, having migrated nothing', async () => {
      const db = await createDatabase(engine);
      try {
        // On SQLite it stops at the key the primary would have made (a worker makes none); on PostgreSQL at the tables.
        await assert.rejects(
          startServer(testConfig(db), () => undefined, { prepared: true }),
          engine === 'sqlite' ? /no secret key: .*secret\.key does not exist/ : /plugins/,
        );
        assert.ok(!fs.existsSync(path.join(db.dataDir, 'secret.key')), 'no key made');
        const storage = openStorage(db.url);
        try {
          assert.deepEqual(await storage.db.introspection.getTables({ withInternalKyselyTables: true }), [], 'no table, not even the migrations table');
        } finally {
          await storage.close();
        }
      } finally {
        await db.drop();
      }
    });
  });
}

describe('charta-server start --workers: refusals', () => {
  let db: TestDatabase;
  before(async () => {
    db = await createDatabase('sqlite');
  });
  after(async () => {
    await stopAll();
    await db?.drop();
  });

  it('refuses more than one worker on SQLite: exit 2, one line naming PostgreSQL as the scale-out path', async () => {
    for (const [args, env] of [
      [['start', '--workers', '2'], {}],
      [['start'], { CHARTA_WORKERS: '3' }],
    ] as const) {
      const r = await runBinary([...args], { CHARTA_DATABASE_URL: db.url, ...env });
      assert.equal(r.code, 2, r.stderr);
      assert.equal(r.stdout, '', 'nothing started');
      const lines = r.stderr.trim().split('\n');
      assert.equal(lines.length, 1, r.stderr);
      assert.match(lines[0]!, /^charta-server: CHARTA_WORKERS \(--workers\) above 1 needs PostgreSQL, the scale-out path: .*SQLite/);
    }
  });

  it('refuses a value that is not an integer from 1 to 64: exit 2', async () => {
    const bad = ['0', '65', 'two', '1.5', '-1', '1e1'];
    const results = await Promise.all(bad.map((v) => runBinary(['start', `--workers=${v}`], { CHARTA_DATABASE_URL: db.url })));
    results.forEach((r, i) => {
      assert.equal(r.code, 2, `${bad[i]}: ${r.stderr}`);
      assert.equal(r.stderr.trim(), `charta-server: CHARTA_WORKERS (--workers) must be an integer from 1 to 64, got ${bad[i]}`);
    });
    const env = await runBinary(['start'], { CHARTA_DATABASE_URL: db.url, CHARTA_WORKERS: '0' });
    assert.equal(env.code, 2, env.stderr);
    assert.match(env.stderr, /must be an integer from 1 to 64, got 0/);
  });

  it('--workers 1 is the single process of today, on SQLite too', async () => {
    const s = await startServerProcess(db, {}, ['--workers', '1']);
    assert.doesNotMatch(s.output(), /worker processes/);
    assert.equal((await fetch(`${s.url}/healthz`)).status, 200);
    s.child.kill('SIGTERM');
    assert.deepEqual(await s.exited, { code: 0, signal: null });
  });
});
