// Effects within the event's reach, grants and breadth limits (docs/plugins.md, "Grants" and
// "Breadth limits"), on each engine, with real plugins installed through the plugin API: an effect
// that touches another patient than the event's, or a command the plugin did not originate, is
// refused with one error line and writes nothing, while the answer's other effects apply; each
// grant widens exactly what it says; grants are given at install, given and taken back by PATCH,
// audited and shown; an answer past its limit and a chain of changes past its budget stop there.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { ENGINES, TEST_API_KEY, startInstance, testConfig, toReply, type Instance, type Reply } from './support/harness.ts';
import { changeGrants, installPlugin, pluginPackage, setEnabled, type TestHandler } from './support/plugins.ts';
import { until } from './support/until.ts';
import type { LogEntry } from '../src/logs/bus.ts';
import { countPluginEvents } from '../src/storage/plugin-events-repository.ts';
import { applyEffects } from '../src/runtime/effects.ts';
import { DEFAULT_EFFECTS_PER_ANSWER } from '../src/runtime/effect-limits.ts';
import { prepareStorage } from '../src/server.ts';
import { nowMicros } from '../src/lib/time.ts';

const C = '/core/api/v1/commands';
const P = '/core/api/v1/plugins';
/**
 * The budget of one chain of changes on the test instance (CHARTA_PLUGIN_EFFECTS_PER_CHANGE):
 * small, so that a chain reaches it fast, and no less than an answer of the default limit.
 */
const BUDGET = 100;

/** Answers the effects a plan's narrative holds as JSON (a narrative that is no JSON list: none). */
const REACHER: TestHandler = {
  className: 'Reach',
  events: ['PLAN_COMMAND__POST_ORIGINATE'],
  compute: `    const text = this.event.context.fields.narrative ?? '';
    return text.startsWith('[') ? JSON.parse(text) : [];`,
};

const plan = (note: string, narrative: string) => ({ type: 'ORIGINATE_PLAN_COMMAND', payload: { command: null, note, data: { narrative }, line_number: -1 } });
const step = (type: string, command: string) => ({ type, payload: { command } });
const banner = (patient: string, key: string) => ({
  type: 'ADD_BANNER_ALERT',
  payload: { patient, key, narrative: `Banner ${key}`, placement: ['chart'], intent: 'info' },
});

for (const engine of ENGINES) {
  describe(`effects within the event's reach, grants, breadth limits (${engine})`, () => {
    let api: Instance;
    /** Every log entry of the instance since it started (the recent ring keeps only the last 1000). */
    const seen: LogEntry[] = [];
    const failures = (plugin: string) => seen.filter((e) => e.plugin === plugin && e.success === false);
    const settled = async () => {
      await until('the outbox to empty', async () => {
        await api.app.pluginRuntime.delivery.idle();
        return (await countPluginEvents(api.storage.db)) === 0;
      });
      await api.app.pluginRuntime.delivery.idle();
    };
    const install = async (name: string, handlers: TestHandler[], extra?: Record<string, unknown>, grants?: string[]) => {
      const reply = await installPlugin(api.url, name, handlers, extra, grants);
      await until(`${name} running`, () => seen.find((e) => e.plugin === name && /running: \d+ handler/.test(e.event)));
      return reply;
    };
    const disable = async (name: string) => {
      await setEnabled(api.url, name, false);
      await until(`${name} stopped`, () => seen.find((e) => e.plugin === name && / stopped$/.test(e.event)));
    };
    const read = async (uuid: string) => (await api.call('GET', `${C}/${uuid}/`)).json as Record<string, any>;
    const commandsOf = async (noteKey: string) => (await api.call('GET', `${C}/?note_key=${noteKey}&limit=1000`)).json as { count: number; results: any[] };
    const bannersOf = async (patient: string) => (await api.call('GET', `/core/api/v1/patients/${patient}/banner-alerts/`)).json.results as any[];
    const create = async (noteKey: string, narrative = 'A clinician wrote this') => {
      const r = await api.call('POST', `${C}/`, { body: { schemaKey: 'plan', noteKey, values: { narrative } } });
      assert.equal(r.status, 201, r.text);
      return r.json.uuid as string;
    };
    const commit = async (uuid: string) => assert.equal((await api.call('POST', `${C}/${uuid}/commit/`)).status, 200);
    /** The plugin `reacher` answers these effects to the POST_ORIGINATE of a plan a clinician makes in `noteKey`; waits until they are applied. */
    const answer = async (noteKey: string, effects: unknown[]) => {
      const from = failures('reacher').length;
      const uuid = await create(noteKey, JSON.stringify(effects));
      await settled();
      return { event: uuid, lines: failures('reacher').slice(from) };
    };
    /** The audit rows about an entity that a plugin's user wrote. */
    const auditedBy = async (actor: string, entityId: string) =>
      api.storage.db.selectFrom('audit_events').select(['action']).where('entity_id', '=', entityId).where('actor', '=', actor).execute();

    // Patient P (the events' patient) and patient Q (another one), each with a note.
    let p: { patientKey: string; noteKey: string };
    let q: { patientKey: string; noteKey: string };

    before(async () => {
      api = await startInstance(engine, { pluginEffectsPerChange: BUDGET });
      api.app.logs.subscribe((entry) => seen.push(entry));
      p = await api.note();
      q = await api.note();
    });
    after(async () => api?.stop());

    it('effects out of the event’s reach are refused, one line each, nothing of them written; the others apply in order', async () => {
      await install('reacher', [REACHER]);
      const qStaged = await create(q.noteKey);
      const qCommitted = await create(q.noteKey);
      await commit(qCommitted);
      const pStaged = await create(p.noteKey);
      const qBefore = await commandsOf(q.noteKey);
      const { lines } = await answer(p.noteKey, [
        step('COMMIT_PLAN_COMMAND', qStaged),
        step('ENTER_IN_ERROR_PLAN_COMMAND', qCommitted),
        { type: 'EDIT_PLAN_COMMAND', payload: { command: qStaged, data: { narrative: 'Changed by a plugin' } } },
        step('DELETE_PLAN_COMMAND', qStaged),
        plan(q.noteKey, 'Slipped into another chart'),
        banner(q.patientKey, 'elsewhere'),
        // The event's own patient, but a clinician's command.
        step('COMMIT_PLAN_COMMAND', pStaged),
        // Within reach: applied, after the refusals before them.
        plan(p.noteKey, 'The plugin’s own plan'),
        banner(p.patientKey, 'here'),
      ]);
      const theirs =
        "belongs to another patient than the event's and was not originated by this plugin (the grants effects:instance and effects:any-command allow it)";
      const expected = [
        `effect 0 (COMMIT_PLAN_COMMAND) was refused: command ${qStaged} ${theirs}`,
        `effect 1 (ENTER_IN_ERROR_PLAN_COMMAND) was refused: command ${qCommitted} ${theirs}`,
        `effect 2 (EDIT_PLAN_COMMAND) was refused: command ${qStaged} ${theirs}`,
        `effect 3 (DELETE_PLAN_COMMAND) was refused: command ${qStaged} ${theirs}`,
        `effect 4 (ORIGINATE_PLAN_COMMAND) was refused: note ${q.noteKey} belongs to another patient than the event's (the grant effects:instance allows it)`,
        `effect 5 (ADD_BANNER_ALERT) was refused: patient ${q.patientKey} is not the event's patient (the grant effects:instance allows it)`,
        `effect 6 (COMMIT_PLAN_COMMAND) was refused: command ${pStaged} was not originated by this plugin (the grant effects:any-command allows it)`,
      ];
      assert.deepEqual(
        lines.map((l) => l.event),
        expected.map((e) => `plugin reacher: handler dist/handlers.js:Reach on PLAN_COMMAND__POST_ORIGINATE ${e}`),
      );
      for (const l of lines) {
        assert.equal(l.level, 'error');
        assert.equal(l.event_type, 'PLAN_COMMAND__POST_ORIGINATE');
      }
      // Nothing of the refused effects was written: Q's commands and note as they were, no banner on Q, no audit row of the plugin about them.
      assert.deepEqual(await commandsOf(q.noteKey), qBefore);
      assert.equal((await read(qStaged)).state, 'staged');
      assert.equal((await read(qStaged)).data.narrative, 'A clinician wrote this');
      assert.equal((await read(qCommitted)).state, 'committed');
      assert.equal((await read(pStaged)).state, 'staged');
      assert.deepEqual(await bannersOf(q.patientKey), []);
      for (const uuid of [qStaged, qCommitted, pStaged]) assert.deepEqual(await auditedBy('plugin:reacher', uuid), []);
      // The effects within reach were applied.
      const own = (await commandsOf(p.noteKey)).results.filter((c) => c.originated_by === 'plugin:reacher');
      assert.deepEqual(
        own.map((c) => c.data.narrative),
        ['The plugin’s own plan'],
      );
      assert.deepEqual(
        (await bannersOf(p.patientKey)).map((b) => b.key),
        ['here'],
      );
    });

    it("the plugin's own commands of the event's patient are edited, committed, entered in error and deleted", async () => {
      await answer(p.noteKey, [plan(p.noteKey, 'Own one'), plan(p.noteKey, 'Own two')]);
      const own = (await commandsOf(p.noteKey)).results.filter((c) => c.originated_by === 'plugin:reacher');
      const one = own.find((c) => c.data.narrative === 'Own one')!.uuid as string;
      const two = own.find((c) => c.data.narrative === 'Own two')!.uuid as string;
      const { lines } = await answer(p.noteKey, [
        { type: 'EDIT_PLAN_COMMAND', payload: { command: one, data: { narrative: 'Own one, edited' } } },
        step('COMMIT_PLAN_COMMAND', one),
        step('ENTER_IN_ERROR_PLAN_COMMAND', one),
        step('DELETE_PLAN_COMMAND', two),
      ]);
      assert.deepEqual(lines, []);
      const after = await read(one);
      assert.equal(after.state, 'entered_in_error');
      assert.equal(after.data.narrative, 'Own one, edited');
      assert.equal((await api.call('GET', `${C}/${two}/`)).status, 404);
    });

    it("effects:any-command reaches the commands others originated, of the event's patient only", async () => {
      const pStaged = await create(p.noteKey);
      const qStaged = await create(q.noteKey);
      const given = await changeGrants(api.url, 'reacher', { grant: ['effects:any-command'] });
      assert.deepEqual(given.json.grants, ['effects:any-command']);
      const { lines } = await answer(p.noteKey, [step('COMMIT_PLAN_COMMAND', pStaged), step('COMMIT_PLAN_COMMAND', qStaged)]);
      assert.deepEqual(
        lines.map((l) => l.event.replace(/^.* on PLAN_COMMAND__POST_ORIGINATE /, '')),
        [`effect 1 (COMMIT_PLAN_COMMAND) was refused: command ${qStaged} belongs to another patient than the event's (the grant effects:instance allows it)`],
      );
      assert.equal((await read(pStaged)).state, 'committed');
      assert.equal((await read(pStaged)).committed_by, 'plugin:reacher');
      assert.equal((await read(qStaged)).state, 'staged');
      await changeGrants(api.url, 'reacher', { revoke: ['effects:any-command'] });
    });

    it('effects:instance reaches any patient, and only its own commands there; revoked, it reaches no further; with both, anything', async () => {
      const qStaged = await create(q.noteKey);
      await changeGrants(api.url, 'reacher', { grant: ['effects:instance'] });
      const wide = await answer(p.noteKey, [plan(q.noteKey, 'Placed in Q'), banner(q.patientKey, 'q-banner'), step('COMMIT_PLAN_COMMAND', qStaged)]);
      assert.deepEqual(
        wide.lines.map((l) => l.event.replace(/^.* on PLAN_COMMAND__POST_ORIGINATE /, '')),
        [`effect 2 (COMMIT_PLAN_COMMAND) was refused: command ${qStaged} was not originated by this plugin (the grant effects:any-command allows it)`],
      );
      const placed = (await commandsOf(q.noteKey)).results.filter((c) => c.originated_by === 'plugin:reacher');
      assert.deepEqual(
        placed.map((c) => [c.data.narrative, c.patient_key]),
        [['Placed in Q', q.patientKey]],
      );
      assert.deepEqual(
        (await bannersOf(q.patientKey)).map((b) => b.key),
        ['q-banner'],
      );

      await changeGrants(api.url, 'reacher', { revoke: ['effects:instance'] });
      const narrow = await answer(p.noteKey, [{ type: 'REMOVE_BANNER_ALERT', payload: { patient: q.patientKey, key: 'q-banner' } }]);
      assert.deepEqual(
        narrow.lines.map((l) => l.event.replace(/^.* on PLAN_COMMAND__POST_ORIGINATE /, '')),
        [`effect 0 (REMOVE_BANNER_ALERT) was refused: patient ${q.patientKey} is not the event's patient (the grant effects:instance allows it)`],
      );
      assert.deepEqual(
        (await bannersOf(q.patientKey)).map((b) => b.key),
        ['q-banner'],
      );

      await changeGrants(api.url, 'reacher', { grant: ['effects:instance', 'effects:any-command'] });
      const both = await answer(p.noteKey, [
        step('COMMIT_PLAN_COMMAND', qStaged),
        { type: 'REMOVE_BANNER_ALERT', payload: { patient: q.patientKey, key: 'q-banner' } },
      ]);
      assert.deepEqual(both.lines, []);
      assert.equal((await read(qStaged)).state, 'committed');
      assert.deepEqual(await bannersOf(q.patientKey), []);
      await changeGrants(api.url, 'reacher', { revoke: ['effects:instance', 'effects:any-command'] });
    });

    it('an event about no patient reaches no patient without effects:instance', async () => {
      const handler = {
        plugin: 'reacher',
        entry: 'dist/handlers.js',
        className: 'Reach',
        id: 'dist/handlers.js:Reach',
        events: [],
        secrets: {},
        onFailure: 'allow' as const,
        effectsPerAnswer: 100,
        routes: [],
        schedule: null,
        data: { read: [], scope: 'event_patient' as const, reads: 50, rows: 2000 },
      };
      const runtime = api.app.pluginRuntime;
      const from = failures('reacher').length;
      const pStaged = await create(p.noteKey);
      await applyEffects(
        { storage: api.storage, logs: api.app.logs, signals: api.app.signals, runtime, calls: runtime.calls, effectsPerChange: 1000 },
        handler,
        { id: crypto.randomUUID(), type: 'PLUGIN_UPDATED', depth: 0, requestId: 'no-patient', root: crypto.randomUUID(), patient: null },
        [banner(p.patientKey, 'nobody'), plan(p.noteKey, 'Nobody asked'), step('COMMIT_PLAN_COMMAND', pStaged)],
      );
      assert.deepEqual(
        failures('reacher')
          .slice(from)
          .map((l) => l.event.replace(/^.* on PLUGIN_UPDATED /, '')),
        [
          `effect 0 (ADD_BANNER_ALERT) was refused: patient ${p.patientKey} is not the event's patient: the event is about none (the grant effects:instance allows it)`,
          `effect 1 (ORIGINATE_PLAN_COMMAND) was refused: note ${p.noteKey} belongs to a patient, and the event is about none (the grant effects:instance allows it)`,
          `effect 2 (COMMIT_PLAN_COMMAND) was refused: command ${pStaged} belongs to a patient, and the event is about none and was not originated by this plugin (the grants effects:instance and effects:any-command allow it)`,
        ],
      );
      assert.ok(!(await bannersOf(p.patientKey)).some((b) => b.key === 'nobody'));
      assert.equal((await read(pStaged)).state, 'staged');
      await disable('reacher');
    });

    describe('grants given and taken back', () => {
      /** A multipart install or PATCH with repeated fields, as the charta tool sends it. */
      const send = async (method: string, path: string, fields: Array<[string, string]>, pkg?: Buffer) => {
        const form = new FormData();
        for (const [k, v] of fields) form.append(k, v);
        if (pkg !== undefined) form.set('package', new Blob([new Uint8Array(pkg)]), 'trusted.tar.gz');
        return toReply(await fetch(`${api.url}${P}${path}`, { method, body: form, headers: { authorization: TEST_API_KEY } }));
      };
      const audit = async () =>
        (
          await api.storage.db
            .selectFrom('audit_events')
            .select(['action', 'before', 'after'])
            .where('entity_type', '=', 'plugin')
            .where('entity_id', '=', 'trusted')
            .orderBy('id')
            .execute()
        ).map((r) => ({ action: r.action, before: JSON.parse(r.before ?? 'null'), after: JSON.parse(r.after ?? 'null') }));
      const grantLines = () => seen.filter((e) => e.plugin === 'trusted' && / grants: /.test(e.event)).map((e) => e.event);
      const readPlugin = async () => (await api.call('GET', `${P}/trusted/`, { authorization: TEST_API_KEY })).json;
      const listed = async () => (await api.call('GET', `${P}/`, { authorization: TEST_API_KEY })).json.results.find((r: any) => r.name === 'trusted');
      const refused = (r: Reply, field: string, name: string) => {
        assert.equal(r.status, 400, r.text);
        assert.equal(r.json.code, 'validation_failed');
        assert.deepEqual(r.json.errors, [
          { field, message: `${JSON.stringify(name)} is not a grant; the grants are data:instance, effects:any-command, effects:instance` },
        ]);
      };

      it('an unknown grant at install is a 400 naming the known grants, and nothing is written', async () => {
        const pkg = await pluginPackage('trusted', [REACHER]);
        refused(
          await send(
            'POST',
            '/',
            [
              ['grant', 'effects:instance'],
              ['grant', 'effects:everything'],
            ],
            pkg,
          ),
          'grant[1]',
          'effects:everything',
        );
        const revoked = await send('POST', '/', [['revoke', 'effects:instance']], pkg);
        assert.equal(revoked.status, 400, revoked.text);
        assert.equal((await api.call('GET', `${P}/trusted/`, { authorization: TEST_API_KEY })).status, 404);
        assert.deepEqual(await audit(), []);
        assert.deepEqual(grantLines(), []);
      });

      it('install with grants: stored, shown by every answer, audited and logged', async () => {
        const pkg = await pluginPackage('trusted', [REACHER]);
        const r = await send(
          'POST',
          '/',
          [
            ['is_enabled', 'False'],
            ['grant', 'effects:instance'],
            ['grant', 'effects:any-command'],
            ['grant', 'effects:instance'],
          ],
          pkg,
        );
        assert.equal(r.status, 201, r.text);
        assert.deepEqual(r.json.grants, ['effects:any-command', 'effects:instance']);
        assert.deepEqual(await readPlugin(), r.json);
        assert.deepEqual(await listed(), r.json);
        const rows = await audit();
        assert.deepEqual(
          rows.map((row) => [row.action, row.after?.grants]),
          [['plugin.installed', ['effects:any-command', 'effects:instance']]],
        );
        assert.deepEqual(grantLines(), ['plugin trusted grants: effects:any-command, effects:instance (granted: effects:any-command, effects:instance)']);
      });

      it('PATCH gives (`grant`) and takes back (`revoke`) grants, each change audited with before and after and logged', async () => {
        const revoked = await send('PATCH', '/trusted/', [['revoke', 'effects:instance']]);
        assert.equal(revoked.status, 200, revoked.text);
        assert.deepEqual(revoked.json.grants, ['effects:any-command']);
        // Form-encoded, as a PATCH without a package may be sent.
        const both = await changeGrants(api.url, 'trusted', { grant: ['effects:instance'], revoke: ['effects:any-command'] });
        assert.deepEqual(both.json.grants, ['effects:instance']);
        assert.deepEqual((await readPlugin()).grants, ['effects:instance']);
        assert.deepEqual((await listed()).grants, ['effects:instance']);
        // Giving one it has changes nothing: no audit row, no line.
        await changeGrants(api.url, 'trusted', { grant: ['effects:instance'] });
        const changes = (await audit()).filter((row) => row.action === 'plugin.grants_changed');
        assert.deepEqual(
          changes.map((row) => [row.before, row.after]),
          [
            [{ grants: ['effects:any-command', 'effects:instance'] }, { grants: ['effects:any-command'] }],
            [{ grants: ['effects:any-command'] }, { grants: ['effects:instance'] }],
          ],
        );
        assert.deepEqual(grantLines().slice(1), [
          'plugin trusted grants: effects:any-command (revoked: effects:instance)',
          'plugin trusted grants: effects:instance (granted: effects:instance; revoked: effects:any-command)',
        ]);
      });

      it('an unknown grant or revoke at PATCH is a 400 naming the known grants; nothing is written, not even the rest of the PATCH', async () => {
        const rows = (await audit()).length;
        refused(
          await send('PATCH', '/trusted/', [
            ['is_enabled', 'True'],
            ['revoke', 'admin'],
          ]),
          'revoke[0]',
          'admin',
        );
        refused(
          await send('PATCH', '/trusted/', [
            ['grant', 'effects:any-command'],
            ['grant', 'EFFECTS:INSTANCE'],
          ]),
          'grant[1]',
          'EFFECTS:INSTANCE',
        );
        const twice = await send('PATCH', '/trusted/', [
          ['grant', 'effects:any-command'],
          ['revoke', 'effects:any-command'],
        ]);
        assert.equal(twice.status, 400, twice.text);
        assert.match(twice.json.errors[0].message, /effects:any-command is both granted and revoked/);
        const now = await readPlugin();
        assert.deepEqual(now.grants, ['effects:instance']);
        assert.equal(now.is_enabled, false);
        assert.equal((await audit()).length, rows);
        assert.equal((await api.call('DELETE', `${P}/trusted/`, { authorization: TEST_API_KEY })).status, 204);
      });
    });

    describe('breadth limits', () => {
      it(`a chain of three originates per POST_ORIGINATE stops at the budget of its root change (${BUDGET}), with one line`, async () => {
        await install('spreader', [
          {
            className: 'Three',
            events: ['GOAL_COMMAND__POST_ORIGINATE'],
            compute: `    const note = this.event.context.note.uuid;
    return [1, 2, 3].map((i) => ({ type: 'ORIGINATE_GOAL_COMMAND', payload: { command: null, note, data: { goal_statement: 'Goal ' + this.event.depth + '.' + i }, line_number: -1 } }));`,
          },
        ]);
        const { noteKey } = await api.note();
        const r = await api.call('POST', `${C}/`, { body: { schemaKey: 'goal', noteKey, values: { goal_statement: 'The root' } } });
        assert.equal(r.status, 201, r.text);
        await until('the budget line', () => failures('spreader').some((l) => /budget/.test(l.event)));
        await settled();
        const goals = await commandsOf(noteKey);
        assert.equal(goals.count, BUDGET + 1, 'the client’s goal and one per effect the budget allowed');
        assert.equal(goals.results.filter((c) => c.originated_by === 'plugin:spreader').length, BUDGET);
        const lines = failures('spreader');
        assert.equal(lines.length, 1, JSON.stringify(lines));
        assert.match(
          lines[0]!.event,
          new RegExp(
            `effects? \\d+ .*of the answer's 3\\) w(as|ere) refused: the chain of changes that event [0-9a-f-]{36} began has spent its budget of ${BUDGET} effects \\(CHARTA_PLUGIN_EFFECTS_PER_CHANGE\\)$`,
          ),
        );
        // The whole chain counted against one root: the client's change.
        const budgets = await api.storage.db.selectFrom('plugin_effect_budgets').selectAll().execute();
        const root = /event ([0-9a-f-]{36}) began/.exec(lines[0]!.event)![1];
        assert.ok(budgets.some((b) => b.root_id === root && Number(b.used) > BUDGET));
        await disable('spreader');
      });

      it(`an answer of ${DEFAULT_EFFECTS_PER_ANSWER + 1} effects applies ${DEFAULT_EFFECTS_PER_ANSWER}, and one line says the rest was refused`, async () => {
        await install('flood', [
          {
            className: 'Many',
            events: ['PERFORM_COMMAND__POST_ORIGINATE'],
            compute: `    const patient = this.event.context.patient.key;
    return Array.from({ length: ${DEFAULT_EFFECTS_PER_ANSWER + 1} }, (_, i) => ({ type: 'ADD_BANNER_ALERT', payload: { patient, key: 'b' + i, narrative: 'Banner ' + i, placement: ['chart'], intent: 'info' } }));`,
          },
        ]);
        const { noteKey, patientKey } = await api.note();
        assert.equal((await api.call('POST', `${C}/`, { body: { schemaKey: 'perform', noteKey, values: {} } })).status, 201);
        await until('the limit line', () => failures('flood').length > 0);
        await settled();
        const banners = await api.call('GET', `/core/api/v1/patients/${patientKey}/banner-alerts/?limit=200`);
        assert.equal(banners.json.count, DEFAULT_EFFECTS_PER_ANSWER);
        assert.ok(!banners.json.results.some((b: any) => b.key === `b${DEFAULT_EFFECTS_PER_ANSWER}`));
        assert.deepEqual(
          failures('flood').map((l) => l.event.replace(/^.* on PERFORM_COMMAND__POST_ORIGINATE /, '')),
          [
            `effect ${DEFAULT_EFFECTS_PER_ANSWER} (of the answer's ${DEFAULT_EFFECTS_PER_ANSWER + 1}) was refused: an answer may hold at most ${DEFAULT_EFFECTS_PER_ANSWER} effects (this plugin's limit per answer)`,
          ],
        );
        await disable('flood');
      });

      it("a manifest's limits.effects_per_answer is the plugin's limit; one over the instance's maximum is refused at install", async () => {
        await install(
          'frugal',
          [
            {
              className: 'Four',
              events: ['PERFORM_COMMAND__POST_ORIGINATE'],
              compute: `    const patient = this.event.context.patient.key;
    return [0, 1, 2, 3].map((i) => ({ type: 'ADD_BANNER_ALERT', payload: { patient, key: 'f' + i, narrative: 'Banner ' + i, placement: ['chart'], intent: 'info' } }));`,
            },
          ],
          { limits: { effects_per_answer: 3 } },
        );
        const { noteKey, patientKey } = await api.note();
        assert.equal((await api.call('POST', `${C}/`, { body: { schemaKey: 'perform', noteKey, values: {} } })).status, 201);
        await until('the limit line', () => failures('frugal').length > 0);
        await settled();
        assert.deepEqual((await bannersOf(patientKey)).map((b) => b.key).sort(), ['f0', 'f1', 'f2']);
        assert.match(failures('frugal')[0]!.event, /effect 3 \(of the answer's 4\) was refused: an answer may hold at most 3 effects/);
        await disable('frugal');

        const form = new FormData();
        form.set('package', new Blob([new Uint8Array(await pluginPackage('greedy', [REACHER], { limits: { effects_per_answer: 1001 } }))]), 'greedy.tar.gz');
        const r = await toReply(await fetch(`${api.url}${P}/`, { method: 'POST', body: form, headers: { authorization: TEST_API_KEY } }));
        assert.equal(r.status, 400, r.text);
        assert.equal(r.json.code, 'plugin_package_invalid');
        assert.deepEqual(
          r.json.errors.map((e: { message: string }) => e.message),
          ["CHARTA_MANIFEST.json: /limits/effects_per_answer 1001 is over this instance's maximum of 1000"],
        );
        assert.equal((await api.call('GET', `${P}/greedy/`, { authorization: TEST_API_KEY })).status, 404);
      });

      it('the count of a chain is forgotten after 24 hours, with the idempotency keys', async () => {
        const hour = 3600 * 1_000_000;
        await api.storage.db
          .insertInto('plugin_effect_budgets')
          .values([
            { root_id: 'a-day-old', used: 5, created_at: nowMicros() - 25 * hour },
            { root_id: 'an-hour-old', used: 5, created_at: nowMicros() - hour },
          ])
          .execute();
        // What every start does (and the running server hourly).
        const { storage } = await prepareStorage(testConfig(api.db));
        await storage.close();
        const roots = (await api.storage.db.selectFrom('plugin_effect_budgets').select('root_id').execute()).map((r) => r.root_id);
        assert.ok(!roots.includes('a-day-old'));
        assert.ok(roots.includes('an-hour-old'));
      });
    });
  });
}
