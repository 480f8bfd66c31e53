// PostgreSQL faults against a real `charta-server` child process (docs/api.md,
// "When the database is away"): its backends terminated under a concurrent write load, and an outage (the database
// refusing connections). The process must stay up with no uncaught driver error, answer 503 with
// Retry-After (never 500) while the database is away, keep every acknowledged write, and serve
// again without a restart. Only this test's own database is touched (never the PostgreSQL server).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { LogBus, type LogEntry } from '../src/logs/bus.ts';
import { startPgRelay } from '../src/logs/pg-relay.ts';
import { openStorage } from '../src/storage/db.ts';
import { isConnectionError, OutcomeUnknownError } from '../src/storage/errors.ts';
import { migrate } from '../src/storage/migrations/index.ts';
import { getSetting, putSetting } from '../src/storage/settings-repository.ts';
import { sql } from 'kysely';
import { createDatabase, PG_ADMIN_URL, request, type Reply, type TestDatabase, describeOnPostgres } from './support/harness.ts';
import { startServerProcess, tokenFor, type ServerProcess, stopAll } from './support/processes.ts';
import { until } from './support/until.ts';

const BASE = '/core/api/v1/commands';
/** Recovery must come within this (a functional deadline on a loaded machine, not a performance figure). */
const RECOVERY_CAP_MS = 10_000;

const dbName = (db: TestDatabase) => new URL(db.url).pathname.slice(1);

/** Runs `work` on a connection of its own to `url` (the admin database unless told). */
async function admin<T>(work: (c: pg.Client) => Promise<T>, url = PG_ADMIN_URL): Promise<T> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return await work(c);
  } finally {
    await c.end();
  }
}

/** Ends every connection to the test database (the server's pool and its log relay). */
const terminateBackends = (db: TestDatabase) =>
  admin((c) => c.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()', [dbName(db)]));

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Waits for `attempt` to succeed (at most RECOVERY_CAP_MS, checked every 50 ms); answers how long it took. */
async function recovered(what: string, attempt: () => Promise<boolean>): Promise<number> {
  const start = performance.now();
  await until(`${what} within ${RECOVERY_CAP_MS} ms`, attempt, { ms: RECOVERY_CAP_MS, every: 50 });
  return performance.now() - start;
}

/** The process is alive and wrote no uncaught error. */
function assertHealthy(server: ServerProcess) {
  const tail = () => server.output().slice(-3000);
  assert.equal(server.child.exitCode, null, `the server exited:\n${tail()}`);
  assert.equal(server.child.signalCode, null, `the server was killed:\n${tail()}`);
  const uncaught = /Unhandled|uncaught|unhandledRejection/i.exec(server.output());
  assert.equal(uncaught, null, `an uncaught error in the server output:\n${tail()}`);
}

describeOnPostgres('database faults (postgres)', () => {
  let db: TestDatabase;
  let server: ServerProcess;
  let token: string;
  let noteKey: string;
  const call = (method: string, urlPath: string, body?: unknown, headers?: Record<string, string>): Promise<Reply> =>
    request(server.url, method, urlPath, { body, headers }, token);

  before(async () => {
    db = await createDatabase('postgres');
    server = await startServerProcess(db);
    token = await tokenFor(server.url);
    const patient = await call('POST', '/core/api/v1/patients/', { firstName: 'Fault', lastName: 'Test' });
    assert.equal(patient.status, 201, patient.text);
    const note = await call('POST', '/core/api/v1/notes/', { patientKey: patient.json.key, noteType: 'encounter' });
    assert.equal(note.status, 201, note.text);
    noteKey = note.json.uuid;
  });

  after(async () => {
    if (db) await admin((c) => c.query(`ALTER DATABASE ${dbName(db)} ALLOW_CONNECTIONS true`)).catch(() => undefined);
    await stopAll();
    await db?.drop();
  });

  it('stays up when its backends are terminated under a write load, keeps every acknowledged write, and serves again without a restart', async (t) => {
    const acknowledged: string[] = [];
    const unavailable: Array<{ key: string; narrative: string; code: string }> = [];
    const unexpected: string[] = [];
    let stop = false;
    const loop = async (id: number) => {
      for (let n = 0; !stop; n++) {
        const narrative = `load ${id} write ${n}`;
        const key = `fault-${id}-${n}`;
        const r = await call('POST', `${BASE}/`, { schemaKey: 'plan', noteKey, values: { narrative } }, { 'idempotency-key': key });
        if (r.status === 201) acknowledged.push(r.json.uuid);
        else if (r.status === 503 && r.headers.get('retry-after') !== null) unavailable.push({ key, narrative, code: r.json?.code });
        else unexpected.push(`${r.status} ${r.headers.get('retry-after')} ${r.text}`);
      }
    };
    const loops = Array.from({ length: 6 }, (_, i) => loop(i));
    for (let round = 0; round < 5; round++) {
      await sleep(150);
      await terminateBackends(db);
    }
    await sleep(150);
    stop = true;
    await Promise.all(loops);

    assertHealthy(server);
    assert.deepEqual(unexpected, [], 'every answer was 201, or 503 with Retry-After');
    for (const u of unavailable) assert.ok(['database_unavailable', 'write_outcome_unknown'].includes(u.code), `503 code ${u.code}`);
    assert.ok(acknowledged.length > 0, 'the load got going');

    // Service is back without a restart: a write succeeds.
    let after = 0;
    const took = await recovered('a write after the terminations', async () => {
      const r = await call('POST', `${BASE}/`, { schemaKey: 'plan', noteKey, values: { narrative: `after ${after++}` } });
      return r.status === 201;
    });
    t.diagnostic(
      `${acknowledged.length} writes acknowledged, ${unavailable.length} answered 503; a write succeeded ${Math.round(took)} ms after the last termination`,
    );

    // Every acknowledged write is there.
    for (const uuid of acknowledged) {
      const r = await call('GET', `${BASE}/${uuid}`);
      assert.equal(r.status, 200, `acknowledged write ${uuid} is there: ${r.text}`);
    }
    // A write answered 503, retried with its Idempotency-Key, is done exactly once.
    for (const u of unavailable) {
      const r = await call('POST', `${BASE}/`, { schemaKey: 'plan', noteKey, values: { narrative: u.narrative } }, { 'idempotency-key': u.key });
      assert.equal(r.status, 201, `retry of ${u.key} (${u.code}): ${r.text}`);
    }
    const narratives = await admin(
      async (c) => (await c.query('SELECT data FROM commands')).rows.map((r: { data: string }) => (JSON.parse(r.data) as { narrative?: string }).narrative),
      db.url,
    );
    for (const u of unavailable) assert.equal(narratives.filter((x) => x === u.narrative).length, 1, `${u.key} is stored exactly once`);
    assertHealthy(server);
  });

  it('answers 503 with Retry-After while the database refuses connections, and serves again within seconds once it accepts them', async (t) => {
    const name = dbName(db);
    await admin((c) => c.query(`ALTER DATABASE ${name} ALLOW_CONNECTIONS false`));
    await terminateBackends(db);

    const live = await fetch(`${server.url}/healthz`);
    assert.equal(live.status, 200, 'liveness does not need the database');
    assert.deepEqual(await live.json(), { status: 'ok' });
    const ready = await fetch(`${server.url}/readyz`);
    assert.equal(ready.status, 503, 'not ready while the database is away');
    assert.ok(ready.headers.get('retry-after'), 'readiness 503 has Retry-After');
    assert.equal(((await ready.json()) as { code: string }).code, 'database_unavailable');

    for (const [method, path, body] of [
      ['POST', `${BASE}/`, { schemaKey: 'plan', noteKey, values: { narrative: 'during the outage' } }],
      ['GET', `${BASE}?note_key=${noteKey}`, undefined],
      ['GET', `/core/api/v1/notes/${noteKey}`, undefined],
    ] as const) {
      const r = await call(method, path, body);
      assert.equal(r.status, 503, `${method} ${path} during the outage: ${r.status} ${r.text}`);
      assert.equal(r.headers.get('retry-after'), '2', `${method} ${path}: Retry-After`);
      assert.equal(r.json.code, 'database_unavailable');
    }
    assertHealthy(server);
    // The server runs at CHARTA_LOG_LEVEL=error: database faults are logged at warn, so an
    // outage does not flood the error level with one stack per request.
    assert.doesNotMatch(server.output(), /"msg":"request failed"/, 'database faults are not logged as failed requests');

    await admin((c) => c.query(`ALTER DATABASE ${name} ALLOW_CONNECTIONS true`));
    const readyAfter = await recovered('/readyz answering 200 again', async () => (await fetch(`${server.url}/readyz`)).status === 200);
    let n = 0;
    const writeAfter = await recovered('a write succeeding again', async () => {
      const r = await call('POST', `${BASE}/`, { schemaKey: 'plan', noteKey, values: { narrative: `back ${n++}` } });
      return r.status === 201;
    });
    // The log relay listens again (its own connection, not the pool).
    await recovered('the log relay listening again', async () =>
      admin(async (c) => {
        const r = await c.query("SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1 AND application_name = 'charta-log-relay'", [name]);
        return (r.rows[0] as { n: number }).n > 0;
      }),
    );
    t.diagnostic(`ready ${Math.round(readyAfter)} ms after connections were allowed again; a write ${Math.round(readyAfter + writeAfter)} ms after`);
    assertHealthy(server);
  });
});

describe('log relay across a lost connection (postgres)', () => {
  let db: TestDatabase;
  before(async () => {
    db = await createDatabase('postgres');
  });
  after(async () => {
    await db?.drop();
  });

  it('listens again after a fault and counts every queued entry as relayed or dropped', async () => {
    const a = new LogBus();
    const b = new LogBus();
    const relayA = await startPgRelay(db.url, a);
    const relayB = await startPgRelay(db.url, b);
    const seenByA: LogEntry[] = [];
    const seenByB: LogEntry[] = [];
    a.subscribe((e) => seenByA.push(e));
    b.subscribe((e) => seenByB.push(e));
    try {
      a.emit({ event: 'before', level: 'info' });
      await recovered('the first entry relayed', async () => seenByB.some((e) => e.event === 'before'));

      await terminateBackends(db);
      const during = 5;
      for (let i = 0; i < during; i++) a.emit({ event: `during ${i}`, level: 'info' });
      await recovered(
        'both relays reconnected and every entry accounted for',
        async () => relayA.stats.reconnections >= 1 && relayB.stats.reconnections >= 1 && relayA.stats.relayed + relayA.stats.dropped === 1 + during,
      );

      // Both directions work again: each side LISTENs anew.
      b.emit({ event: 'from b after', level: 'info' });
      a.emit({ event: 'from a after', level: 'info' });
      await recovered(
        'entries flow both ways again',
        async () => seenByA.some((e) => e.event === 'from b after') && seenByB.some((e) => e.event === 'from a after'),
      );
      assert.equal(relayA.stats.relayed + relayA.stats.dropped, 1 + during + 1, 'every entry is relayed or counted as dropped');
    } finally {
      await relayA.stop();
      await relayB.stop();
    }
  });
});

describe('a connection that breaks before COMMIT (postgres)', () => {
  let db: TestDatabase;
  before(async () => {
    db = await createDatabase('postgres');
  });
  after(async () => {
    await db?.drop();
  });

  it('is an unknown outcome (OutcomeUnknownError), and the pool serves again on a new connection', async () => {
    const storage = openStorage(db.url, { poolSize: 2 });
    try {
      await migrate(storage);
      await assert.rejects(
        storage.transact(async (trx) => {
          await putSetting(trx, 'outcome', 'maybe', 1);
          const pid = (await sql<{ pid: number }>`SELECT pg_backend_pid() AS pid`.execute(trx)).rows[0]!.pid;
          await admin((c) => c.query('SELECT pg_terminate_backend($1)', [pid]));
        }),
        (err: unknown) => err instanceof OutcomeUnknownError,
      );
      // PostgreSQL never saw the COMMIT here: the write is not there, and the storage works again.
      assert.equal(await getSetting(storage.db, 'outcome'), undefined);
      await storage.transact((trx) => putSetting(trx, 'outcome', 'stored', 2));
      assert.equal(await getSetting(storage.db, 'outcome'), 'stored');
    } finally {
      await storage.close();
    }
  });

  it('a connection that broke under a statement is not handed out again, though the pool has not yet seen it close', async () => {
    // The FATAL answer rejects the statement before the socket's end is read: released at once,
    // the client would go back to the pool as idle and the very next checkout would get it.
    const storage = openStorage(db.url, { poolSize: 1 });
    try {
      await assert.rejects(sql`SELECT pg_terminate_backend(pg_backend_pid())`.execute(storage.db), (err: unknown) => isConnectionError(err));
      assert.deepEqual((await sql<{ one: number }>`SELECT 1 AS one`.execute(storage.db)).rows, [{ one: 1 }]);
    } finally {
      await storage.close();
    }
  });
});
