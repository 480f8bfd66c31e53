// A process that asks a reader thread for a read and closes the threads at once, without awaiting
// the read (as a server closing while a read is under way): it prints `closed` once close() has
// resolved. The thread is slowed on its close message (200 ms), so the read's answer comes well
// before the thread's exit: a thread that let go of the process at its last answer would let it end
// with close() still pending (exit code 13, nothing printed). Used by sqlite-read-threads.test.ts.
import { Worker } from 'node:worker_threads';
import { READER_THREAD_SOURCE, SqliteReadThreads, type ReaderData } from '../../src/storage/sqlite-read-threads.ts';
import { sqliteConnectionPragmas } from '../../src/storage/sqlite-settings.ts';

const slowClose =
  "require('node:worker_threads').parentPort.on('message', (m) => { if (m.op === 'close') { const end = Date.now() + 200; while (Date.now() < end); } });\n";
const threads = new SqliteReadThreads(
  process.argv[2]!,
  sqliteConnectionPragmas('normal'),
  1,
  (data: ReaderData) => new Worker(slowClose + READER_THREAD_SOURCE, { eval: true, workerData: data }),
);
const read = threads.all('SELECT 1 AS one', []);
await threads.close();
process.stdout.write(`closed ${JSON.stringify(await read)}\n`);
