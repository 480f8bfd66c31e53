// @charta/client on the endpoints beyond the Commands API, against a real instance on each engine:
// plugins (multipart install, extract-metadata, update, enable/disable, download, delete, dead
// letters), patient search and the chart, the admin catalogues, the recent log entries, and the
// log stream (first-message authentication, a refusal, a reconnection after the socket is dropped).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import WebSocket from 'ws';
import { ENGINES, TEST_API_KEY, TEST_CLIENT_ID, TEST_CLIENT_SECRET, startInstance, type Instance } from '../../server/test/support/harness.ts';
import { manifestJson, tarFromDir, VITALS_HANDLER_JS } from '../../server/test/support/archives.ts';
import { ChartaApiError, ChartaClient, type LogEntry, type RecordChange, type StreamStatus, type WebSocketFactory, type WebSocketLike } from '../src/index.ts';

const ws: WebSocketFactory = (url) => new WebSocket(url) as unknown as WebSocketLike;

async function apiError(fn: () => Promise<unknown>, status: number, code: string): Promise<ChartaApiError> {
  try {
    await fn();
  } catch (error) {
    assert.ok(error instanceof ChartaApiError, `expected ChartaApiError, got ${String(error)}`);
    assert.equal(error.status, status, error.message);
    assert.equal(error.code, code, error.message);
    assert.ok(error.body.includes(code), 'the raw body is kept');
    return error;
  }
  assert.fail(`expected a ${status} ChartaApiError`);
}

const pluginTarball = (name: string, version: string) =>
  tarFromDir({ 'CHARTA_MANIFEST.json': manifestJson({ name, plugin_version: version }), 'dist/index.js': VITALS_HANDLER_JS, 'README.md': '#\n' }, ['.']);

async function until<T>(what: string, test: () => T | undefined, ms = 8000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const value = test();
    if (value !== undefined) return value;
    if (Date.now() > end) assert.fail(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** A TCP relay to the instance whose connections the test can cut (the server "dropping" the socket). */
async function relay(target: string): Promise<{ url: string; cut(): void; close(): Promise<void> }> {
  const { hostname, port } = new URL(target);
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect(Number(port), hostname);
    client.pipe(upstream).pipe(client);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('error', () => {});
      s.on('close', () => sockets.delete(s));
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    cut: () => {
      for (const s of sockets) s.destroy();
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

for (const engine of ENGINES) {
  describe(`@charta/client endpoints on ${engine}`, () => {
    let instance: Instance;
    let admin: ChartaClient;
    let charta: ChartaClient;

    before(async () => {
      instance = await startInstance(engine);
      admin = new ChartaClient({ baseUrl: instance.url, apiKey: TEST_API_KEY });
      charta = await ChartaClient.withClientCredentials(instance.url, TEST_CLIENT_ID, TEST_CLIENT_SECRET);
    });
    after(async () => instance?.stop());

    it('installs a plugin by multipart, reads, updates, disables, enables, downloads and deletes it', async () => {
      const v1 = await pluginTarball('client-plugin', '1.0.0');
      const metadata = await admin.plugins.extractMetadata({ name: 'client-plugin-1.0.0.tar.gz', data: new Uint8Array(v1) });
      assert.deepEqual([metadata.name, metadata.version], ['client-plugin', '1.0.0']);

      const installed = await admin.plugins.install({ name: 'client-plugin-1.0.0.tar.gz', data: new Uint8Array(v1) }, { isEnabled: false });
      assert.deepEqual([installed.name, installed.version, installed.is_enabled], ['client-plugin', '1.0.0', false]);
      await apiError(() => admin.plugins.install({ name: 'again.tar.gz', data: new Uint8Array(v1) }), 400, 'plugin_exists');
      assert.deepEqual(await admin.plugins.get('client-plugin'), installed);
      assert.ok((await admin.plugins.list({ limit: 100 })).results.some((p) => p.name === 'client-plugin'));

      assert.equal((await admin.plugins.enable('client-plugin')).is_enabled, true);
      const v2 = await pluginTarball('client-plugin', '2.0.0');
      const updated = await admin.plugins.update('client-plugin', { package: { name: 'p.tar.gz', data: new Blob([new Uint8Array(v2)]) }, isEnabled: true });
      assert.deepEqual([updated.version, updated.is_enabled], ['2.0.0', true]);
      assert.equal((await admin.plugins.update('client-plugin')).version, '2.0.0', 'an empty PATCH changes nothing');

      const download = await admin.plugins.download('client-plugin');
      assert.equal(download.contentType, 'application/gzip');
      assert.deepEqual(Buffer.from(download.bytes), v2);
      assert.match(download.checksum ?? '', /^[0-9a-f]{64}$/);

      assert.deepEqual((await admin.plugins.deadLetters('client-plugin')).results, []);
      await apiError(() => admin.plugins.replayDeadLetter('client-plugin', 999), 404, 'dead_letter_not_found');
      await apiError(() => admin.plugins.discardDeadLetter('client-plugin', 999), 404, 'dead_letter_not_found');

      await apiError(() => admin.plugins.delete('client-plugin'), 400, 'plugin_enabled');
      await admin.plugins.delete('client-plugin', { force: true });
      await apiError(() => admin.plugins.get('client-plugin'), 404, 'plugin_not_found');
    });

    it('sends install secrets and grants as the original tool does', async () => {
      const bytes = await tarFromDir(
        {
          'CHARTA_MANIFEST.json': manifestJson({ name: 'client-secret-install', secrets: ['API_TOKEN'] }),
          'dist/index.js': VITALS_HANDLER_JS,
          'README.md': '#\n',
        },
        ['.'],
      );
      await admin.plugins.install({ name: 'p.tar.gz', data: new Uint8Array(bytes) }, { secrets: { API_TOKEN: 'é=value' } });
      const listing = await admin.plugins.secrets('client-secret-install');
      assert.deepEqual(
        listing.results.map((r) => [r.name, r.is_set]),
        [['API_TOKEN', true]],
      );
    });

    it('searches patients and reads the chart lists', async () => {
      const patient = await charta.patients.create({ firstName: 'Searchable', lastName: 'Zebedee' });
      const found = await charta.patients.search({ name: 'zebedee search', limit: 5 });
      assert.deepEqual(
        found.results.map((p) => p.key),
        [patient.key],
      );
      for (const list of ['conditions', 'medications', 'goals'] as const) {
        assert.deepEqual(await charta.patients.chart(patient.key, list), { count: 0, count_is_estimate: false, next: null, previous: null, results: [] });
      }
      assert.equal((await charta.patients.conditions(patient.key, { status: 'all' })).count, 0);
      await apiError(() => charta.patients.goals('no-such-patient'), 404, 'patient_not_found');
    });

    it('creates and lists admin reference entries with an API key; a token is refused', async () => {
      const partner = await admin.admin.create<{ id: string; name: string }>('lab-partners', { name: 'Client lab' });
      assert.equal(partner.name, 'Client lab');
      await apiError(() => admin.admin.create('lab-partners', { name: 'Client lab' }), 409, 'reference_exists');
      assert.ok((await admin.admin.list<{ name: string }>('lab-partners')).results.some((p) => p.name === 'Client lab'));
      await admin.admin.createLabTest(partner.id, { order_code: 'CL-1', name: 'Client test' });
      assert.deepEqual(
        (await admin.admin.labTests<{ order_code: string }>(partner.id)).results.map((t) => t.order_code),
        ['CL-1'],
      );
      await apiError(() => charta.admin.list('staff'), 403, 'forbidden');
    });

    it('reads the recent log entries', async () => {
      await admin.plugins.install({ name: 'p.tar.gz', data: new Uint8Array(await pluginTarball('client-logged', '1.0.0')) });
      const recent = await admin.logs.recent({ plugin: 'client-logged', limit: 10 });
      assert.ok(recent.length > 0);
      assert.ok(recent.every((e) => e.plugin === 'client-logged'));
      await apiError(() => admin.logs.recent({ level: 'loud' as never }), 400, 'validation_failed');
    });

    it('follows the log stream: first-message authentication, a reconnection after the socket is dropped', async () => {
      const cut = await relay(instance.url);
      const viaRelay = new ChartaClient({ baseUrl: cut.url, apiKey: TEST_API_KEY });
      const entries: LogEntry[] = [];
      const statuses: StreamStatus[] = [];
      const stream = viaRelay.logs.stream({
        webSocket: ws,
        level: 'info',
        firstDelayMs: 50,
        onEntry: (e) => entries.push(e),
        onStatus: (s) => statuses.push(s),
      });
      try {
        await until('live', () => statuses.find((s) => s.state === 'live'));
        // An install logs two lines of its plugin: installed, and running (in either order).
        await admin.plugins.install({ name: 'p.tar.gz', data: new Uint8Array(await pluginTarball('client-streamed-first', '1.0.0')) });
        const first = () => entries.filter((e) => e.plugin === 'client-streamed-first');
        await until('the installed and running lines', () =>
          first().some((e) => e.event.includes('installed')) && first().some((e) => e.event.includes('running')) ? true : undefined,
        );
        const before = entries.length;

        cut.cut();
        await until('waiting to reconnect', () => statuses.find((s) => s.state === 'waiting'));
        await until('live again', () => statuses.find((s) => s.state === 'live' && s.reconnections === 1));
        // Entries from before the drop are not given twice.
        assert.equal(entries.length, before);
        await admin.plugins.install({ name: 'p.tar.gz', data: new Uint8Array(await pluginTarball('client-streamed', '1.0.0')) });
        await until('an entry after the reconnection', () => entries.slice(before).find((e) => e.plugin === 'client-streamed'));
      } finally {
        stream.close();
        await cut.close();
      }
    });

    it('follows the change stream of a patient: ready, each change, a reconnection after the socket is dropped, and an API key refused (4403)', async () => {
      const patient = await charta.patients.create({ firstName: 'Changed', lastName: 'One' });
      const note = await charta.notes.create({ patientKey: patient.key, noteType: 'encounter' });
      const cut = await relay(instance.url);
      const viaRelay = await ChartaClient.withClientCredentials(cut.url, TEST_CLIENT_ID, TEST_CLIENT_SECRET);
      const changes: RecordChange[] = [];
      let readies = 0;
      const follow = viaRelay.changes.follow({ patientKey: patient.key, webSocket: ws, onChange: (c) => changes.push(c), onReady: () => readies++ });
      try {
        await until('ready', () => readies === 1 || undefined);
        const { command } = await charta.commands.create({ schemaKey: 'plan', noteKey: note.uuid, values: { narrative: 'x' } });
        await until('the change', () => changes.find((c) => c.target.id === command.uuid));
        assert.deepEqual([changes[0]!.action, changes[0]!.note_key, changes[0]!.target.type], ['created', note.uuid, 'command']);
        cut.cut();
        await until('ready again', () => readies === 2 || undefined);
        await charta.notes.lock(note.uuid);
        await until('the lock', () => changes.find((c) => c.action === 'locked'));
      } finally {
        follow.close();
        await cut.close();
      }
      let refused: number | undefined;
      admin.changes.follow({ patientKey: patient.key, webSocket: ws, onChange: () => {}, onRefused: (code) => (refused = code) });
      await until('the refusal', () => refused);
      assert.equal(refused, 4403);
    });

    it('stops on a refused credential (4401) without retrying', async () => {
      const statuses: StreamStatus[] = [];
      let refused: number | undefined;
      new ChartaClient({ baseUrl: instance.url, apiKey: 'not-a-key' }).logs.stream({
        webSocket: ws,
        onEntry: () => {},
        onStatus: (s) => statuses.push(s),
        onRefused: (code) => (refused = code),
      });
      await until('the refusal', () => refused);
      assert.equal(refused, 4401);
      await new Promise((r) => setTimeout(r, 200));
      assert.deepEqual(
        statuses.map((s) => s.state),
        ['connecting', 'refused'],
      );
    });
  });
}
