// Crash safety, per engine: the real `charta-server start` binary in a subprocess, a concurrent
// write load (create → PATCH → commit loops), SIGKILL in the middle of it, a restart on the same
// database, and then every acknowledged write must be there: an acknowledged create exists, an
// acknowledged PATCH's value (or a later, unacknowledged one) is stored, an acknowledged commit is
// committed — and each committed command has exactly its one `command.committed` audit row.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { openStorage } from '../src/storage/db.ts';
import { createDatabase, ENGINES, request, type Reply, type TestDatabase } from './support/harness.ts';
import { children, killAll, startServerProcess, tokenFor } from './support/processes.ts';
const BASE = '/core/api/v1/commands';
const LOOPS = 8;
/** The load runs at least this long, and until it has written enough to prove something. */
const LOAD_MS = 1000;
/** How long the load may take to get going on a loaded machine before the test gives up. */
const LOAD_LIMIT_MS = 60_000;

/** What the load knows about one command it wrote. */
interface Written {
  uuid: string;
  /** Narratives the stored command may hold: the last acknowledged one, plus one sent but never answered. */
  narratives: string[];
  committed: 'no' | 'acknowledged' | 'unknown';
}

for (const engine of ENGINES) {
  describe(`crash safety (${engine})`, () => {
    let db: TestDatabase;

    before(async () => {
      db = await createDatabase(engine);
    });

    after(async () => {
      killAll();
      await Promise.all([...children].map((c) => (c.exitCode === null && c.signalCode === null ? new Promise((r) => c.once('exit', r)) : Promise.resolve())));
      children.clear();
      await db?.drop();
    });

    it('keeps every acknowledged write across a SIGKILL in the middle of a write load', async (t) => {
      const first = await startServerProcess(db);
      const token = await tokenFor(first.url);
      const call = (method: string, urlPath: string, body?: unknown): Promise<Reply> => request(first.url, method, urlPath, { body }, token);

      const patient = await call('POST', '/core/api/v1/patients/', { firstName: 'Crash', lastName: 'Test' });
      assert.equal(patient.status, 201, patient.text);
      const notes: string[] = [];
      for (let i = 0; i < 4; i++) {
        const n = await call('POST', '/core/api/v1/notes/', { patientKey: patient.json.key, noteType: 'encounter' });
        assert.equal(n.status, 201, n.text);
        notes.push(n.json.uuid);
      }

      const written: Written[] = [];
      const refusals: string[] = [];
      let killed = false;
      let inFlightAtKill = 0;
      let inFlight = 0;
      const send = async (method: string, urlPath: string, body?: unknown): Promise<Reply | undefined> => {
        inFlight++;
        try {
          return await call(method, urlPath, body);
        } catch (err) {
          // Only the kill may cut a request off.
          if (!killed) throw err;
          return undefined;
        } finally {
          inFlight--;
        }
      };
      const loop = async (id: number) => {
        for (let n = 0; !killed; n++) {
          const narrative = `loop ${id} command ${n}`;
          const created = await send('POST', `${BASE}/`, { schemaKey: 'plan', noteKey: notes[id % notes.length], values: { narrative } });
          if (created === undefined) return;
          if (created.status !== 201) {
            refusals.push(`create ${created.status} ${created.text}`);
            continue;
          }
          const w: Written = { uuid: created.json.uuid, narratives: [narrative], committed: 'no' };
          written.push(w);
          const changed = `${narrative}, revised`;
          const patched = await send('PATCH', `${BASE}/${w.uuid}/`, { values: { narrative: changed } });
          if (patched === undefined) {
            w.narratives.push(changed);
            return;
          }
          if (patched.status !== 200) refusals.push(`patch ${patched.status} ${patched.text}`);
          else w.narratives = [changed];
          if (n % 4 === 3) continue; // some commands stay staged
          w.committed = 'unknown';
          const committed = await send('POST', `${BASE}/${w.uuid}/commit/`);
          if (committed === undefined) return;
          if (committed.status !== 200) {
            refusals.push(`commit ${committed.status} ${committed.text}`);
            w.committed = 'no';
          } else {
            w.committed = 'acknowledged';
          }
        }
      };
      const loops = Array.from({ length: LOOPS }, (_, i) => loop(i));
      // Kill once the load has written enough (every loop a create, a few commits) and has run
      // LOAD_MS: a fixed sleep alone proved too short on a loaded CI machine.
      const started = Date.now();
      const enough = () => written.length >= 2 * LOOPS && written.filter((w) => w.committed === 'acknowledged').length >= 3;
      while ((Date.now() - started < LOAD_MS || !enough()) && Date.now() - started < LOAD_LIMIT_MS) {
        await new Promise((r) => setTimeout(r, 20));
      }
      inFlightAtKill = inFlight;
      killed = true;
      first.child.kill('SIGKILL');
      const exit = await first.exited;
      assert.equal(exit.signal, 'SIGKILL', 'the server was killed, not stopped');
      await Promise.all(loops);

      assert.deepEqual(refusals, [], 'no write was refused during the load');
      assert.ok(inFlightAtKill > 0, 'the kill landed while requests were in flight');
      const acknowledgedCommits = written.filter((w) => w.committed === 'acknowledged').length;
      assert.ok(
        written.length >= LOOPS && acknowledgedCommits > 0,
        `the load got going (${written.length} creates, ${acknowledgedCommits} commits acknowledged)`,
      );

      t.diagnostic(`${written.length} creates and ${acknowledgedCommits} commits acknowledged; ${inFlightAtKill} requests in flight at the kill`);

      // Restart on the same database: everything acknowledged is there.
      const second = await startServerProcess(db);
      const token2 = await tokenFor(second.url);
      for (const w of written) {
        const r = await request(second.url, 'GET', `${BASE}/${w.uuid}`, {}, token2);
        assert.equal(r.status, 200, `acknowledged create ${w.uuid} is gone after the crash: ${r.status} ${r.text}`);
        assert.ok(
          w.narratives.includes(r.json.data.narrative),
          `${w.uuid}: narrative ${JSON.stringify(r.json.data.narrative)}, expected one of ${JSON.stringify(w.narratives)}`,
        );
        if (w.committed === 'acknowledged') {
          assert.equal(r.json.state, 'committed', `acknowledged commit of ${w.uuid} was lost`);
          assert.ok(r.json.committed_by, `${w.uuid}: committed_by`);
        } else if (w.committed === 'no') {
          assert.equal(r.json.state, 'staged', `${w.uuid} was never committed`);
        }
      }
      // The restarted server takes writes.
      const later = await request(
        second.url,
        'POST',
        `${BASE}/`,
        { body: { schemaKey: 'plan', noteKey: notes[0], values: { narrative: 'after the crash' } } },
        token2,
      );
      assert.equal(later.status, 201, later.text);

      second.child.kill('SIGTERM');
      await second.exited;

      // Changes and their audit rows commit together: no committed command without its row, nor the reverse.
      const storage = openStorage(db.url);
      try {
        const rows = await storage.db.selectFrom('commands').select(['uuid', 'state']).execute();
        const audits = await storage.db.selectFrom('audit_events').select(['entity_id', 'action']).where('entity_type', '=', 'command').execute();
        for (const row of rows) {
          const created = audits.filter((a) => a.entity_id === row.uuid && a.action === 'command.created').length;
          const committed = audits.filter((a) => a.entity_id === row.uuid && a.action === 'command.committed').length;
          assert.equal(created, 1, `${row.uuid}: one command.created audit row`);
          assert.equal(committed, row.state === 'committed' ? 1 : 0, `${row.uuid} (${row.state}): command.committed audit rows`);
        }
        const known = new Set(rows.map((r) => r.uuid));
        for (const a of audits) assert.ok(known.has(a.entity_id), `audit row ${a.action} for ${a.entity_id}, a command that does not exist`);
      } finally {
        await storage.close();
      }
    });
  });
}
