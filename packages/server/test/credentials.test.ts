// Credential rotation (docs/api.md, "Credentials"; docs/operations.md, "Credentials") on both
// engines: API keys and OAuth clients created, listed (last use, never the secret) and revoked with
// the admin API key; a revoked or expired credential is refused with 401 on its next request, and the
// log and change streams opened with it are closed with 4401; bad input names its field.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ENGINES, TEST_API_KEY, startInstance, request, type Instance } from './support/harness.ts';
import { openJsonSocket } from './support/websockets.ts';
import { isoMicros, nowMicros } from '../src/lib/time.ts';
import { openStorage } from '../src/storage/db.ts';
import { operatorCtx, revokeApiKeyOperation } from '../src/auth/credentials.ts';

const A = '/core/api/v1/admin';
/** The listed credential once its last use is written (without waiting for it, auth/authenticate.ts): a few tries. */
async function listedUsed<T extends { last_used_at: string | null }>(list: () => Promise<T | undefined>): Promise<T> {
  for (let i = 0; ; i++) {
    const found = await list();
    if ((found && found.last_used_at !== null) || i >= 20) return found!;
    await new Promise((r) => setTimeout(r, 100));
  }
}
const within = <T>(p: Promise<T>, ms = 3000): Promise<T> =>
  Promise.race([p, new Promise<T>((_, reject) => setTimeout(() => reject(new Error(`not within ${ms} ms`)), ms))]);

for (const engine of ENGINES) {
  describe(`credentials (${engine})`, () => {
    let api: Instance;
    const admin = (method: string, path: string, body?: unknown) => api.call(method, path, { token: null, authorization: TEST_API_KEY, body });
    before(async () => {
      api = await startInstance(engine);
    });
    after(async () => api?.stop());

    it('creates an API key shown once, lists it with its last use and never its secret, and revoking it ends its requests and its log stream', async () => {
      const created = await admin('POST', `${A}/api-keys/`, { label: 'rotation', scopes: ['system/Plugins.*'] });
      assert.equal(created.status, 201, created.text);
      const key = created.json.api_key as string;
      assert.ok(key.length >= 20);
      assert.deepEqual(created.json.scopes, ['system/Plugins.*']);
      assert.equal(created.json.last_used_at, null);
      assert.equal(created.json.expires_at, null);

      const used = await api.call('GET', '/core/api/v1/logging/recent/', { token: null, authorization: key });
      assert.equal(used.status, 200, used.text);
      const stream = await openJsonSocket(`${api.url.replace(/^http/, 'ws')}/core/api/v1/logging/`, { authorization: key });

      let text = '';
      const mine = await listedUsed(async () => {
        const list = await admin('GET', `${A}/api-keys/`);
        assert.equal(list.status, 200, list.text);
        text = list.text;
        return list.json.results.find((k: { id: string }) => k.id === created.json.id);
      });
      assert.ok(!text.includes(key), 'the listing never has the key');
      assert.ok(mine, 'listed');
      assert.deepEqual(Object.keys(mine).sort(), ['created_at', 'expires_at', 'id', 'label', 'last_used_at', 'revoked_at', 'scopes']);
      assert.match(mine.last_used_at, /^\d{4}-\d\d-\d\dT/, 'its use is listed');
      assert.equal(mine.revoked_at, null);

      const revoked = await admin('POST', `${A}/api-keys/${created.json.id}/revoke/`);
      assert.equal(revoked.status, 200, revoked.text);
      assert.match(revoked.json.revoked_at, /^\d{4}-/);
      const closed = await within(stream.closed);
      assert.equal(closed.code, 4401);
      const refused = await api.call('GET', '/core/api/v1/logging/recent/', { token: null, authorization: key });
      assert.equal(refused.status, 401);
      assert.equal(refused.json.detail, 'This API key was revoked');
      assert.ok(!refused.text.includes(key), 'the secret is never echoed');

      const storage = openStorage(api.db.url);
      try {
        const rows = await storage.db
          .selectFrom('audit_events')
          .select(['action', 'after'])
          .where('entity_id', '=', created.json.id)
          .orderBy('occurred_at')
          .execute();
        assert.deepEqual(
          rows.map((r) => r.action),
          ['credential.api_key.created', 'credential.api_key.revoked'],
        );
        assert.ok(!JSON.stringify(rows).includes(key), 'the audit never has the key');
      } finally {
        await storage.close();
      }
    });

    it('creates an OAuth client whose token opens a change stream; revoking the client ends the token and closes the stream', async () => {
      const created = await admin('POST', `${A}/oauth-clients/`, { label: 'rotating client' });
      assert.equal(created.status, 201, created.text);
      const { client_id: clientId, client_secret: secret } = created.json as { client_id: string; client_secret: string };
      const form = `grant_type=client_credentials&client_id=${encodeURIComponent(clientId)}&client_secret=${encodeURIComponent(secret)}`;
      const tokenReply = await request(
        api.url,
        'POST',
        '/auth/token/',
        { raw: { contentType: 'application/x-www-form-urlencoded', data: form }, token: null },
        '',
      );
      assert.equal(tokenReply.status, 200, tokenReply.text);
      const token = tokenReply.json.access_token as string;
      const { patientKey } = await api.note();
      assert.equal((await api.call('GET', `/core/api/v1/patients/${patientKey}`, { token })).status, 200);
      const stream = await openJsonSocket(`${api.url.replace(/^http/, 'ws')}/core/api/v1/changes/?patient_key=${patientKey}`, {
        authorization: `Bearer ${token}`,
      });

      let text = '';
      const mine = await listedUsed(async () => {
        const list = await admin('GET', `${A}/oauth-clients/`);
        text = list.text;
        return list.json.results.find((c: { client_id: string }) => c.client_id === clientId);
      });
      assert.ok(!text.includes(secret), 'the listing never has the secret');
      assert.equal(mine.label, 'rotating client');
      assert.match(mine.last_used_at, /^\d{4}-/);

      const revoked = await admin('POST', `${A}/oauth-clients/${clientId}/revoke/`);
      assert.equal(revoked.status, 200, revoked.text);
      assert.equal((await within(stream.closed)).code, 4401);
      const refused = await api.call('GET', `/core/api/v1/patients/${patientKey}`, { token });
      assert.equal(refused.status, 401);
      assert.equal(refused.json.detail, 'The OAuth client of this token was revoked');
      const again = await request(api.url, 'POST', '/auth/token/', { raw: { contentType: 'application/x-www-form-urlencoded', data: form }, token: null }, '');
      assert.equal(again.status, 401);
      assert.equal(again.json.detail, 'This client was revoked');
    });

    it('refuses an expired API key, and caps a token at its client’s expiry', async () => {
      const soon = isoMicros(nowMicros() + 1_500_000);
      const created = await admin('POST', `${A}/api-keys/`, { label: 'short', expires_at: soon });
      assert.equal(created.status, 201, created.text);
      assert.equal((await api.call('GET', `${A}/api-keys/`, { token: null, authorization: created.json.api_key })).status, 200);
      await new Promise((r) => setTimeout(r, 1700));
      const refused = await api.call('GET', `${A}/api-keys/`, { token: null, authorization: created.json.api_key });
      assert.equal(refused.status, 401);
      assert.equal(refused.json.detail, 'This API key has expired');

      const client = await admin('POST', `${A}/oauth-clients/`, { expires_at: isoMicros(nowMicros() + 3600e6) });
      const form = `grant_type=client_credentials&client_id=${encodeURIComponent(client.json.client_id)}&client_secret=${encodeURIComponent(client.json.client_secret)}`;
      const tokenReply = await request(
        api.url,
        'POST',
        '/auth/token/',
        { raw: { contentType: 'application/x-www-form-urlencoded', data: form }, token: null },
        '',
      );
      assert.equal(tokenReply.status, 200, tokenReply.text);
      assert.ok(tokenReply.json.expires_in <= 3600 && tokenReply.json.expires_in > 3500, String(tokenReply.json.expires_in));
    });

    it('closes a stream opened with a key when the key expires, with 4401 saying so', async () => {
      const created = await admin('POST', `${A}/api-keys/`, {
        label: 'expiring stream',
        scopes: ['system/Plugins.*'],
        expires_at: isoMicros(nowMicros() + 1_500_000),
      });
      assert.equal(created.status, 201, created.text);
      const stream = await openJsonSocket(`${api.url.replace(/^http/, 'ws')}/core/api/v1/logging/`, { authorization: created.json.api_key });
      const started = Date.now();
      const closed = await within(stream.closed, 5000);
      assert.deepEqual(closed, { code: 4401, reason: 'The credentials of this stream have expired' });
      assert.ok(Date.now() - started >= 1000, 'not before the expiry');
    });

    it('finds a revocation written by another program within a second or two: the key is refused and its stream closed', async () => {
      const created = await admin('POST', `${A}/api-keys/`, { label: 'revoked elsewhere', scopes: ['system/Plugins.*'] });
      const key = created.json.api_key as string;
      // Cached by the server from here on (auth/authenticate.ts keeps a principal for 30 s).
      assert.equal((await api.call('GET', '/core/api/v1/logging/recent/', { token: null, authorization: key })).status, 200);
      const stream = await openJsonSocket(`${api.url.replace(/^http/, 'ws')}/core/api/v1/logging/`, { authorization: key });
      // As `charta-server revoke-api-key` does: its own connection, no signal channel to the server.
      const storage = openStorage(api.db.url);
      try {
        await revokeApiKeyOperation(operatorCtx(storage), created.json.id);
      } finally {
        await storage.close();
      }
      assert.deepEqual(await within(stream.closed), { code: 4401, reason: 'The credentials of this stream were revoked' });
      const refused = await api.call('GET', '/core/api/v1/logging/recent/', { token: null, authorization: key });
      assert.equal(refused.status, 401);
      assert.equal(refused.json.detail, 'This API key was revoked');
    });

    it('answers bad input with 400 naming the field, an unknown id with 404, its own key with 409, a bearer token with 403', async () => {
      const notDate = await admin('POST', `${A}/api-keys/`, { label: 'x', expires_at: 'tomorrow' });
      assert.equal(notDate.status, 400);
      assert.equal(notDate.json.errors[0].field, 'expires_at');
      const past = await admin('POST', `${A}/oauth-clients/`, { expires_at: '2001-01-01T00:00:00Z' });
      assert.equal(past.status, 400);
      assert.deepEqual(past.json.errors, [{ field: 'expires_at', message: 'must be in the future' }]);
      const unknown = await admin('POST', `${A}/api-keys/`, { label: 'x', colour: 'red' });
      assert.equal(unknown.status, 400);
      assert.equal(unknown.json.errors[0].field, 'colour');
      assert.equal((await admin('POST', `${A}/api-keys/no-such-key/revoke/`)).status, 404);
      assert.equal((await admin('POST', `${A}/oauth-clients/no-such-client/revoke/`)).status, 404);
      const list = await admin('GET', `${A}/api-keys/`);
      const self = list.json.results.find((k: { label: string }) => k.label === 'bootstrap');
      const selfRevoke = await admin('POST', `${A}/api-keys/${self.id}/revoke/`);
      assert.equal(selfRevoke.status, 409);
      assert.equal(selfRevoke.json.code, 'credential_in_use');
      assert.equal((await api.call('GET', `${A}/api-keys/`)).status, 403, 'a clinical token is not an admin');
      assert.equal((await api.call('POST', `${A}/oauth-clients/`, { body: {} })).status, 403);
      assert.equal((await api.call('GET', `${A}/api-keys/`, { token: null })).status, 401);
    });
  });
}
