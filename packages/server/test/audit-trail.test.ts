// The audit trail as an administrator reads it (docs/operations.md, "Audit trail"), on both
// engines: every write and every read of patient data by an API client is there, with its patient
// and note; filters by patient, note, command, actor, credential, action and time; pages newest
// first by a cursor; an API key with the admin scope only; bad filters are 400s naming them; no
// route changes or removes a row; and over a million rows the first page is read from an index.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { ENGINES, request, startInstance, testConfig, tokenFor, TEST_API_KEY, TEST_CLIENT_ID, type Instance } from './support/harness.ts';
import { openStorage } from '../src/storage/db.ts';
import { startServer } from '../src/server.ts';
import { auditListQuery } from '../src/storage/audit-repository.ts';

const A = '/core/api/v1/audit/';
const C = '/core/api/v1/commands';
type Entry = {
  id: number;
  action: string;
  entity_type: string;
  entity_id: string;
  patient_key: string | null;
  note_key: string | null;
  actor: string | null;
  credential: string | null;
  occurred_at: string;
  before: any;
  after: any;
};

for (const engine of ENGINES) {
  describe(`the audit trail (${engine})`, () => {
    let api: Instance;
    let patientKey: string;
    let noteKey: string;
    let command: string;
    /** The command as the create and the commit answered it. */
    let created: unknown;
    let committed: unknown;
    const audit = async (query: string) => {
      const r = await api.call('GET', `${A}?${query}`, { authorization: TEST_API_KEY });
      assert.equal(r.status, 200, r.text);
      return r.json as { next: string | null; results: Entry[] };
    };

    before(async () => {
      api = await startInstance(engine);
      ({ patientKey, noteKey } = await api.note());
      const made = await api.call('POST', `${C}/`, { body: { schemaKey: 'plan', noteKey, values: { narrative: 'Walk daily' } } });
      command = made.json.uuid;
      created = made.json;
      const commit = await api.call('POST', `${C}/${command}/commit/`);
      assert.equal(commit.status, 200);
      committed = commit.json;
      // Reads by the API client (the test token): a command, the list, the patient, the chart.
      assert.equal((await api.call('GET', `${C}/${command}`)).status, 200);
      assert.equal((await api.call('GET', `${C}?note_key=${noteKey}`)).status, 200);
      assert.equal((await api.call('GET', `/core/api/v1/patients/${patientKey}`)).status, 200);
      assert.equal((await api.call('GET', `/core/api/v1/patients/${patientKey}/conditions/`)).status, 200);
      // Another patient's record, which the patient filter leaves out.
      await api.command('plan', { narrative: 'Someone else' });
    });
    after(async () => api?.stop());

    it("answers who changed and who saw a patient's record, newest first, each row naming its patient", async () => {
      const page = await audit(`patient_key=${patientKey}`);
      const actions = page.results.map((e) => e.action);
      assert.deepEqual(actions, [
        'chart.conditions.read',
        'patient.read',
        'commands.listed',
        'command.read',
        'command.committed',
        'command.created',
        'note.created',
        'patient.created',
      ]);
      assert.ok(page.results.every((e) => e.patient_key === patientKey));
      const ids = page.results.map((e) => e.id);
      assert.deepEqual(
        ids,
        [...ids].sort((a, b) => b - a),
        'newest first',
      );
      const read = page.results.find((e) => e.action === 'command.read')!;
      assert.equal(read.credential, `client:${TEST_CLIENT_ID}`);
      assert.match(read.actor!, /^[0-9a-f]{32}$/);
      assert.equal(read.note_key, noteKey);
      assert.equal(read.entity_id, command);
      assert.deepEqual(read.after.keys, [command]);
      const listed = page.results.find((e) => e.action === 'commands.listed')!;
      assert.deepEqual(listed.after.keys, [command]);
      assert.equal(listed.note_key, noteKey);
    });

    it("keeps a command write's command before and after, as the API answered it", async () => {
      const rows = (await audit(`command=${command}`)).results;
      const create = rows.find((e) => e.action === 'command.created')!;
      const commit = rows.find((e) => e.action === 'command.committed')!;
      assert.equal(create.before, null);
      assert.deepEqual(create.after, created);
      assert.deepEqual(commit.before, created);
      assert.deepEqual(commit.after, committed);
    });

    it('filters by note, command, actor, credential, action and time, and pages by a cursor', async () => {
      assert.deepEqual(
        (await audit(`note_key=${noteKey}`)).results.map((e) => e.action),
        ['commands.listed', 'command.read', 'command.committed', 'command.created', 'note.created'],
      );
      assert.deepEqual(
        (await audit(`command=${command}`)).results.map((e) => e.action),
        ['command.read', 'command.committed', 'command.created'],
      );
      const byAction = await audit('action=command.committed');
      assert.ok(byAction.results.length >= 1 && byAction.results.every((e) => e.action === 'command.committed'));
      const actor = byAction.results[0]!.actor!;
      assert.ok((await audit(`actor=${actor}`)).results.every((e) => e.actor === actor));
      assert.ok((await audit(`credential=client:${TEST_CLIENT_ID}&limit=200`)).results.every((e) => e.credential === `client:${TEST_CLIENT_ID}`));
      // Time: nothing before the first row, everything before a later instant.
      const all = await audit('limit=200');
      const oldest = all.results[all.results.length - 1]!;
      assert.equal((await audit(`until=${encodeURIComponent(oldest.occurred_at)}`)).results.length, 0);
      assert.equal((await audit(`since=${encodeURIComponent(oldest.occurred_at)}&limit=200`)).results.length, all.results.length);
      // Pages of two, by the next link, cover the patient's rows once each, in order.
      const seen: number[] = [];
      let next: string | null = `${A}?patient_key=${patientKey}&limit=2`;
      while (next !== null) {
        const r = await api.call('GET', next.replace(api.url, ''), { authorization: TEST_API_KEY });
        assert.equal(r.status, 200, r.text);
        assert.ok(r.json.results.length <= 2);
        seen.push(...r.json.results.map((e: Entry) => e.id));
        next = r.json.next;
      }
      assert.deepEqual(
        seen,
        (await audit(`patient_key=${patientKey}`)).results.map((e) => e.id),
      );
    });

    it('takes an API key with the admin scope only: 401 without credentials, 403 with a clinical token', async () => {
      assert.equal((await api.call('GET', A, { token: null })).status, 401);
      const bearer = await api.call('GET', A);
      assert.equal(bearer.status, 403);
      assert.equal(bearer.json.code, 'forbidden');
    });

    it('bad filters are 400s naming them, and nothing is listed', async () => {
      for (const [query, field] of [
        ['patient_key=xyz', 'patient_key'],
        ['note_key=not-a-uuid', 'note_key'],
        ['command=1', 'command'],
        ['actor=root', 'actor'],
        ['credential=someone', 'credential'],
        ['action=DROP%20TABLE', 'action'],
        ['since=yesterday', 'since'],
        ['since=2026-11-26T10:00:00Z&until=2026-11-26T09:00:00Z', 'until'],
        ['limit=0', 'limit'],
        ['limit=201', 'limit'],
        ['before=-3', 'before'],
        ['before=1000000000000000000000000000000', 'before'],
        ['colour=red', 'colour'],
      ] as const) {
        const r = await api.call('GET', `${A}?${query}`, { authorization: TEST_API_KEY });
        assert.equal(r.status, 400, `${query}: ${r.text}`);
        assert.ok(
          (r.json.errors as Array<{ field: string }>).some((e) => e.field.includes(field)),
          `${query} names ${field}: ${r.text}`,
        );
      }
    });

    it('is append-only: no route changes or removes a row, and the database refuses to', async () => {
      const [newest] = (await audit('limit=1')).results;
      for (const method of ['POST', 'PUT', 'PATCH', 'DELETE']) {
        for (const path of [A, `${A}${newest!.id}/`]) {
          const r = await api.call(method, path, { authorization: TEST_API_KEY, body: { action: 'tampered' } });
          assert.ok(r.status === 404 || r.status === 405, `${method} ${path}: ${r.status}`);
        }
      }
      const db = api.storage.db;
      await assert.rejects(db.updateTable('audit_events').set({ action: 'tampered' }).where('id', '=', newest!.id).execute(), /append-only/);
      await assert.rejects(db.deleteFrom('audit_events').where('id', '=', newest!.id).execute(), /append-only/);
      assert.equal((await audit('limit=1')).results[0]!.action, newest!.action);
    });

    it('over a million rows, the first page of a patient with 200,000 of them is read from an index, newest first, nothing sorted (EXPLAIN)', async () => {
      const db = api.storage.db;
      if (engine === 'sqlite') {
        await sql`WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 1000000)
          INSERT INTO audit_events (occurred_at, actor, credential, action, entity_type, entity_id, patient_key)
          SELECT i, 'x', 'client:bulk', 'command.read', 'command', printf('%032x', i), CASE WHEN i % 5 = 0 THEN printf('%032x', 3) ELSE printf('%032x', 100 + i % 50000) END FROM n`.execute(
          db,
        );
        await sql`ANALYZE`.execute(db);
      } else {
        await sql`INSERT INTO audit_events (occurred_at, actor, credential, action, entity_type, entity_id, patient_key)
          SELECT i, 'x', 'client:bulk', 'command.read', 'command', lpad(to_hex(i), 32, '0'), CASE WHEN i % 5 = 0 THEN lpad('3', 32, '0') ELSE lpad(to_hex(100 + i % 50000), 32, '0') END FROM generate_series(1, 1000000) i`.execute(
          db,
        );
        await sql`ANALYZE audit_events`.execute(db);
      }
      // A patient with 200,000 rows, and one with 16: each first page from an index, the large
      // one's newest first without sorting (the other's 16 rows may be sorted: that is cheap).
      const heavy = '0'.repeat(31) + '3';
      const light = (100 + 7).toString(16).padStart(32, '0');
      const planOf = async (key: string) => {
        const query = auditListQuery(db, { patientKey: key, limit: 51 }).compile();
        return engine === 'sqlite'
          ? (await db.executeQuery({ ...query, sql: `EXPLAIN QUERY PLAN ${query.sql}` })).rows.map((r) => String((r as { detail: string }).detail)).join('\n')
          : (await db.executeQuery({ ...query, sql: `EXPLAIN ${query.sql}` })).rows.map((r) => String(Object.values(r as object)[0])).join('\n');
      };
      const fromIndex = engine === 'sqlite' ? /USING (COVERING )?INDEX|USING INTEGER PRIMARY KEY/ : /Index Scan|Index Only Scan|Bitmap Index Scan/;
      for (const key of [heavy, light]) {
        const plan = await planOf(key);
        assert.match(plan, fromIndex, plan);
        assert.doesNotMatch(plan, /Seq Scan|SCAN audit_events\s*$/m, plan);
      }
      assert.doesNotMatch(await planOf(heavy), /Sort|TEMP B-TREE/, 'the large page is not sorted');
      // And it answers the page.
      assert.equal((await audit(`patient_key=${heavy}`)).results.length, 50);
    });
  });
}

// Rows of reads are written in the moment's batch without the read waiting (audit/reads.ts): the
// rows of reads answered just before a stop are written before the database closes; rows the
// database refuses wait in memory and are written once it takes writes again; rows still refused
// when the server stops are reported lost, and nothing retries them after the stop (a retry
// timer armed after the close once kept a stopped process alive, trying a closed database).
for (const engine of ENGINES) {
  describe(`the audit rows of reads around faults and a stop (${engine})`, () => {
    let api: Instance;
    let uuid: string;
    const lines: string[] = [];
    /** While true, the batches of read rows are refused as a database refusing writes would. */
    let refuse = false;
    /** When set, the next batch of read rows waits for it before it is written (then it is cleared). */
    let hold: Promise<void> | undefined;
    /** Transactions of read rows begun. */
    let batches = 0;
    /** The second test closes the server itself (the database stays for the rest). */
    let closed = false;
    const readRows = async (storage: Instance['storage']) =>
      Number(
        (
          await storage.db
            .selectFrom('audit_events')
            .select((eb) => eb.fn.countAll().as('n'))
            .where('action', '=', 'command.read')
            .where('entity_id', '=', uuid)
            .executeTakeFirstOrThrow()
        ).n,
      );

    before(async () => {
      api = await startInstance(engine);
      uuid = (await api.command('plan', { narrative: 'Read me' })).uuid;
      api.app.logs.subscribe((entry) => lines.push(entry.event));
      const transact = api.storage.transact;
      api.storage.transact = ((work: Parameters<typeof transact>[0]) => {
        if (work.name !== 'writeAuditBatch') return transact(work);
        batches += 1;
        if (refuse) return Promise.reject(new Error('attempt to write a readonly database'));
        const held = hold;
        hold = undefined;
        return held === undefined ? transact(work) : held.then(() => transact(work));
      }) as typeof transact;
    });
    after(async () => (closed ? api?.db.drop() : api?.stop()));

    it('keeps refused rows in memory and writes them once the database takes writes again', async () => {
      refuse = true;
      for (let i = 0; i < 3; i++) assert.equal((await api.call('GET', `${C}/${uuid}`)).status, 200, 'a read is answered whatever the audit');
      await until(() => lines.some((l) => /rows of reads cannot be written \(attempt to write a readonly database\); they wait in memory/.test(l)));
      assert.equal(await readRows(api.storage), 0);
      refuse = false;
      await until(() => lines.some((l) => /audit: 3 waiting rows of reads written/.test(l)), 6000);
      assert.equal(await readRows(api.storage), 3);
    });

    it('writes the batches of reads one at a time, the rows that waited together, so the trail keeps the order of the reads', async () => {
      // The first read's batch is slow to write; the second read's batch is ready meanwhile. Written at
      // once, on PostgreSQL the second could take the smaller id (seen in CI: a page newest first out of order).
      let release!: () => void;
      hold = new Promise((resolve) => (release = resolve));
      const before = await readRows(api.storage);
      const last = Number(
        (
          await api.storage.db
            .selectFrom('audit_events')
            .select((eb) => eb.fn.max('id').as('id'))
            .executeTakeFirstOrThrow()
        ).id,
      );
      const patient = (await api.call('GET', `${C}/${uuid}`)).json.patient_key as string;
      await until(() => hold === undefined); // the first read's write has begun, and waits
      const begun = batches;
      assert.equal((await api.call('GET', `/core/api/v1/patients/${patient}`)).status, 200);
      assert.equal((await api.call('GET', `/core/api/v1/patients/${patient}`)).status, 200);
      await new Promise((r) => setTimeout(r, 50)); // the later reads' rows are ready and wait
      assert.equal(await readRows(api.storage), before, 'nothing written while the first batch is held');
      assert.equal(batches, begun, 'no second write begins while the first runs');
      release();
      const rows = async () =>
        api.storage.db
          .selectFrom('audit_events')
          .select(['id', 'action'])
          .where('patient_key', '=', patient)
          .where('id', '>', last)
          .where('action', 'in', ['command.read', 'patient.read'])
          .orderBy('id')
          .execute();
      const deadline = Date.now() + 3000;
      while ((await rows()).length < 3 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      assert.equal(batches, begun + 1, "the rows that waited go in one write, after the first's");
      assert.deepEqual(
        (await rows()).map((r) => r.action),
        ['command.read', 'patient.read', 'patient.read'],
        'the later read has the larger id',
      );
    });

    it('writes the rows of reads answered just before a stop, says which are lost, and tries nothing after', async () => {
      const earlier = await readRows(api.storage);
      const replies = await Promise.all(Array.from({ length: 20 }, () => api.call('GET', `${C}/${uuid}`)));
      assert.ok(replies.every((r) => r.status === 200));
      // Stopped at once: the 20 rows are in the trail (read below on a connection of our own).
      const storage = openStorage(api.db.url);
      try {
        closed = true;
        await api.close();
        assert.equal(await readRows(storage), earlier + 20);
        // A second instance on the same database: its reads' rows refused, then a stop.
        const again = await startServer(testConfig(api.db), () => undefined);
        const transact = again.storage.transact;
        let tried = 0;
        again.storage.transact = ((work: Parameters<typeof transact>[0]) => {
          if (work.name !== 'writeAuditBatch') return transact(work);
          tried += 1;
          return Promise.reject(new Error('attempt to write a readonly database'));
        }) as typeof transact;
        const seen: string[] = [];
        again.app.logs.subscribe((entry) => seen.push(entry.event));
        const token = await tokenFor(again.url);
        assert.equal((await request(again.url, 'GET', `${C}/${uuid}`, {}, token)).status, 200);
        await until(() => seen.some((l) => /they wait in memory/.test(l)));
        await again.close();
        assert.ok(
          seen.some((l) =>
            /audit: 1 rows of reads could not be written before the server stopped \(attempt to write a readonly database\); they are lost/.test(l),
          ),
          seen.join('\n'),
        );
        const triedAtStop = tried;
        await new Promise((r) => setTimeout(r, 2500)); // longer than the retry interval
        assert.equal(tried, triedAtStop, 'nothing retries after the stop');
        assert.equal(await readRows(storage), earlier + 20);
      } finally {
        await storage.close();
      }
    });
  });
}

async function until(check: () => boolean, ms = 3000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`not within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
