// ETag / If-Match (412), Idempotency-Key replays (422 on a different body), and the audit row
// written in the same transaction as every change.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ENGINES, startInstance, type Instance } from './support/harness.ts';

const C = '/core/api/v1/commands';

for (const engine of ENGINES) {
  describe(`safe retries and audit (${engine})`, () => {
    let api: Instance;
    before(async () => {
      api = await startInstance(engine);
    });
    after(async () => api?.stop());

    it('If-Match with a stale ETag → 412 on PATCH, DELETE, commit, enter-in-error; nothing changes', async () => {
      const c = await api.command('plan', { narrative: 'a' });
      const first = c.headers.get('etag')!;
      const got = await api.call('GET', `${C}/${c.uuid}`);
      assert.equal(got.headers.get('etag'), first);
      const patched = await api.call('PATCH', `${C}/${c.uuid}/`, { body: { values: { narrative: 'b' } }, headers: { 'if-match': first } });
      assert.equal(patched.status, 200);
      const second = patched.headers.get('etag')!;
      assert.notEqual(second, first);
      const stale = { headers: { 'if-match': first } };
      for (const [method, path, body] of [
        ['PATCH', `${C}/${c.uuid}/`, { values: { narrative: 'c' } }],
        ['DELETE', `${C}/${c.uuid}/`, undefined],
        ['POST', `${C}/${c.uuid}/commit/`, undefined],
      ] as const) {
        const r = await api.call(method, path, { body, ...stale });
        assert.equal(r.status, 412, `${method} ${path}`);
        assert.equal(r.json.code, 'precondition_failed');
      }
      assert.equal((await api.call('GET', `${C}/${c.uuid}`)).json.data.narrative, 'b');
      // If-Match compares strongly: a weak tag never matches (RFC 9110).
      assert.equal((await api.call('POST', `${C}/${c.uuid}/commit/`, { headers: { 'if-match': `W/${second}` } })).status, 412);
      const committed = await api.call('POST', `${C}/${c.uuid}/commit/`, { headers: { 'if-match': `"other", ${second}` } });
      assert.equal(committed.status, 200);
      const eie = await api.call('POST', `${C}/${c.uuid}/enter-in-error/`, { headers: { 'if-match': second } });
      assert.equal(eie.status, 412);
      assert.equal((await api.call('POST', `${C}/${c.uuid}/enter-in-error/`, { headers: { 'if-match': '*' } })).status, 200);
    });

    it('Idempotency-Key replays create, commit and enter-in-error; another body → 422', async () => {
      const { noteKey } = await api.note();
      const body = { schemaKey: 'plan', noteKey, values: { narrative: 'once' } };
      const headers = { 'idempotency-key': `create-${noteKey}` };
      const a = await api.call('POST', `${C}/`, { body, headers });
      const b = await api.call('POST', `${C}/`, { body, headers });
      assert.equal(a.status, 201);
      assert.equal(b.status, 201);
      assert.equal(b.json.uuid, a.json.uuid);
      assert.equal(b.headers.get('idempotent-replayed'), 'true');
      const listed = await api.call('GET', `${C}?note_key=${noteKey}`);
      assert.equal(listed.json.count, 1);
      const other = await api.call('POST', `${C}/`, { body: { ...body, values: { narrative: 'twice' } }, headers });
      assert.equal(other.status, 422);
      assert.equal(other.json.code, 'idempotency_key_reused');

      const k = { headers: { 'idempotency-key': `commit-${a.json.uuid}` } };
      const c1 = await api.call('POST', `${C}/${a.json.uuid}/commit/`, k);
      const c2 = await api.call('POST', `${C}/${a.json.uuid}/commit/`, k);
      assert.equal(c1.status, 200);
      assert.deepEqual(c2.json, c1.json);
      assert.equal(c2.status, 200);
      const e = { headers: { 'idempotency-key': `eie-${a.json.uuid}` } };
      const e1 = await api.call('POST', `${C}/${a.json.uuid}/enter-in-error/`, e);
      const e2 = await api.call('POST', `${C}/${a.json.uuid}/enter-in-error/`, e);
      assert.equal(e1.status, 200);
      assert.equal(e2.status, 200);
      assert.deepEqual(e2.json, e1.json);
      // Without a key, a repeat is a real second attempt.
      assert.equal((await api.call('POST', `${C}/${a.json.uuid}/enter-in-error/`)).status, 400);
    });

    it('a failed request does not burn its Idempotency-Key', async () => {
      const { noteKey } = await api.note();
      const headers = { 'idempotency-key': `retry-${noteKey}` };
      await api.call('POST', `/core/api/v1/notes/${noteKey}/lock/`);
      const refused = await api.call('POST', `${C}/`, { body: { schemaKey: 'plan', noteKey }, headers });
      assert.equal(refused.status, 400);
      await api.call('POST', `/core/api/v1/notes/${noteKey}/unlock/`);
      const ok = await api.call('POST', `${C}/`, { body: { schemaKey: 'plan', noteKey }, headers });
      assert.equal(ok.status, 201);
    });

    it('rejects a malformed Idempotency-Key', async () => {
      const { noteKey } = await api.note();
      const r = await api.call('POST', `${C}/`, { body: { schemaKey: 'plan', noteKey }, headers: { 'idempotency-key': 'x'.repeat(300) } });
      assert.equal(r.status, 400);
      assert.equal(r.json.errors[0].field, 'Idempotency-Key');
    });

    it('writes one audit row per change with actor, credential, before/after and request id', async () => {
      const c = await api.command('plan', { narrative: 'a' });
      await api.call('PATCH', `${C}/${c.uuid}/`, { body: { values: { narrative: 'b' } } });
      const refused = await api.call('PATCH', `${C}/${c.uuid}/`, { body: { values: { narrative: 5 } } });
      assert.equal(refused.status, 400);
      const committed = await api.call('POST', `${C}/${c.uuid}/commit/`);
      await api.call('POST', `${C}/${c.uuid}/enter-in-error/`);
      const rows = await api.storage.db.selectFrom('audit_events').selectAll().where('entity_id', '=', c.uuid).orderBy('id').execute();
      assert.deepEqual(
        rows.map((r) => r.action),
        ['command.created', 'command.updated', 'command.committed', 'command.entered_in_error'],
      );
      for (const row of rows) {
        assert.equal(row.actor, c.json.originated_by);
        assert.equal(row.credential, 'client:test-client');
        assert.match(row.request_id ?? '', /^[0-9a-f-]{36}$/);
      }
      assert.equal(rows[2]!.request_id, committed.headers.get('x-request-id'));
      assert.equal(JSON.parse(rows[1]!.before!).data.narrative, 'a');
      assert.equal(JSON.parse(rows[1]!.after!).data.narrative, 'b');
      const staged = await api.command('plan');
      await api.call('DELETE', `${C}/${staged.uuid}/`);
      const deleted = await api.storage.db
        .selectFrom('audit_events')
        .selectAll()
        .where('entity_id', '=', staged.uuid)
        .where('action', '=', 'command.deleted')
        .executeTakeFirstOrThrow();
      assert.equal(JSON.parse(deleted.before!).uuid, staged.uuid);
      assert.equal(deleted.after, null);
    });

    it('the audit trail is append-only in the database itself', async () => {
      const c = await api.command('plan');
      const db = api.storage.db;
      await assert.rejects(db.updateTable('audit_events').set({ action: 'tampered' }).where('entity_id', '=', c.uuid).execute(), /append-only/);
      await assert.rejects(db.deleteFrom('audit_events').where('entity_id', '=', c.uuid).execute(), /append-only/);
    });
  });
}
