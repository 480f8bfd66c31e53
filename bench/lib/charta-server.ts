// A Charta instance for the benchmark, in its own process: a fresh database, startServer with
// silent logs and the test harness's bootstrap client and API key, a bearer token, then the
// seeded data. For the log fan-out it also emits entries on the server's own log bus, the way
// an operation does after its commit (logs/events.ts).
import { startServer, type Running } from '../../packages/server/src/server.ts';
import type { Engine } from '../../packages/server/src/storage/db.ts';
import { createDatabase, testConfig, TEST_API_KEY, TEST_CLIENT_ID, TEST_CLIENT_SECRET, type TestDatabase } from '../../packages/server/test/support/harness.ts';
import { serve } from './child.ts';
import { clockMs, fanoutEvent, paced, type PaceResult } from './fanout.ts';
import { startProfile, stopProfile } from './profiler.ts';
import { seed, type SeedPlan, type Seeded } from './seed.ts';

export interface SetupArgs {
  engine: Engine;
  plan: Omit<SeedPlan, 'staffKey'>;
}

export interface SetupResult extends Seeded {
  url: string;
  token: string;
  /** The bootstrap API key (plugin routes and the log stream take it raw in Authorization). */
  apiKey: string;
  /** The SQLite file (undefined on PostgreSQL). */
  sqliteFile: string | undefined;
  /** Rows in the commands table once seeded (base + fixtures). */
  totalCommands: number;
}

let running: Running | undefined;
let database: TestDatabase | undefined;

async function setup({ engine, plan }: SetupArgs): Promise<SetupResult> {
  database = await createDatabase(engine);
  running = await startServer(testConfig(database, { logLevel: 'silent' }), () => undefined);
  const reply = await fetch(`${running.url}/auth/token/`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: `grant_type=client_credentials&client_id=${TEST_CLIENT_ID}&client_secret=${TEST_CLIENT_SECRET}`,
  });
  if (reply.status !== 200) throw new Error(`token: ${reply.status} ${await reply.text()}`);
  const token = ((await reply.json()) as { access_token: string }).access_token;
  const client = await running.storage.db.selectFrom('oauth_clients').select('staff_key').where('client_id', '=', TEST_CLIENT_ID).executeTakeFirstOrThrow();
  const seeded = await seed(running.storage.db, engine, { ...plan, staffKey: client.staff_key });
  // The server refreshes planner statistics at start and every 10 minutes; the seeded rows
  // arrived after the start, so do now what the timer would do a few minutes into a real run.
  await running.storage.optimize();
  const { n } = await running.storage.db.selectFrom('commands').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow();
  const sqliteFile = engine === 'sqlite' ? database.url.slice('sqlite:'.length) : undefined;
  return { ...seeded, url: running.url, token, apiKey: TEST_API_KEY, sqliteFile, totalCommands: Number(n) };
}

export interface EmitArgs {
  /** Entries per second. */
  rate: number;
  seconds: number;
  /** Names the run in each entry's text, so the subscribers tell a warm-up from a measurement. */
  tag: string;
}

/** Info entries on the server's log bus at a steady rate, each stamped with its emit time. */
function emitLogs({ rate, seconds, tag }: EmitArgs): Promise<PaceResult> {
  const bus = running!.app.logs;
  return paced(rate, seconds, (seq) => bus.emit({ level: 'info', event: fanoutEvent(tag, seq) }));
}

serve({
  setup,
  clock: () => clockMs(),
  emitLogs,
  subscribers: () => running!.app.logs.subscribers,
  profileStart: () => startProfile(),
  profileStop: ({ file }: { file: string }) => stopProfile(file),
  close: async () => {
    await running?.close();
    await database?.drop();
  },
});
