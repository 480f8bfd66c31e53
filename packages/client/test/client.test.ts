// @charta/client end to end against a real instance on each engine: every method, ETags,
// idempotent replays, the error mapping and the token refresh.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ENGINES, TEST_API_KEY, TEST_CLIENT_ID, TEST_CLIENT_SECRET, startInstance, type Instance } from '../../server/test/support/harness.ts';
import { manifestJson, tarFromDir, VITALS_HANDLER_JS } from '../../server/test/support/archives.ts';
import { upsertBannerAlert } from '../../server/src/storage/banner-alerts-repository.ts';
import { upsertPatientMetadata } from '../../server/src/storage/patient-metadata-repository.ts';
import { ChartaApiError, ChartaClient, ChartaNetworkError, type FetchLike } from '../src/index.ts';

/** Runs `fn`, expects a ChartaApiError of that status (and code), returns it. */
async function apiError(fn: () => Promise<unknown>, status: number, code?: string): Promise<ChartaApiError> {
  try {
    await fn();
  } catch (error) {
    assert.ok(error instanceof ChartaApiError, `expected ChartaApiError, got ${String(error)}`);
    assert.equal(error.status, status, error.message);
    if (code !== undefined) assert.equal(error.code, code, error.message);
    assert.equal(error.problem.status, status);
    assert.equal(error.message, `${status} ${error.code}: ${error.detail}`);
    return error;
  }
  assert.fail(`expected a ${status} ChartaApiError`);
}

for (const engine of ENGINES) {
  describe(`@charta/client on ${engine}`, () => {
    let instance: Instance;
    let charta: ChartaClient;

    before(async () => {
      instance = await startInstance(engine);
      charta = await ChartaClient.withClientCredentials(instance.url, TEST_CLIENT_ID, TEST_CLIENT_SECRET);
    });
    after(async () => {
      await instance?.stop();
    });

    it('drives a command through its whole life', async () => {
      const patient = await charta.patients.create({ firstName: 'Ada', lastName: 'Lovelace', birthDate: '1815-12-10' });
      assert.match(patient.key, /^[0-9a-f]{32}$/);
      assert.deepEqual(await charta.patients.get(patient.key), patient);

      const note = await charta.notes.create({ patientKey: patient.key, noteType: 'encounter' });
      assert.equal(note.patient_key, patient.key);
      assert.deepEqual(await charta.notes.get(note.uuid), note);

      const created = await charta.commands.create({ schemaKey: 'plan', noteKey: note.uuid, values: { narrative: 'First' } });
      assert.equal(created.command.state, 'staged');
      assert.equal(created.command.note_key, note.uuid);
      assert.equal(created.command.patient_key, patient.key);
      assert.deepEqual(created.command.data, { narrative: 'First' });
      assert.ok(created.etag, 'create returns an ETag');
      assert.equal(created.replayed, false);

      const read = await charta.commands.get(created.command.uuid);
      assert.deepEqual(read.command, created.command);
      assert.equal(read.etag, created.etag);

      const updated = await charta.commands.update(created.command.uuid, { narrative: 'Second' }, { ifMatch: read.etag });
      assert.deepEqual(updated.command.data, { narrative: 'Second' });
      assert.notEqual(updated.etag, read.etag, 'a change gives a new ETag');

      // The ETag from before the change is stale now.
      await apiError(() => charta.commands.update(created.command.uuid, { narrative: 'Lost' }, { ifMatch: read.etag }), 412, 'precondition_failed');

      const fields = await charta.commands.fields(created.command.uuid);
      assert.equal(fields.schema, 'plan');
      assert.deepEqual(
        fields.fields.map((f) => f.name),
        ['narrative'],
      );
      assert.deepEqual(fields.fields[0]?.choices, []);

      const notAutocomplete = await apiError(() => charta.commands.autocomplete(created.command.uuid, 'narrative', 'rest'), 400, 'field_not_autocomplete');
      assert.equal(notAutocomplete.detail, 'Field does not support autocomplete');

      const key = `commit-${created.command.uuid}`;
      const committed = await charta.commands.commit(created.command.uuid, { ifMatch: updated.etag, idempotencyKey: key });
      assert.equal(committed.command.state, 'committed');
      assert.match(committed.command.committed_by ?? '', /^[0-9a-f]{32}$/);
      assert.equal(committed.replayed, false);
      const again = await charta.commands.commit(created.command.uuid, { idempotencyKey: key });
      assert.deepEqual(again.command, committed.command);
      assert.equal(again.etag, committed.etag);
      assert.equal(again.replayed, true);
      // Without the key a second commit is a real one, and the command is no longer staged.
      await apiError(() => charta.commands.commit(created.command.uuid), 400, 'command_not_staged');

      const flagged = await charta.commands.enterInError(created.command.uuid, { ifMatch: committed.etag, idempotencyKey: `eie-${created.command.uuid}` });
      assert.equal(flagged.command.state, 'entered_in_error');
      assert.equal(flagged.command.entered_in_error_by, committed.command.committed_by);

      const byNote = await charta.commands.list({ noteKey: note.uuid, patientKey: patient.key, schemaKey: 'plan', state: 'entered_in_error' });
      assert.equal(byNote.count, 1);
      assert.deepEqual(byNote.results, [flagged.command]);
      assert.equal(byNote.next, null);
      assert.equal(byNote.previous, null);
      const byPeople = await charta.commands.list({
        noteKey: note.uuid,
        originatorKey: created.command.originated_by,
        committerKey: committed.command.committed_by ?? undefined,
        createdAtGte: new Date(Date.now() - 3_600_000),
        createdAtLt: new Date(Date.now() + 3_600_000),
        updatedAt: flagged.command.updated_at.slice(0, 10),
        ordering: '-updated_at',
      });
      assert.deepEqual(
        byPeople.results.map((c) => c.uuid),
        [created.command.uuid],
      );
      const none = await charta.commands.list({ noteKey: note.uuid, state: 'staged' });
      assert.equal(none.count, 0);

      const fresh = await charta.commands.create({ schemaKey: 'plan', noteKey: note.uuid });
      await charta.commands.delete(fresh.command.uuid, { ifMatch: fresh.etag });
      const gone = await apiError(() => charta.commands.get(fresh.command.uuid), 404, 'command_not_found');
      assert.equal(gone.detail, 'Command not found');
      await apiError(() => charta.commands.delete(fresh.command.uuid), 404, 'command_not_found');
    });

    it('pages commands with limit, offset and ordering', async () => {
      const patient = await charta.patients.create({ firstName: 'Page', lastName: 'Turner' });
      const note = await charta.notes.create({ patientKey: patient.key, noteType: 'review' });
      const uuids: string[] = [];
      for (const narrative of ['a', 'b', 'c'])
        uuids.push((await charta.commands.create({ schemaKey: 'hpi', noteKey: note.uuid, values: { narrative } })).command.uuid);
      const first = await charta.commands.list({ noteKey: note.uuid, limit: 2 });
      assert.equal(first.count, 3);
      assert.deepEqual(
        first.results.map((c) => c.uuid),
        uuids.slice(0, 2),
      );
      assert.ok(first.next?.startsWith(instance.url));
      const second = await charta.commands.list({ noteKey: note.uuid, limit: 2, offset: 2 });
      assert.deepEqual(
        second.results.map((c) => c.uuid),
        uuids.slice(2),
      );
      assert.equal(second.next, null);
      assert.notEqual(second.previous, null);
      const newestFirst = await charta.commands.list({ noteKey: note.uuid, ordering: '-created_at' });
      assert.deepEqual(
        newestFirst.results.map((c) => c.uuid),
        [...uuids].reverse(),
      );
      await apiError(() => charta.commands.list({ state: 'nonsense' as 'staged' }), 400, 'validation_failed');
    });

    it('creates idempotently', async () => {
      const patient = await charta.patients.create({ firstName: 'Idem', lastName: 'Potent' });
      const note = await charta.notes.create({ patientKey: patient.key, noteType: 'encounter' });
      const input = { schemaKey: 'plan', noteKey: note.uuid, values: { narrative: 'once' } };
      const first = await charta.commands.create(input, { idempotencyKey: `create-${note.uuid}` });
      const second = await charta.commands.create(input, { idempotencyKey: `create-${note.uuid}` });
      assert.equal(second.command.uuid, first.command.uuid);
      assert.equal(second.replayed, true);
      await apiError(
        () => charta.commands.create({ ...input, values: { narrative: 'twice' } }, { idempotencyKey: `create-${note.uuid}` }),
        422,
        'idempotency_key_reused',
      );
      assert.equal((await charta.commands.list({ noteKey: note.uuid })).count, 1);
    });

    it('locks, unlocks, lists and deletes notes', async () => {
      const patient = await charta.patients.create({ firstName: 'Note', lastName: 'Taker' });
      const note = await charta.notes.create({ patientKey: patient.key, noteType: 'encounter', title: 'Visit' });
      const other = await charta.notes.create({ patientKey: patient.key, noteType: 'letter' });
      assert.equal(note.title, 'Visit');

      const locked = await charta.notes.lock(note.uuid);
      assert.equal(locked.locked, true);
      await apiError(() => charta.commands.create({ schemaKey: 'plan', noteKey: note.uuid }), 400, 'note_invalid');
      const unlocked = await charta.notes.unlock(note.uuid);
      assert.equal(unlocked.locked, false);
      await charta.commands.create({ schemaKey: 'plan', noteKey: note.uuid });

      const page = await charta.notes.list({ patientKey: patient.key });
      assert.equal(page.count, 2);
      assert.deepEqual(page.results.map((n) => n.uuid).sort(), [note.uuid, other.uuid].sort());
      const one = await charta.notes.list({ patientKey: patient.key, limit: 1, offset: 1 });
      assert.equal(one.results.length, 1);
      assert.equal(one.next, null);

      const deleted = await charta.notes.delete(note.uuid);
      assert.equal(deleted.deleted, true);
      assert.equal((await charta.notes.get(note.uuid)).deleted, true);
      await apiError(() => charta.commands.create({ schemaKey: 'plan', noteKey: note.uuid }), 400, 'note_invalid');
      await apiError(() => charta.notes.get('00000000-0000-4000-8000-000000000000'), 404, 'note_not_found');
      await apiError(() => charta.patients.get('0'.repeat(32)), 404, 'patient_not_found');
    });

    it('encodes path segments', async () => {
      // A slash in a uuid must not reach another route.
      await apiError(() => charta.commands.get('x/../../notes'), 404, 'command_not_found');
      const command = await charta.commands.create({ schemaKey: 'plan', noteKey: (await instance.note()).noteKey });
      await apiError(() => charta.commands.autocomplete(command.command.uuid, 'no/such?field', 'x'), 404, 'field_not_found');
    });

    it('reports problem bodies, validation errors and bad credentials', async () => {
      const invalid = await apiError(() => charta.commands.create({ schemaKey: 'plan', noteKey: 'not-a-uuid' }), 400, 'note_does_not_exist');
      assert.equal(invalid.detail, 'Note does not exist');
      assert.match(invalid.type, /^urn:charta:problem:/);
      const unknownField = await apiError(
        async () => charta.commands.create({ schemaKey: 'plan', noteKey: (await instance.note()).noteKey, values: { nope: 1 } }),
        400,
      );
      assert.ok(unknownField.errors && unknownField.errors.length > 0, 'validation errors are carried');
      assert.ok(unknownField.requestId);

      await apiError(() => ChartaClient.withClientCredentials(instance.url, TEST_CLIENT_ID, 'wrong-secret'), 401, 'invalid_client');
      await apiError(() => new ChartaClient({ baseUrl: instance.url, token: 'not-a-token' }).notes.list(), 401, 'unauthorized');
      // A static token works; an API key is recognised (403, not 401) but is for the plugin API only.
      const withToken = new ChartaClient({ baseUrl: `${instance.url}/`, token: instance.token });
      assert.equal(typeof (await withToken.notes.list({ limit: 1 })).count, 'number');
      const withKey = new ChartaClient({ baseUrl: instance.url, apiKey: TEST_API_KEY });
      await apiError(() => withKey.notes.list({ limit: 1 }), 403, 'forbidden');
    });

    it('refetches the token within 60 s of its expiry', async () => {
      const tokenCalls: string[] = [];
      // Pretend every token lives 30 s: each call must fetch a new one first.
      const shortLived: FetchLike = async (input, init) => {
        const response = await fetch(input, init);
        if (!input.endsWith('/auth/token/')) return response;
        const body = await response.json();
        tokenCalls.push(body.access_token);
        return new Response(JSON.stringify({ ...body, expires_in: 30 }), { status: response.status, headers: response.headers });
      };
      const client = await ChartaClient.withClientCredentials(instance.url, TEST_CLIENT_ID, TEST_CLIENT_SECRET, { fetch: shortLived });
      assert.equal(tokenCalls.length, 1);
      await client.notes.list({ limit: 1 });
      await client.notes.list({ limit: 1 });
      assert.equal(tokenCalls.length, 3);
      assert.equal(new Set(tokenCalls).size, 3);

      // With a fake clock: kept until 60 s before expiry, then fetched again.
      let now = 1_000_000;
      const counted: string[] = [];
      const counting: FetchLike = async (input, init) => {
        if (input.endsWith('/auth/token/')) counted.push(input);
        return fetch(input, init);
      };
      const clocked = await ChartaClient.withClientCredentials(instance.url, TEST_CLIENT_ID, TEST_CLIENT_SECRET, { fetch: counting, now: () => now });
      now += (36_000 - 61) * 1000;
      await clocked.notes.list({ limit: 1 });
      assert.equal(counted.length, 1);
      now += 2000;
      await clocked.notes.list({ limit: 1 });
      assert.equal(counted.length, 2);
    });

    it('fetches a new token once after a 401', async () => {
      let tokens = 0;
      let rejected = 0;
      const revoking: FetchLike = async (input, init) => {
        if (input.endsWith('/auth/token/')) tokens++;
        // The first API call is answered as if the token had been revoked.
        else if (rejected++ === 0)
          return new Response(JSON.stringify({ type: 'x', title: 'Unauthorized', status: 401, detail: 'revoked', code: 'unauthorized' }), {
            status: 401,
            headers: { 'content-type': 'application/problem+json' },
          });
        return fetch(input, init);
      };
      const client = await ChartaClient.withClientCredentials(instance.url, TEST_CLIENT_ID, TEST_CLIENT_SECRET, { fetch: revoking });
      assert.equal((await client.notes.list({ limit: 1 })).results.length <= 1, true);
      assert.equal(tokens, 2);
      assert.equal(rejected, 2);
    });

    it('throws ChartaNetworkError when nothing answers', async () => {
      const client = new ChartaClient({ baseUrl: 'http://127.0.0.1:1', token: 'x' });
      await assert.rejects(
        () => client.commands.get('00000000-0000-4000-8000-000000000000'),
        (error: unknown) => {
          assert.ok(error instanceof ChartaNetworkError);
          assert.ok(error.cause instanceof Error);
          return true;
        },
      );
    });

    it('sets, lists and removes plugin secrets with an API key; values never come back', async () => {
      const bytes = await tarFromDir(
        {
          'CHARTA_MANIFEST.json': manifestJson({ name: 'client-secrets', secrets: ['API_TOKEN', 'OTHER'] }),
          'dist/index.js': VITALS_HANDLER_JS,
          'README.md': '#\n',
        },
        ['.'],
      );
      const form = new FormData();
      form.set('package', new Blob([new Uint8Array(bytes)]), 'p.tar.gz');
      const installed = await fetch(`${instance.url}/core/api/v1/plugins/`, { method: 'POST', body: form, headers: { authorization: TEST_API_KEY } });
      assert.equal(installed.status, 201, await installed.text());

      const admin = new ChartaClient({ baseUrl: instance.url, apiKey: TEST_API_KEY });
      assert.deepEqual(await admin.plugins.secrets('client-secrets'), {
        results: [
          { name: 'API_TOKEN', declared: true, is_set: false, updated_at: null },
          { name: 'OTHER', declared: true, is_set: false, updated_at: null },
        ],
      });
      const set = await admin.plugins.setSecrets('client-secrets', { API_TOKEN: 'client-value-never-returned', OTHER: 'x' });
      assert.deepEqual(
        set.results.map((r) => [r.name, r.is_set]),
        [
          ['API_TOKEN', true],
          ['OTHER', true],
        ],
      );
      assert.ok(!JSON.stringify(set).includes('client-value-never-returned'));
      const removed = await admin.plugins.setSecrets('client-secrets', { OTHER: null });
      assert.equal(removed.results[1]?.is_set, false);
      assert.deepEqual(await admin.plugins.secrets('client-secrets'), removed);
      const refused = await apiError(() => admin.plugins.setSecrets('client-secrets', { NOPE: 'x' }), 400, 'validation_failed');
      assert.match(refused.detail, /secrets\.NOPE/);
      await apiError(() => admin.plugins.secrets('no-such-plugin'), 404, 'plugin_not_found');
    });

    it("reads a patient's banner alerts, paginated", async () => {
      const patient = await charta.patients.create({ firstName: 'Banner', lastName: 'Alerts' });
      assert.deepEqual(await charta.patients.bannerAlerts(patient.key), { count: 0, count_is_estimate: false, next: null, previous: null, results: [] });
      for (const [i, key] of ['a', 'b'].entries()) {
        await upsertBannerAlert(instance.storage.db, {
          patient_key: patient.key,
          plugin_name: 'vitals-alert',
          key,
          narrative: `Alert ${key}`,
          placement: '["chart"]',
          intent: 'info',
          created_at: 1_700_000_000_000_000 + i,
          updated_at: 1_700_000_000_000_000 + i,
        });
      }
      const page = await charta.patients.bannerAlerts(patient.key, { limit: 1, offset: 1 });
      assert.equal(page.count, 2);
      assert.deepEqual(page.results, [
        {
          plugin: 'vitals-alert',
          key: 'b',
          narrative: 'Alert b',
          placement: ['chart'],
          intent: 'info',
          created_at: '2023-11-14T22:13:20.000001Z',
          updated_at: '2023-11-14T22:13:20.000001Z',
        },
      ]);
      await apiError(() => charta.patients.bannerAlerts('0'.repeat(32)), 404, 'patient_not_found');
    });

    it("reads a patient's metadata, by namespace then key, paginated", async () => {
      const patient = await charta.patients.create({ firstName: 'Patient', lastName: 'Metadata' });
      assert.deepEqual(await charta.patients.metadata(patient.key), { count: 0, count_is_estimate: false, next: null, previous: null, results: [] });
      for (const [namespace, key] of [
        ['vitals-alert', 'b'],
        ['follow-up', 'z'],
        ['vitals-alert', 'a'],
      ]) {
        await upsertPatientMetadata(instance.storage.db, {
          patient_key: patient.key,
          namespace: namespace!,
          key: key!,
          value: `${namespace}/${key}`,
          updated_at: 1_700_000_000_000_000,
          updated_by: `plugin:${namespace}`,
        });
      }
      const page = await charta.patients.metadata(patient.key, { limit: 2, offset: 1 });
      assert.equal(page.count, 3);
      assert.deepEqual(page.results, [
        { namespace: 'vitals-alert', key: 'a', value: 'vitals-alert/a', updated_at: '2023-11-14T22:13:20.000000Z', updated_by: 'plugin:vitals-alert' },
        { namespace: 'vitals-alert', key: 'b', value: 'vitals-alert/b', updated_at: '2023-11-14T22:13:20.000000Z', updated_by: 'plugin:vitals-alert' },
      ]);
      await apiError(() => charta.patients.metadata('0'.repeat(32)), 404, 'patient_not_found');
    });
  });
}
