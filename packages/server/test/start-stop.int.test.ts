// Starts and stops of the real `charta-server start`, on whichever Node runs the tests (CI runs
// this file on Node 20 and on Node 24: .ci/run, docs/configuration.md, "Node versions"). On Node 24
// a better-sqlite3 compiled against the headers of Node 24.19 or later aborted the process
// (`Assertion failed: (env) != nullptr` in node::RemoveEnvironmentCleanupHook, from
// Statement::~Statement) when the garbage collector freed one of its statements outside a
// JavaScript context (a full collection that an allocation started): most starts died within two
// seconds, loading the starter data. The first test asks
// that of the driver alone, the second of twenty starts in a row, each on a new database (a first
// start, the one that prepares the most statements), each stopped with SIGTERM.
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { createDatabase, type TestDatabase } from './support/harness.ts';
import { startServerProcess, stopAll } from './support/processes.ts';

const STARTS = 20;

/** What a process that ended wrote and how it ended. */
interface Ended {
  code: number | null;
  signal: NodeJS.Signals | null;
  output: string;
}

/** Fails with the process's output when it did not end well: exit 0, no signal, no failed assertion of Node's. */
function assertEndedCleanly(ended: Ended, what: string) {
  const detail = `${what}: code ${ended.code}, signal ${ended.signal}, ${process.version}:\n${ended.output.slice(-3000)}`;
  assert.doesNotMatch(ended.output, /Assertion failed|Native stack trace/, detail);
  assert.equal(ended.signal, null, detail);
  assert.equal(ended.code, 0, detail);
}

// Statements that live long enough to reach V8's old generation, then are dropped while a
// young-generation allocation forces full collections: better-sqlite3's statements are freed by
// the collector only (it has no finalize()), which is where the broken builds aborted, every time.
const STATEMENTS_COLLECTED = `
const Database = require(process.argv[1]);
const db = new Database(':memory:');
for (let round = 0; round < 30; round++) {
  let kept = [];
  for (let i = 0; i < 5000; i++) kept.push(db.prepare('SELECT ' + (round * 5000 + i)));
  let junk = [];
  for (let i = 0; i < 200000; i++) junk.push({ i });
  junk = kept = null;
}
db.close();
`;

describe(`charta-server on ${process.version}`, () => {
  const databases: TestDatabase[] = [];

  after(async () => {
    await stopAll();
    await Promise.all(databases.map((db) => db.drop()));
  });

  it('the SQLite driver survives the garbage collector freeing its statements', async () => {
    const driver = createRequire(import.meta.url).resolve('better-sqlite3');
    const child = spawn(process.execPath, ['-e', STATEMENTS_COLLECTED, driver], { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const ended = await new Promise<Ended>((resolve) => child.once('close', (code, signal) => resolve({ code, signal, output })));
    assertEndedCleanly(ended, 'statements freed by the garbage collector');
  });

  it(`${STARTS} starts and stops in a row, each on a new SQLite database, each exits 0`, async () => {
    for (let n = 1; n <= STARTS; n++) {
      const db = await createDatabase('sqlite');
      databases.push(db);
      const server = await startServerProcess(db).catch((err: Error) => assert.fail(`start ${n}: ${err.message}`));
      const response = await fetch(`${server.url}/readyz`).catch((err: Error) => err);
      server.child.kill('SIGTERM');
      const { code, signal } = await server.exited;
      assertEndedCleanly({ code, signal, output: server.output() }, `start ${n}`);
      assert.ok(!(response instanceof Error), `start ${n}: the health check failed: ${String(response)}`);
      assert.equal(response.status, 200, `start ${n}: health answered ${response.status}`);
    }
  });
});
