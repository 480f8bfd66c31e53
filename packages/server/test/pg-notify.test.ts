// The NOTIFY channel under the log and signal relays (storage/pg-notify.ts), on PostgreSQL: a
// connection LISTENs on the channel it publishes to, and PostgreSQL hands back what it sent; those
// payloads are skipped by the sending backend's pid, never handed to the relay to decode.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ENGINES, createDatabase, type TestDatabase } from './support/harness.ts';
import pg from 'pg';
import { HELLO, keptToSend, openNotifyChannel, type NotifyChannel } from '../src/storage/pg-notify.ts';

const until = async (done: () => boolean, what: string) => {
  for (const end = Date.now() + 10_000; !done();) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
};

describe('the lines kept while alone, sent when another process joins', () => {
  const kept = [1, 2, 3, 4, 5].map((at) => ({ at }));
  it('sends the newest kept since the cut-off, no more than the queue has room for, and none into a full queue', () => {
    assert.deepEqual(keptToSend(kept, 2, 10), [{ at: 2 }, { at: 3 }, { at: 4 }, { at: 5 }]);
    assert.deepEqual(keptToSend(kept, 0, 2), [{ at: 4 }, { at: 5 }]);
    assert.deepEqual(keptToSend(kept, 0, 0), []);
    assert.deepEqual(keptToSend(kept, 0, -3), []);
    assert.deepEqual(keptToSend(kept, 9, 5), []);
  });
});

if (ENGINES.includes('postgres')) {
  describe('the NOTIFY channel (postgres)', () => {
    let db: TestDatabase;
    const channels: NotifyChannel[] = [];
    const clients: pg.Client[] = [];
    before(async () => {
      db = await createDatabase('postgres');
    });
    after(async () => {
      for (const c of channels) await c.stop();
      for (const c of clients) await c.end();
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

    // The log relay's channel (logs/pg-relay.ts): its lines are for other processes only.
    it('a channel that publishes only when heard sends nothing while alone, and again as soon as another joins and until it leaves', async () => {
      const app = 'charta-test-heard';
      const open = async (got: string[]) => {
        const c = await openNotifyChannel({
          url: db.url,
          channel: 'charta_test_heard',
          applicationName: app,
          maxPending: 100,
          onPayload: (p) => got.push(p),
          onlyWhenHeard: true,
          checkMs: 50,
          unheardKeptMs: 400,
        });
        channels.push(c);
        return c;
      };
      // A plain client of another application LISTENing: what goes out on the channel, HELLOs included.
      const wire: string[] = [];
      const watcher = new pg.Client({ connectionString: db.url, application_name: 'charta-test-watcher' });
      await watcher.connect();
      clients.push(watcher);
      watcher.on('notification', (msg) => wire.push(msg.payload ?? ''));
      await watcher.query('LISTEN charta_test_heard');
      const alone = await open([]);
      await until(() => wire.includes(HELLO), 'the first channel to announce itself');
      // Until it has looked, it publishes: probes until one is not sent.
      await until(() => (alone.publish('probe'), alone.stats.unheard > 0), 'the first channel to find itself alone');
      alone.publish('long ago');
      await new Promise((r) => setTimeout(r, 600));
      alone.publish('just now');
      await new Promise((r) => setTimeout(r, 100));
      assert.ok(!wire.includes('long ago') && !wire.includes('just now'), `nothing goes out while alone: ${JSON.stringify(wire)}`);
      const unheard = alone.stats.unheard;
      // Another joins: the line of the last moments (kept 400 ms here) goes out after all, the
      // older ones do not, and the lines after it go out as they come.
      const joined: string[] = [];
      const other = await open(joined);
      await until(() => (alone.publish('heard'), joined.includes('heard')), 'the newcomer to receive a line');
      assert.ok(joined.includes('just now'), JSON.stringify(joined));
      assert.ok(!joined.includes('long ago') && !wire.includes('long ago'), JSON.stringify(wire));
      assert.ok(alone.stats.unheard <= unheard - 1, 'a line sent after all is no longer counted unheard');
      assert.ok(!joined.includes(HELLO), 'the announcement is not handed on as a payload');
      await other.stop();
      await until(() => (alone.publish('after'), alone.stats.unheard > unheard), 'the first channel to find itself alone again');
    });

    it('while alone a payload given as a function is not made; when another joins, the kept ones go out only as many as the queue holds; one that cannot be made is dropped', async () => {
      const app = 'charta-test-kept';
      const open = (got: string[]) =>
        openNotifyChannel({
          url: db.url,
          channel: 'charta_test_kept',
          applicationName: app,
          maxPending: 3,
          onPayload: (p) => got.push(p),
          onlyWhenHeard: true,
          checkMs: 50,
          unheardKeptMs: 60_000,
        }).then((c) => (channels.push(c), c));
      const alone = await open([]);
      await until(() => (alone.publish('probe'), alone.stats.unheard > 0), 'the channel to find itself alone');
      const unheard = alone.stats.unheard;
      const dropped = alone.stats.dropped;
      let made = 0;
      for (let i = 1; i <= 5; i++)
        alone.publish(() => {
          made += 1;
          if (i === 4) throw new Error('cannot be encoded');
          return `kept ${i}`;
        });
      assert.equal(made, 0, 'nothing is encoded while nobody listens');
      assert.equal(alone.stats.unheard, unheard + 5);
      const joined: string[] = [];
      await open(joined);
      await until(() => joined.includes('kept 5'), 'the kept payloads to arrive');
      // The queue holds 3: the newest three are made then; the one that throws is dropped, the older two stay unheard.
      await until(() => alone.stats.relayed >= 2, 'the two to be published');
      assert.deepEqual(
        joined.filter((p) => p.startsWith('kept')),
        ['kept 3', 'kept 5'],
      );
      assert.equal(made, 3);
      assert.equal(alone.stats.unheard, unheard + 2);
      assert.equal(alone.stats.dropped, dropped + 1);
      // Heard, a payload that cannot be made is dropped too, and publish does not throw.
      alone.publish(() => {
        throw new Error('cannot be encoded');
      });
      assert.equal(alone.stats.dropped, dropped + 2);
    });
  });
}
