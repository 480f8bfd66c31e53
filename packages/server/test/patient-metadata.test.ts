// Patient metadata (docs/plugins.md, "Patient metadata"; docs/api.md, "Patient metadata") on each
// engine: a real plugin installed through the plugin API writes, replaces and deletes pairs on its
// event's patient with the UPSERT_PATIENT_METADATA and DELETE_PATIENT_METADATA effects, in its own
// namespace, each write with its audit row; a pair on another patient is refused with one error
// line and writes nothing (effects:instance reaches it); a key or value over its limit, or a new
// key past a plugin's 100 on a patient, is refused whole; an effect applied twice is one pair; the
// operations' own checks; and GET /core/api/v1/patients/{key}/metadata/ (the page, its order, 404,
// 401 and 403).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { ENGINES, TEST_API_KEY, startInstance, type Instance } from './support/harness.ts';
import { changeGrants, installPlugin, type TestHandler } from './support/plugins.ts';
import { until } from './support/until.ts';
import type { LogEntry } from '../src/logs/bus.ts';
import type { Ctx } from '../src/context.ts';
import { CLINICAL_SCOPE } from '../src/auth/acting-staff.ts';
import { Problem } from '../src/http/problem.ts';
import { countPluginEvents } from '../src/storage/plugin-events-repository.ts';
import { upsertPatientMetadata as upsertRow } from '../src/storage/patient-metadata-repository.ts';
import { applyEffects } from '../src/runtime/effects.ts';
import { upsertPatientMetadata } from '../src/patients/upsert-metadata.ts';
import { deletePatientMetadata } from '../src/patients/delete-metadata.ts';

const C = '/core/api/v1/commands';
const PLUGIN = 'chart-notes';
const ACTOR = `plugin:${PLUGIN}`;
const path = (patient: string, query = '') => `/core/api/v1/patients/${patient}/metadata/${query}`;

/** Answers the effects a plan's narrative holds as JSON (a narrative that is no JSON list: none). */
const WRITER: TestHandler = {
  className: 'Notes',
  events: ['PLAN_COMMAND__POST_ORIGINATE'],
  compute: `    const text = this.event.context.fields.narrative ?? '';
    return text.startsWith('[') ? JSON.parse(text) : [];`,
};

const upsert = (patient: string, key: string, value: string) => ({ type: 'UPSERT_PATIENT_METADATA', payload: { patient, key, value } });
const remove = (patient: string, key: string) => ({ type: 'DELETE_PATIENT_METADATA', payload: { patient, key } });

for (const engine of ENGINES) {
  describe(`patient metadata (${engine})`, () => {
    let api: Instance;
    /** Every log entry of the instance since it started. */
    const seen: LogEntry[] = [];
    const failures = () => seen.filter((e) => e.plugin === PLUGIN && e.success === false);
    const settled = async () => {
      await until('the outbox to empty', async () => {
        await api.app.pluginRuntime.delivery.idle();
        return (await countPluginEvents(api.storage.db)) === 0;
      });
      await api.app.pluginRuntime.delivery.idle();
    };
    /** The plugin answers these effects to the POST_ORIGINATE of a plan a clinician makes in `noteKey`; waits until they are applied. */
    const answer = async (noteKey: string, effects: unknown[]) => {
      const from = failures().length;
      const r = await api.call('POST', `${C}/`, { body: { schemaKey: 'plan', noteKey, values: { narrative: JSON.stringify(effects) } } });
      assert.equal(r.status, 201, r.text);
      await settled();
      return failures()
        .slice(from)
        .map((l) => l.event.replace(/^.* on PLAN_COMMAND__POST_ORIGINATE /, ''));
    };
    /** The patient's pairs as the API lists them (up to 1000). */
    const listed = async (patient: string) => {
      const r = await api.call('GET', path(patient, '?limit=1000'));
      assert.equal(r.status, 200, r.text);
      return r.json.results as Array<{ namespace: string; key: string; value: string; updated_at: string; updated_by: string }>;
    };
    const pairs = async (patient: string) => (await listed(patient)).map((m) => [m.namespace, m.key, m.value]);
    const rows = () => api.storage.db.selectFrom('patient_metadata').selectAll().orderBy('patient_key').orderBy('namespace').orderBy('key').execute();
    /** The audit rows of patient metadata, oldest first. */
    const audits = (patient?: string) =>
      api.storage.db
        .selectFrom('audit_events')
        .select(['action', 'entity_id', 'actor', 'credential', 'before', 'after'])
        .where('entity_type', '=', 'patient_metadata')
        .$if(patient !== undefined, (q) => q.where('entity_id', 'like', `${patient}/%`))
        .orderBy('id')
        .execute();

    // Patient P (the events' patient) and patient Q (another one), each with a note.
    let p: { patientKey: string; noteKey: string };
    let q: { patientKey: string; noteKey: string };

    before(async () => {
      api = await startInstance(engine);
      api.app.logs.subscribe((entry) => seen.push(entry));
      p = await api.note();
      q = await api.note();
      await installPlugin(api.url, PLUGIN, [WRITER]);
      await until(`${PLUGIN} running`, () => seen.find((e) => e.plugin === PLUGIN && /running: \d+ handler/.test(e.event)));
    });
    after(async () => api?.stop());

    it("a plugin's effects write, replace and delete pairs on the event's patient, in its own namespace, each with its audit row", async () => {
      assert.deepEqual(
        await answer(p.noteKey, [
          upsert(p.patientKey, 'follow-up.days', '14'),
          upsert(p.patientKey, 'a1c_target', '7.0'),
          // A namespace in the payload is not read: the plugin writes its own.
          { type: 'UPSERT_PATIENT_METADATA', payload: { patient: p.patientKey, namespace: 'someone-else', key: 'empty', value: '' } },
        ]),
        [],
      );
      const first = await listed(p.patientKey);
      assert.deepEqual(
        first.map((m) => [m.namespace, m.key, m.value, m.updated_by]),
        [
          [PLUGIN, 'a1c_target', '7.0', ACTOR],
          [PLUGIN, 'empty', '', ACTOR],
          [PLUGIN, 'follow-up.days', '14', ACTOR],
        ],
      );
      assert.match(first[0]!.updated_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
      const written = await audits(p.patientKey);
      assert.deepEqual(
        written.map((a) => [a.action, a.entity_id, a.actor, a.credential, a.before]),
        [
          ['patient_metadata.upserted', `${p.patientKey}/${PLUGIN}/follow-up.days`, ACTOR, ACTOR, null],
          ['patient_metadata.upserted', `${p.patientKey}/${PLUGIN}/a1c_target`, ACTOR, ACTOR, null],
          ['patient_metadata.upserted', `${p.patientKey}/${PLUGIN}/empty`, ACTOR, ACTOR, null],
        ],
      );
      assert.deepEqual(
        JSON.parse(written[0]!.after!),
        first.find((m) => m.key === 'follow-up.days'),
      );

      // Replaced: one pair, its new value and time; the audit row has the pair before and after.
      const before = first.find((m) => m.key === 'follow-up.days')!;
      assert.deepEqual(await answer(p.noteKey, [upsert(p.patientKey, 'follow-up.days', '28'), remove(p.patientKey, 'empty')]), []);
      const second = await listed(p.patientKey);
      assert.deepEqual(
        second.map((m) => [m.key, m.value]),
        [
          ['a1c_target', '7.0'],
          ['follow-up.days', '28'],
        ],
      );
      const replaced = second.find((m) => m.key === 'follow-up.days')!;
      assert.ok(replaced.updated_at > before.updated_at, `${replaced.updated_at} after ${before.updated_at}`);
      const [upserted, deleted, ...more] = (await audits(p.patientKey)).slice(written.length);
      assert.deepEqual(more, []);
      assert.equal(upserted!.action, 'patient_metadata.upserted');
      assert.deepEqual(JSON.parse(upserted!.before!), before);
      assert.deepEqual(JSON.parse(upserted!.after!), replaced);
      assert.deepEqual(
        [deleted!.action, deleted!.entity_id, deleted!.actor, JSON.parse(deleted!.before!).key, deleted!.after],
        ['patient_metadata.deleted', `${p.patientKey}/${PLUGIN}/empty`, ACTOR, 'empty', null],
      );

      // Deleting a key the plugin does not have is no error, and is audited (with nothing before).
      assert.deepEqual(await answer(p.noteKey, [remove(p.patientKey, 'never-written')]), []);
      const [none] = (await audits(p.patientKey)).slice(-1);
      assert.deepEqual(
        [none!.action, none!.entity_id, none!.before, none!.after],
        ['patient_metadata.deleted', `${p.patientKey}/${PLUGIN}/never-written`, null, null],
      );
    });

    it('a pair on another patient than the event’s is refused with one error line, and nothing is written; effects:instance reaches it', async () => {
      const rowsBefore = await rows();
      const lines = await answer(p.noteKey, [upsert(q.patientKey, 'elsewhere', 'x'), remove(q.patientKey, 'elsewhere'), upsert(p.patientKey, 'here', 'y')]);
      assert.deepEqual(lines, [
        `effect 0 (UPSERT_PATIENT_METADATA) was refused: patient ${q.patientKey} is not the event's patient (the grant effects:instance allows it)`,
        `effect 1 (DELETE_PATIENT_METADATA) was refused: patient ${q.patientKey} is not the event's patient (the grant effects:instance allows it)`,
      ]);
      for (const l of failures().slice(-2)) {
        assert.equal(l.level, 'error');
        assert.equal(l.event_type, 'PLAN_COMMAND__POST_ORIGINATE');
      }
      assert.deepEqual(await listed(q.patientKey), []);
      assert.deepEqual(await audits(q.patientKey), []);
      // The answer's effect within reach applied.
      assert.deepEqual(
        (await rows()).filter((r) => !rowsBefore.some((b) => b.key === r.key && b.patient_key === r.patient_key)).map((r) => [r.patient_key, r.key]),
        [[p.patientKey, 'here']],
      );

      await changeGrants(api.url, PLUGIN, { grant: ['effects:instance'] });
      assert.deepEqual(await answer(p.noteKey, [upsert(q.patientKey, 'elsewhere', 'granted')]), []);
      assert.deepEqual(await pairs(q.patientKey), [[PLUGIN, 'elsewhere', 'granted']]);
      await changeGrants(api.url, PLUGIN, { revoke: ['effects:instance'] });
      assert.equal((await answer(p.noteKey, [remove(q.patientKey, 'elsewhere')])).length, 1);
      assert.deepEqual(await pairs(q.patientKey), [[PLUGIN, 'elsewhere', 'granted']]);
    });

    it('a key or value over its limit is refused whole, one line each; the other effects apply', async () => {
      const rowsBefore = await rows();
      const auditsBefore = await audits();
      // Two answers: a plan's narrative (which carries them) holds at most 10,000 characters.
      const lines = [
        ...(await answer(p.noteKey, [
          upsert(p.patientKey, 'k'.repeat(101), 'v'),
          upsert(p.patientKey, 'Upper', 'v'),
          upsert(p.patientKey, '-lead', 'v'),
          upsert(p.patientKey, 'with space', 'v'),
          upsert(p.patientKey, 'nul', 'a\u0000b'),
          { type: 'UPSERT_PATIENT_METADATA', payload: { patient: p.patientKey, key: 'number', value: 42 } },
          { type: 'UPSERT_PATIENT_METADATA', payload: { key: 'no-patient', value: 'v' } },
          remove(p.patientKey, ''),
        ])),
        ...(await answer(p.noteKey, [upsert(p.patientKey, 'long', 'v'.repeat(4097)), upsert(p.patientKey, 'k'.repeat(100), 'v'.repeat(4096))])),
      ];
      const key = `"key" must be 1 to 100 characters of a-z, 0-9, _, . and -, starting with a letter or a digit (^[a-z0-9][a-z0-9_.-]*$)`;
      const value = '"value" must be a string of at most 4096 characters, without U+0000';
      assert.deepEqual(lines, [
        `effect 0 (UPSERT_PATIENT_METADATA) was not applied: UPSERT_PATIENT_METADATA: ${key}`,
        `effect 1 (UPSERT_PATIENT_METADATA) was not applied: UPSERT_PATIENT_METADATA: ${key}`,
        `effect 2 (UPSERT_PATIENT_METADATA) was not applied: UPSERT_PATIENT_METADATA: ${key}`,
        `effect 3 (UPSERT_PATIENT_METADATA) was not applied: UPSERT_PATIENT_METADATA: ${key}`,
        `effect 4 (UPSERT_PATIENT_METADATA) was not applied: UPSERT_PATIENT_METADATA: ${value}`,
        `effect 5 (UPSERT_PATIENT_METADATA) was not applied: UPSERT_PATIENT_METADATA: ${value}`,
        `effect 6 (UPSERT_PATIENT_METADATA) was not applied: UPSERT_PATIENT_METADATA: "patient" must be a non-empty string (at most 200 characters)`,
        `effect 7 (DELETE_PATIENT_METADATA) was not applied: DELETE_PATIENT_METADATA: ${key}`,
        `effect 0 (UPSERT_PATIENT_METADATA) was not applied: UPSERT_PATIENT_METADATA: ${value}`,
      ]);
      // Only the pair at the limits was written.
      const added = (await rows()).filter((r) => !rowsBefore.some((b) => b.key === r.key && b.patient_key === r.patient_key));
      assert.deepEqual(
        added.map((r) => [r.key.length, r.value.length]),
        [[100, 4096]],
      );
      assert.equal((await audits()).length, auditsBefore.length + 1);
    });

    it("a new key past the plugin's 100 on a patient is refused whole; replacing one of its 100 is not; another plugin's keys do not count", async () => {
      const { patientKey, noteKey } = await api.note();
      // Another namespace's keys on the patient (as another plugin would write them).
      await upsertRow(api.storage.db, {
        patient_key: patientKey,
        namespace: 'other-plugin',
        key: 'x',
        value: 'x',
        updated_at: 1,
        updated_by: 'plugin:other-plugin',
      });
      // 100 keys, in two answers (a plan's narrative, which carries them, holds at most 10,000 characters).
      const key = (i: number) => `k${String(i).padStart(3, '0')}`;
      for (const half of [0, 50]) {
        assert.deepEqual(
          await answer(
            noteKey,
            Array.from({ length: 50 }, (_, i) => upsert(patientKey, key(half + i), String(half + i))),
          ),
          [],
        );
      }
      assert.equal((await listed(patientKey)).filter((m) => m.namespace === PLUGIN).length, 100);
      const auditsBefore = (await audits(patientKey)).length;
      const lines = await answer(noteKey, [upsert(patientKey, 'k100', 'one too many'), upsert(patientKey, 'k005', 'replaced')]);
      assert.deepEqual(lines, [
        `effect 0 (UPSERT_PATIENT_METADATA) was not applied: 400 validation_failed: key is a new key, and ${PLUGIN} keeps 100 keys on this patient already (the most one namespace may): delete one first`,
      ]);
      const now = await listed(patientKey);
      assert.equal(now.filter((m) => m.namespace === PLUGIN).length, 100);
      assert.ok(!now.some((m) => m.key === 'k100'));
      assert.equal(now.find((m) => m.key === 'k005')!.value, 'replaced');
      assert.deepEqual(
        (await audits(patientKey)).slice(auditsBefore).map((a) => a.entity_id),
        [`${patientKey}/${PLUGIN}/k005`],
        'no audit row of the refused key',
      );
      // One deleted: a new key fits again.
      assert.deepEqual(await answer(noteKey, [remove(patientKey, 'k000'), upsert(patientKey, 'k100', 'fits now')]), []);
      assert.equal((await listed(patientKey)).find((m) => m.key === 'k100')!.value, 'fits now');
    });

    it('an effect applied twice (the event given again) is one pair and one audit row; the same key from a new event is one pair', async () => {
      const handler = {
        plugin: PLUGIN,
        entry: 'dist/handlers.js',
        className: 'Notes',
        id: 'dist/handlers.js:Notes',
        events: [],
        secrets: {},
        onFailure: 'allow' as const,
        effectsPerAnswer: 100,
        routes: [],
        schedule: null,
        data: { read: [], scope: 'event_patient' as const, reads: 50, rows: 2000 },
      };
      const runtime = api.app.pluginRuntime;
      const env = { storage: api.storage, logs: api.app.logs, signals: api.app.signals, runtime, calls: runtime.calls, effectsPerChange: 1000 };
      const { patientKey } = await api.note();
      const source = (id: string) => ({ id, type: 'PLAN_COMMAND__POST_COMMIT', depth: 0, requestId: 'redelivered', root: id, patient: patientKey });
      const event = crypto.randomUUID();
      const from = failures().length;
      await applyEffects(env, handler, source(event), [upsert(patientKey, 'once', 'v1')]);
      await applyEffects(env, handler, source(event), [upsert(patientKey, 'once', 'v1')]);
      assert.deepEqual(await pairs(patientKey), [[PLUGIN, 'once', 'v1']]);
      assert.equal((await audits(patientKey)).length, 1, 'the second delivery replays the first');
      await applyEffects(env, handler, source(crypto.randomUUID()), [upsert(patientKey, 'once', 'v1')]);
      assert.deepEqual(await pairs(patientKey), [[PLUGIN, 'once', 'v1']]);
      assert.equal((await audits(patientKey)).length, 2);
      assert.deepEqual(failures().slice(from), []);
    });

    describe('the operations', () => {
      let ctx: Ctx;
      let patient = '';
      /** Runs `write`, which must fail with the problem `code` (status `status`) and write nothing; answers the problem. */
      const refused = async (write: () => Promise<unknown>, status: number, code: string): Promise<Problem> => {
        const [rowsBefore, auditsBefore] = [await rows(), await audits()];
        let thrown: unknown;
        await write().then(
          () => assert.fail(`expected ${code}`),
          (err: unknown) => (thrown = err),
        );
        assert.ok(thrown instanceof Problem, String(thrown));
        assert.equal(thrown.status, status, thrown.detail);
        assert.equal(thrown.code, code, thrown.detail);
        assert.deepEqual(await rows(), rowsBefore, 'no pair written');
        assert.deepEqual(await audits(), auditsBefore, 'no audit row written');
        return thrown;
      };

      before(async () => {
        ({ patientKey: patient } = await api.note());
        ctx = { storage: api.storage, principal: { kind: 'token', staffKey: ACTOR, credential: ACTOR, scopes: [CLINICAL_SCOPE] }, requestId: 'metadata-test' };
      });

      it('answer the pair as the API shows it; one Idempotency-Key writes once', async () => {
        const idempotency = { key: 'upsert-once', request: { key: 'once' } };
        const written = await upsertPatientMetadata(ctx, { patient, namespace: PLUGIN, key: 'once', value: 'v' }, idempotency);
        assert.deepEqual({ ...written, updated_at: '' }, { namespace: PLUGIN, key: 'once', value: 'v', updated_at: '', updated_by: ACTOR });
        assert.deepEqual(await listed(patient), [written]);
        const auditsAfter = (await audits()).length;
        assert.deepEqual(await upsertPatientMetadata(ctx, { patient, namespace: PLUGIN, key: 'once', value: 'v' }, idempotency), written);
        assert.equal((await audits()).length, auditsAfter, 'the replay writes no audit row');
        assert.equal(await deletePatientMetadata(ctx, { patient, namespace: PLUGIN, key: 'once' }), true);
        assert.equal(await deletePatientMetadata(ctx, { patient, namespace: PLUGIN, key: 'once' }), false);
      });

      it('bad input is a 400 naming each bad field, an unknown patient a 400 patient_does_not_exist, an API key a 403; none writes anything', async () => {
        const bad = await refused(
          () => upsertPatientMetadata(ctx, { patient: '', namespace: '', key: 'A', value: 'v'.repeat(4097) }),
          400,
          'validation_failed',
        );
        assert.deepEqual(
          bad.errors?.map((e) => e.field),
          ['patient', 'namespace', 'key', 'value'],
        );
        await refused(() => deletePatientMetadata(ctx, { patient, namespace: PLUGIN, key: 'k'.repeat(101) }), 400, 'validation_failed');
        const unknown = '0'.repeat(32);
        const missing = await refused(
          () => upsertPatientMetadata(ctx, { patient: unknown, namespace: PLUGIN, key: 'k', value: 'v' }),
          400,
          'patient_does_not_exist',
        );
        assert.equal(missing.detail, `Patient ${unknown} does not exist`);
        await refused(() => deletePatientMetadata(ctx, { patient: unknown, namespace: PLUGIN, key: 'k' }), 400, 'patient_does_not_exist');
        const keyCtx: Ctx = { ...ctx, principal: { kind: 'api_key', staffKey: null, credential: 'api_key:test', scopes: ['system/Plugins.*'] } };
        await refused(() => upsertPatientMetadata(keyCtx, { patient, namespace: PLUGIN, key: 'k', value: 'v' }), 403, 'forbidden');
        await refused(() => deletePatientMetadata(keyCtx, { patient, namespace: PLUGIN, key: 'k' }), 403, 'forbidden');
      });
    });

    describe('GET /core/api/v1/patients/{key}/metadata/', () => {
      it('an empty page for a patient without metadata', async () => {
        const { patientKey } = await api.note();
        const r = await api.call('GET', path(patientKey));
        assert.equal(r.status, 200, r.text);
        assert.deepEqual(r.json, { count: 0, count_is_estimate: false, next: null, previous: null, results: [] });
      });

      it('pages the pairs by namespace then key, in byte order on both engines', async () => {
        const { patientKey } = await api.note();
        const t = Date.UTC(2026, 0, 2, 3, 4, 5) * 1000 + 123456;
        // Written out of order; `-` (0x2d) < `.` (0x2e) < `0` < `_` (0x5f) < `a` in byte order.
        for (const [namespace, key] of [
          ['b-plugin', 'a'],
          ['a-plugin', 'z'],
          ['a-plugin', 'a_b'],
          ['a-plugin', 'a.b'],
          ['a-plugin', 'a-b'],
          ['a-plugin', 'a0'],
        ] as const) {
          await upsertRow(api.storage.db, {
            patient_key: patientKey,
            namespace,
            key,
            value: `${namespace}:${key}`,
            updated_at: t,
            updated_by: `plugin:${namespace}`,
          });
        }
        const all = await api.call('GET', path(patientKey));
        assert.equal(all.status, 200, all.text);
        assert.deepEqual(
          all.json.results.map((m: { namespace: string; key: string }) => `${m.namespace}/${m.key}`),
          ['a-plugin/a-b', 'a-plugin/a.b', 'a-plugin/a0', 'a-plugin/a_b', 'a-plugin/z', 'b-plugin/a'],
        );
        assert.deepEqual(all.json.results[5], {
          namespace: 'b-plugin',
          key: 'a',
          value: 'b-plugin:a',
          updated_at: '2026-01-02T03:04:05.123456Z',
          updated_by: 'plugin:b-plugin',
        });
        const page = await api.call('GET', path(patientKey, '?limit=2&offset=2'));
        assert.equal(page.json.count, 6);
        assert.equal(page.json.count_is_estimate, false);
        assert.deepEqual(
          page.json.results.map((m: { key: string }) => m.key),
          ['a0', 'a_b'],
        );
        assert.equal(page.json.next, `${api.url}${path(patientKey)}?limit=2&offset=4`);
        assert.equal(page.json.previous, `${api.url}${path(patientKey)}?limit=2&offset=0`);
        assert.equal((await api.call('GET', `/core/api/v1/patients/${patientKey}/metadata`)).json.count, 6, 'GET works without the trailing slash');
      });

      it('404 patient_not_found for an unknown or malformed key; 400 for a bad page; 401 without credentials, 403 with an API key', async () => {
        for (const key of ['0'.repeat(32), 'not-a-key']) {
          const r = await api.call('GET', path(key));
          assert.equal(r.status, 404, r.text);
          assert.equal(r.json.code, 'patient_not_found');
        }
        const bad = await api.call('GET', path(p.patientKey, '?limit=0'));
        assert.equal(bad.status, 400, bad.text);
        assert.equal((await api.call('GET', path(p.patientKey, '?owner=me'))).status, 400);
        assert.equal((await api.call('GET', path(p.patientKey), { token: null })).status, 401);
        const key = await api.call('GET', path(p.patientKey), { token: null, authorization: TEST_API_KEY });
        assert.equal(key.status, 403, key.text);
      });
    });
  });
}
