// Concurrent writes on one command, per engine: the state checks, If-Match and Idempotency-Key
// hold under contention (exactly one winner, losers refused with the right problem, one audit
// row per change, and what a later GET shows agrees with the one acknowledged answer).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { ENGINES, startInstance, type Instance, type Reply } from './support/harness.ts';

const BASE = '/core/api/v1/commands';
const N = 50;

async function auditCount(instance: Instance, entityId: string, action: string): Promise<number> {
  const row = await instance.storage.db
    .selectFrom('audit_events')
    .select((eb) => eb.fn.countAll().as('n'))
    .where('entity_id', '=', entityId)
    .where('action', '=', action)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

function noServerErrors(replies: Reply[]): void {
  for (const r of replies) assert.ok(r.status < 500, `server error ${r.status} ${r.text}`);
}

function tally(replies: Reply[]): string {
  const counts = new Map<string, number>();
  for (const r of replies) {
    const k = `${r.status} ${r.json?.code ?? ''}`;
    counts.set(k, (counts.get(k) ?? 0) + 1);
  }
  return JSON.stringify(Object.fromEntries(counts));
}

/** Starts all requests at once (one macrotask), waits for every answer. */
function together(count: number, send: (i: number) => Promise<Reply>): Promise<Reply[]> {
  return Promise.all(Array.from({ length: count }, (_, i) => send(i)));
}

for (const engine of ENGINES) {
  describe(`concurrent writes (${engine})`, () => {
    let instance: Instance;

    before(async () => {
      instance = await startInstance(engine);
    });

    after(async () => {
      await instance?.stop();
    });

    it(`${N} concurrent commits of one staged command: exactly one succeeds`, async () => {
      const cmd = await instance.command('plan', { narrative: 'Follow up in two weeks' });
      const staffKey = cmd.json.originated_by as string;
      const replies = await together(N, () => instance.call('POST', `${BASE}/${cmd.uuid}/commit/`));
      noServerErrors(replies);
      const winners = replies.filter((r) => r.status === 200);
      assert.equal(winners.length, 1, `one commit wins: ${tally(replies)}`);
      for (const r of replies) {
        if (r.status === 200) continue;
        const notStaged = r.status === 400 && r.json?.code === 'command_not_staged' && r.json?.detail === 'Command is not staged';
        assert.ok(notStaged || r.status === 412, `a losing commit answers 400 'Command is not staged' (or 412): ${r.status} ${r.text}`);
      }
      assert.equal(winners[0]!.json.state, 'committed');
      assert.equal(winners[0]!.json.committed_by, staffKey);

      const got = await instance.call('GET', `${BASE}/${cmd.uuid}`);
      assert.equal(got.status, 200);
      assert.equal(got.json.state, 'committed');
      assert.equal(got.json.committed_by, staffKey);
      assert.equal(got.json.updated_at, winners[0]!.json.updated_at, 'the stored version is the acknowledged one');
      assert.equal(await auditCount(instance, cmd.uuid, 'command.committed'), 1, 'one command.committed audit row');
    });

    it(`${N} concurrent creates with one Idempotency-Key and body: one command, every answer the same`, async () => {
      const { noteKey } = await instance.note();
      const key = `concurrency-${crypto.randomUUID()}`;
      const body = { schemaKey: 'plan', noteKey, values: { narrative: 'Created once' } };
      const replies = await together(N, () => instance.call('POST', `${BASE}/`, { body, headers: { 'idempotency-key': key } }));
      noServerErrors(replies);
      assert.ok(
        replies.every((r) => r.status === 201),
        `every create answers 201: ${tally(replies)}`,
      );
      const uuids = new Set(replies.map((r) => r.json.uuid as string));
      assert.equal(uuids.size, 1, `one uuid for all: ${[...uuids].join(', ')}`);
      const [uuid] = [...uuids] as [string];
      for (const r of replies) assert.deepEqual(r.json, replies[0]!.json, 'replays carry the first response');
      const fresh = replies.filter((r) => r.headers.get('idempotent-replayed') !== 'true');
      assert.equal(fresh.length, 1, 'all but one answer are marked as replays');

      const rows = await instance.storage.db.selectFrom('commands').select('uuid').where('note_uuid', '=', noteKey).execute();
      assert.deepEqual(
        rows.map((r) => r.uuid),
        [uuid],
        'one row in commands for the note',
      );
      assert.equal(await auditCount(instance, uuid, 'command.created'), 1, 'one command.created audit row');
      const list = await instance.call('GET', `${BASE}?note_key=${noteKey}`);
      assert.equal(list.json.count, 1);
    });

    it(`${N} concurrent PATCHes with one If-Match ETag: exactly one applies, the rest are 412`, async () => {
      const cmd = await instance.command('plan', { narrative: 'version 0' });
      const etag = cmd.headers.get('etag');
      assert.ok(etag, 'create answers an ETag');
      const replies = await together(N, (i) =>
        instance.call('PATCH', `${BASE}/${cmd.uuid}/`, { body: { values: { narrative: `version ${i + 1}` } }, headers: { 'if-match': etag } }),
      );
      noServerErrors(replies);
      const winners = replies.filter((r) => r.status === 200);
      assert.equal(winners.length, 1, `one PATCH wins: ${tally(replies)}`);
      for (const r of replies) {
        if (r.status === 200) continue;
        assert.equal(r.status, 412, `a losing PATCH answers 412: ${r.status} ${r.text}`);
        assert.equal(r.json.code, 'precondition_failed');
        assert.ok((r.headers.get('content-type') ?? '').startsWith('application/problem+json'));
      }
      const winner = winners[0]!;
      const got = await instance.call('GET', `${BASE}/${cmd.uuid}`);
      assert.equal(got.json.data.narrative, winner.json.data.narrative, 'the stored value is the acknowledged one');
      assert.equal(got.headers.get('etag'), winner.headers.get('etag'));
      assert.notEqual(got.headers.get('etag'), etag);
      assert.equal(await auditCount(instance, cmd.uuid, 'command.updated'), 1, 'one command.updated audit row');
    });

    it(`${N} concurrent commits with one Idempotency-Key: the command is committed once and every answer is a success or "in progress"`, async () => {
      const cmd = await instance.command('plan', { narrative: 'Commit me once' });
      const key = `commit-${crypto.randomUUID()}`;
      const replies = await together(N, () => instance.call('POST', `${BASE}/${cmd.uuid}/commit/`, { headers: { 'idempotency-key': key } }));
      noServerErrors(replies);
      assert.equal(await auditCount(instance, cmd.uuid, 'command.committed'), 1, 'one command.committed audit row');
      // A repeat of an idempotent request replays the first answer; one that arrives while the first
      // is still running may be told so (409), but it must never be refused as if it were a new request.
      const bad = replies.filter((r) => r.status !== 200 && !(r.status === 409 && r.json?.code === 'idempotency_key_in_flight'));
      assert.equal(bad.length, 0, `repeats of one idempotent commit: ${tally(replies)}; first refusal: ${bad[0]?.text}`);
      const ok = replies.filter((r) => r.status === 200);
      assert.ok(ok.length >= 1);
      for (const r of ok) assert.deepEqual(r.json, ok[0]!.json, 'every success carries the same command');
    });

    it('commits racing a DELETE of the same staged command: exactly one of them succeeds', async () => {
      const cmd = await instance.command('plan', { narrative: 'Either committed or deleted' });
      const replies = await together(N, (i) =>
        i % 2 === 0 ? instance.call('POST', `${BASE}/${cmd.uuid}/commit/`) : instance.call('DELETE', `${BASE}/${cmd.uuid}/`),
      );
      noServerErrors(replies);
      const winners = replies.map((r, i) => ({ r, i })).filter(({ r }) => r.status === 200);
      assert.equal(winners.length, 1, `one write wins: ${tally(replies)}`);
      const committed = winners[0]!.i % 2 === 0;
      for (const [i, r] of replies.entries()) {
        if (r.status === 200) continue;
        const ok =
          (r.status === 404 && r.json?.code === 'command_not_found' && !committed) ||
          (r.status === 400 && r.json?.code === 'command_not_staged' && (committed || i % 2 === 1));
        assert.ok(ok, `loser ${i % 2 === 0 ? 'commit' : 'delete'} after ${committed ? 'commit' : 'delete'}: ${r.status} ${r.text}`);
      }
      const got = await instance.call('GET', `${BASE}/${cmd.uuid}`);
      if (committed) {
        assert.equal(got.status, 200);
        assert.equal(got.json.state, 'committed');
        assert.equal(await auditCount(instance, cmd.uuid, 'command.deleted'), 0);
      } else {
        assert.equal(got.status, 404);
        assert.equal(await auditCount(instance, cmd.uuid, 'command.committed'), 0);
        assert.equal(await auditCount(instance, cmd.uuid, 'command.deleted'), 1);
      }
    });

    it('commits racing a lock of their note: none lands after the lock', async () => {
      const { noteKey } = await instance.note();
      const uuids: string[] = [];
      for (let i = 0; i < 20; i++) {
        const r = await instance.call('POST', `${BASE}/`, { body: { schemaKey: 'plan', noteKey, values: { narrative: `item ${i}` } } });
        assert.equal(r.status, 201, r.text);
        uuids.push(r.json.uuid);
      }
      const commits = uuids.map((uuid) => instance.call('POST', `${BASE}/${uuid}/commit/`));
      const lock = instance.call('POST', `/core/api/v1/notes/${noteKey}/lock/`);
      const replies = await Promise.all(commits);
      const locked = await lock;
      noServerErrors([...replies, locked]);
      assert.equal(locked.status, 200, locked.text);
      for (const [i, r] of replies.entries()) {
        assert.ok(r.status === 200 || (r.status === 400 && r.json?.detail === 'Note has an invalid type or state'), `commit ${i}: ${r.status} ${r.text}`);
        const got = await instance.call('GET', `${BASE}/${uuids[i]}`);
        assert.equal(got.json.state, r.status === 200 ? 'committed' : 'staged', `command ${i} agrees with its answer`);
      }
      const events = await instance.storage.db
        .selectFrom('audit_events')
        .select(['id', 'action', 'entity_id'])
        .where((eb) =>
          eb.or([eb('entity_id', 'in', uuids).and('action', '=', 'command.committed'), eb('entity_id', '=', noteKey).and('action', '=', 'note.locked')]),
        )
        .orderBy('id')
        .execute();
      const lockAt = events.findIndex((e) => e.action === 'note.locked');
      assert.ok(lockAt >= 0, 'the lock is audited');
      assert.equal(events.length - 1, replies.filter((r) => r.status === 200).length, 'one audit row per acknowledged commit');
      assert.equal(lockAt, events.length - 1, `no commit is recorded after the lock: ${events.map((e) => e.action).join(', ')}`);
    });
  });
}
