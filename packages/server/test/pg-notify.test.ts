// The NOTIFY channel under the log and signal relays (storage/pg-notify.ts), on PostgreSQL: a
// connection LISTENs on the channel it publishes to, and PostgreSQL hands back what it sent; those
// payloads are skipped by the sending backend's pid, never handed to the relay to decode.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ENGINES, createDatabase, type TestDatabase } from './support/harness.ts';
import { openNotifyChannel, type NotifyChannel } from '../src/storage/pg-notify.ts';

const until = async (done: () => boolean, what: string) => {
  for (const end = Date.now() + 10_000; !done();) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
};

if (ENGINES.includes('postgres')) {
  describe('the NOTIFY channel (postgres)', () => {
    let db: TestDatabase;
    const channels: NotifyChannel[] = [];
    before(async () => {
      db = await createDatabase('postgres');
    });
    after(async () => {
      for (const c of channels) await c.stop();
      await db?.drop();
    });

    it("a connection is not handed back its own payloads; another connection's it is", async () => {
      const open = async (got: string[]) => {
        const c = await openNotifyChannel({
          url: db.url,
          channel: 'charta_test_channel',
          applicationName: 'charta-test',
          maxPending: 10,
          onPayload: (p) => got.push(p),
        });
        channels.push(c);
        return c;
      };
      const [mine, theirs]: [string[], string[]] = [[], []];
      const a = await open(mine);
      const b = await open(theirs);
      a.publish('from a');
      await until(() => theirs.includes('from a'), 'the other connection to receive it');
      b.publish('from b');
      await until(() => mine.includes('from b'), 'the first connection to receive the reply');
      // Both payloads have been delivered everywhere by now (NOTIFYs arrive in order on a connection).
      assert.deepEqual(mine, ['from b']);
      assert.deepEqual(theirs, ['from a']);
    });
  });
}
