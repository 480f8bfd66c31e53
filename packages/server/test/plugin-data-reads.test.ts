// Reading the record from a handler (docs/plugins.md, "Reading the record"), on each engine, with
// real plugins installed through the plugin API and run in the sandbox: `this.data` answers what
// the REST API answers; another patient is out of scope (and audited as refused) unless the
// manifest asks instance scope and the data:instance grant is given; a resource the manifest does
// not declare, bad arguments (the API's own messages) and a spent budget are typed errors the
// handler can catch; an uncaught budget error ends the call as over budget; every read is in the
// audit trail with the plugin as actor; a PRE handler reads the record before the change, a POST
// handler after it.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ENGINES, TEST_API_KEY, startInstance, type Instance } from './support/harness.ts';
import { changeGrants, installPlugin, setEnabled, settle, type TestHandler } from './support/plugins.ts';
import { upsertPatientMetadata as upsertMetadata } from '../src/storage/patient-metadata-repository.ts';
import { nowMicros } from '../src/lib/time.ts';
import { until } from './support/until.ts';
import type { LogEntry } from '../src/logs/bus.ts';

const C = '/core/api/v1/commands';

/**
 * Runs the reads a plan's narrative lists as JSON (`[[resource, op, arg], …]`, `$patient` and
 * `$note` standing for the event's) and logs one line per read: its value, or its error's code,
 * message and field errors.
 */
const READER = (className: string, events: string[]): TestHandler => ({
  className,
  events,
  async: true,
  compute: `    const text = this.event.context.fields?.narrative ?? '';
    if (!text.startsWith('[')) return [];
    for (const [resource, op, arg] of JSON.parse(text)) {
      const value = arg === '$patient' ? this.event.context.patient.key : arg === '$note' ? this.event.context.note.uuid : arg;
      try {
        // 'raw': the sandbox's one way to the server, called directly as hostile code would, not through this.data.
        if (resource === 'raw') this.log.info(JSON.stringify({ ok: await __charta_binding(op, value) }));
        else {
          const target = resource.split('.').reduce((on, name) => on[name], this.data);
          this.log.info(JSON.stringify({ ok: await target[op](value) }));
        }
      } catch (e) {
        this.log.info(JSON.stringify({ error: { name: e.name, code: e.code ?? null, message: e.message, errors: e.errors ?? null } }));
      }
    }
    return [];`,
});

/** Reads its patient's commands in a loop without catching anything (the budget ends it). */
const GREEDY: TestHandler = {
  className: 'Greedy',
  events: ['PLAN_COMMAND__POST_ORIGINATE'],
  async: true,
  compute: `    for (;;) await this.data.patients.get(this.event.context.patient.key);`,
};

/** Logs the state of the command its event is about, as `this.data` reads it. */
const STATE_OF = (className: string, event: string): TestHandler => ({
  className,
  events: [event],
  async: true,
  compute: `    const command = await this.data.commands.get(this.event.target.id);
    this.log.info(JSON.stringify({ event: this.event.type, state: command.state }));
    return [];`,
});

const ALL = ['patients', 'notes', 'commands', 'chart'];

for (const engine of ENGINES) {
  describe(`plugins read the record through this.data (${engine})`, () => {
    let api: Instance;
    const seen: LogEntry[] = [];
    let p: { patientKey: string; noteKey: string };
    let q: { patientKey: string; noteKey: string };
    let qCommand: string;

    const install = async (name: string, handlers: TestHandler[], data: Record<string, unknown>, grants?: string[]) => {
      await installPlugin(api.url, name, handlers, { data }, grants);
      await until(`${name} running`, () => seen.find((e) => e.plugin === name && /running: \d+ handler/.test(e.event)));
    };
    const plan = async (noteKey: string, narrative: string) => {
      const r = await api.call('POST', `${C}/`, { body: { schemaKey: 'plan', noteKey, values: { narrative } } });
      assert.equal(r.status, 201, r.text);
      return r.json.uuid as string;
    };
    /** The reads' results a plugin logged for a plan originated with these reads. */
    const reads = async (plugin: string, list: unknown[], noteKey = p.noteKey): Promise<any[]> => {
      const from = seen.length;
      const uuid = await plan(noteKey, JSON.stringify(list));
      await settle(api);
      const lines = seen.slice(from).filter((e) => e.plugin === plugin && e.source === 'plugin');
      assert.equal(lines.length, list.length, `${plugin} logged each read: ${JSON.stringify(seen.slice(from).map((e) => e.event))}`);
      return Object.assign(
        lines.map((line) => JSON.parse(line.event) as any),
        { event: uuid },
      );
    };
    const audit = async (actor: string) =>
      api.storage.db.selectFrom('audit_events').selectAll().where('actor', '=', actor).where('action', 'like', 'plugin.read%').orderBy('id').execute();
    const get = async (path: string) => {
      const r = await api.call('GET', path);
      assert.equal(r.status, 200, r.text);
      return r.json;
    };

    before(async () => {
      api = await startInstance(engine);
      api.app.logs.subscribe((entry) => seen.push(entry));
      p = await api.note();
      q = await api.note();
      qCommand = await plan(q.noteKey, 'Q’s own plan');
      await install('reader', [READER('Reader', ['PLAN_COMMAND__POST_ORIGINATE'])], { read: ALL });
    });
    after(async () => api?.stop());

    it('answers what the REST API answers, for the event’s patient; every read is audited with the plugin as actor', async () => {
      const mine = await plan(p.noteKey, 'A clinician’s plan');
      await upsertMetadata(api.storage.db, {
        patient_key: p.patientKey,
        namespace: 'tagger',
        key: 'follow-up',
        value: '2w',
        updated_at: nowMicros(),
        updated_by: 'plugin:tagger',
      });
      const results = await reads('reader', [
        ['patients', 'get', '$patient'],
        ['notes', 'get', '$note'],
        ['notes', 'list', {}],
        ['commands', 'get', mine],
        ['commands', 'list', { schema_key: 'plan', limit: 1 }],
        ['chart', 'get', '$patient'],
        ['patients', 'metadata', '$patient'],
      ]);
      for (const r of results) assert.ok('ok' in r, JSON.stringify(r));
      const [patient, note, notes, command, commands, chart, metadata] = results.map((r) => r.ok);
      assert.deepEqual(patient, await get(`/core/api/v1/patients/${p.patientKey}/`));
      assert.deepEqual(note, await get(`/core/api/v1/notes/${p.noteKey}/`));
      const restNotes = await get(`/core/api/v1/notes/?patient_key=${p.patientKey}`);
      assert.deepEqual(notes.results, restNotes.results, 'a list without patient_key is the event patient’s');
      assert.equal(notes.count, restNotes.count);
      assert.deepEqual(command, await get(`${C}/${mine}/`));
      const restCommands = await get(`${C}/?patient_key=${p.patientKey}&schema_key=plan&limit=1`);
      assert.deepEqual(commands.results, restCommands.results);
      assert.equal(commands.count, restCommands.count);
      assert.equal(commands.next_offset, 1, 'more than one plan: the next page starts at 1');
      assert.deepEqual(chart, {
        patient_key: p.patientKey,
        conditions: (await get(`/core/api/v1/patients/${p.patientKey}/conditions/`)).results,
        medications: (await get(`/core/api/v1/patients/${p.patientKey}/medications/`)).results,
        goals: (await get(`/core/api/v1/patients/${p.patientKey}/goals/`)).results,
        banner_alerts: (await get(`/core/api/v1/patients/${p.patientKey}/banner-alerts/`)).results,
      });

      const restMetadata = await get(`/core/api/v1/patients/${p.patientKey}/metadata/`);
      assert.equal(restMetadata.count, 1);
      assert.deepEqual(metadata.results, restMetadata.results);
      assert.equal(metadata.count, restMetadata.count);

      const rows = (await audit('plugin:reader')).slice(-7, -1);
      assert.deepEqual(
        rows.map((r) => [r.action, r.entity_type, r.entity_id, JSON.parse(r.after!).read]),
        [
          ['plugin.read', 'patient', p.patientKey, 'patients.get'],
          ['plugin.read', 'patient', p.patientKey, 'notes.get'],
          ['plugin.read', 'patient', p.patientKey, 'notes.list'],
          ['plugin.read', 'patient', p.patientKey, 'commands.get'],
          ['plugin.read', 'patient', p.patientKey, 'commands.list'],
          ['plugin.read', 'patient', p.patientKey, 'chart.get'],
        ],
      );
      const listed = JSON.parse(rows[4]!.after!);
      assert.equal(listed.event_type, 'PLAN_COMMAND__POST_ORIGINATE');
      assert.equal(listed.handler, 'dist/handlers.js:Reader');
      assert.equal(listed.rows, 1);
      assert.deepEqual(listed.keys, [commands.results[0].uuid]);
      assert.equal(typeof listed.event_id, 'string');
      assert.equal(JSON.parse(rows[0]!.after!).event_id, listed.event_id, 'the reads of one call name its event');
    });

    it('another patient is out of scope: a typed error, nothing of it given, the refusal audited', async () => {
      const results = await reads('reader', [
        ['patients', 'get', q.patientKey],
        ['commands', 'get', qCommand],
        ['notes', 'get', q.noteKey],
        ['commands', 'list', { patient_key: q.patientKey }],
        ['chart', 'get', q.patientKey],
      ]);
      for (const r of results) {
        assert.equal(r.error?.name, 'DataError', JSON.stringify(r));
        assert.equal(r.error.code, 'out_of_scope');
        assert.match(r.error.message, new RegExp(`patient ${q.patientKey} is not the event's patient`));
        assert.doesNotMatch(JSON.stringify(r), /Q’s own plan/);
      }
      const refused = (await audit('plugin:reader')).filter((r) => r.action === 'plugin.read_refused').slice(-5);
      assert.deepEqual(
        refused.map((r) => JSON.parse(r.after!).read),
        ['patients.get', 'commands.get', 'notes.get', 'commands.list', 'chart.get'],
      );
      for (const r of refused) assert.match(JSON.parse(r.after!).refused, /is not the event's patient/);
      assert.deepEqual(
        refused.map((r) => r.entity_id),
        [q.patientKey, q.patientKey, q.patientKey, q.patientKey, q.patientKey],
        'each refusal names the patient it was about',
      );

      // Listed by the plugin API, newest first, by patient: "which plugin tried to read Q's record".
      const listed = await get(`/core/api/v1/plugins/reader/reads/?patient_key=${q.patientKey}`);
      assert.equal(listed.count, 5);
      assert.deepEqual(
        listed.results.map((r: { read: string }) => r.read),
        ['chart.get', 'commands.list', 'notes.get', 'commands.get', 'patients.get'],
      );
      const [newest] = listed.results;
      assert.equal(newest.patient_key, q.patientKey);
      assert.match(newest.refused, /is not the event's patient/);
      assert.equal(newest.rows, 0);
      assert.equal(newest.handler, 'dist/handlers.js:Reader');
      assert.equal(newest.event_type, 'PLAN_COMMAND__POST_ORIGINATE');
      const mine = await get(`/core/api/v1/plugins/reader/reads/?patient_key=${p.patientKey}&limit=2`);
      assert.ok(mine.count >= 6, 'the answered reads of P are listed too');
      assert.equal(mine.results.length, 2);
      assert.equal(mine.results[0].refused, null);
      assert.equal(mine.results[0].patient_key, p.patientKey);
      assert.ok(mine.results[0].id > mine.results[1].id, 'newest first');
      const bad = await api.call('GET', '/core/api/v1/plugins/reader/reads/?patient_key=nope');
      assert.equal(bad.status, 400, bad.text);
      assert.deepEqual(bad.json.errors, [{ field: 'patient_key', message: 'must be 32 lowercase hexadecimal characters' }]);

      // The same refusal when the binding is called directly, bypassing this.data: the scope is the server's, not the wrapper's.
      const [raw, otherCache] = await reads('reader', [
        ['raw', 'data', { resource: 'commands', op: 'list', query: { patient_key: q.patientKey } }],
        ['raw', 'cache', { op: 'set', key: 'named-elsewhere', value: 1, plugin: 'keeper' }],
      ]);
      assert.equal(raw.ok.error.code, 'out_of_scope');
      assert.deepEqual(otherCache.ok, { value: null }, 'set');
      const stored = await api.storage.db.selectFrom('plugin_cache').select('plugin_name').where('key', '=', 'named-elsewhere').execute();
      assert.deepEqual(stored, [{ plugin_name: 'reader' }], "a cache call is the calling plugin's, whatever plugin its arguments name");
    });

    it('bad arguments are the API’s own 400 messages; an unknown uuid is not_found; nothing reaches the server log as a 500', async () => {
      const rest = await api.call('GET', `${C}/?bogus=1&state=done&limit=0`);
      assert.equal(rest.status, 400);
      const results = await reads('reader', [
        ['commands', 'list', { bogus: '1', state: 'done', limit: 0 }],
        ['patients', 'get', 'not-a-key'],
        ['commands', 'get', '00000000-0000-4000-8000-000000000000'],
        ['notes', 'list', 'not an object'],
      ]);
      const [list, key, missing, shape] = results.map((r) => r.error);
      assert.equal(list.code, 'invalid');
      assert.deepEqual(
        list.errors.map((e: { field: string }) => e.field).sort(),
        rest.json.errors.map((e: { field: string }) => e.field).sort(),
        'the schema refuses the same fields as the route',
      );
      assert.deepEqual(
        list.errors.find((e: { field: string }) => e.field === 'querystring.bogus'),
        rest.json.errors.find((e: { field: string }) => e.field === 'querystring.bogus'),
      );
      assert.equal(key.code, 'invalid');
      assert.match(key.message, /key must be a patient key/);
      assert.equal(missing.code, 'not_found');
      assert.equal(missing.message, (await api.call('GET', `${C}/00000000-0000-4000-8000-000000000000/`)).json.detail);
      assert.equal(shape.code, 'invalid');
    });

    it('a resource the manifest does not declare is not_declared; a spent budget is budget_exceeded, and uncaught it ends the call as over budget', async () => {
      await install('narrow', [READER('Narrow', ['PLAN_COMMAND__POST_ORIGINATE'])], { read: ['patients'], reads_per_call: 2 });
      const results = await reads('narrow', [
        ['commands', 'get', qCommand],
        ['patients', 'get', '$patient'],
        ['patients', 'get', '$patient'],
        ['patients', 'get', '$patient'],
      ]);
      assert.equal(results[0].error.code, 'not_declared');
      assert.match(results[0].error.message, /does not declare reading commands/);
      assert.ok('ok' in results[1] && 'ok' in results[2], JSON.stringify(results));
      assert.equal(results[3].error.code, 'budget_exceeded');
      assert.match(results[3].error.message, /2 times at most/);

      await install('greedy', [GREEDY], { read: ['patients'], reads_per_call: 5 });
      const from = seen.length;
      await plan(p.noteKey, 'anything');
      await settle(api);
      const fault = seen.slice(from).find((e) => e.plugin === 'greedy' && e.success === false);
      assert.ok(fault, JSON.stringify(seen.slice(from).map((e) => e.event)));
      assert.equal(fault.fault, 'budget-exceeded');
      assert.match(fault.event, /went over its read budget: more than 5 reads in one call/);
      assert.equal((await audit('plugin:greedy')).filter((r) => r.entity_id === p.patientKey).length % 5, 0, 'five reads given per call, each audited');
      for (const name of ['narrow', 'greedy']) assert.equal((await api.call('DELETE', `/core/api/v1/plugins/${name}/?force=true`)).status, 204);
    });

    it('reads the reference data as the admin API lists it: by catalogue, a nested one by its parent, an entry by its key', async () => {
      const admin = async (path: string, body?: unknown) => {
        const r = await api.call(body === undefined ? 'GET' : 'POST', `/core/api/v1/admin${path}`, { body, authorization: TEST_API_KEY });
        assert.ok(r.status === 200 || r.status === 201, `${path}: ${r.text}`);
        return r.json;
      };
      const alex = await admin('/staff/', { first_name: 'Alex', last_name: 'Demo', credentials: 'MD', npi: '1234567893', role: 'provider' });
      const lab = await admin('/lab-partners/', { name: 'Data Reads Lab' });
      await admin(`/lab-partners/${lab.id}/tests/`, { order_code: 'DR-A1C', name: 'Hemoglobin A1c', loinc_code: '4548-4' });
      await install('refs', [READER('Refs', ['PLAN_COMMAND__POST_ORIGINATE'])], { read: ['reference'] });
      const results = await reads('refs', [
        ['reference.staff', 'list', { limit: 100 }],
        ['reference.staff', 'get', alex.key],
        ['reference.lab_tests', 'list', { parent: lab.id }],
        ['reference.lab_tests', 'list', {}],
        ['reference.staff', 'get', 'nobody'],
        ['reference.pharmacies', 'list', { bogus: 1 }],
      ]);
      const [staff, one, tests, noParent, missing, bogus] = results;
      assert.deepEqual(staff.ok.results, (await admin('/staff/?limit=100')).results);
      assert.deepEqual(one.ok, alex);
      assert.deepEqual(tests.ok.results, (await admin(`/lab-partners/${lab.id}/tests/`)).results);
      assert.equal(tests.ok.count, 1);
      assert.equal(noParent.error.code, 'invalid');
      assert.match(noParent.error.message, /lab_tests is listed by its parent/);
      assert.equal(missing.error.code, 'not_found');
      assert.equal(bogus.error.code, 'invalid');
      assert.deepEqual(bogus.error.errors, [{ field: 'querystring.bogus', message: 'is not a known field' }]);
      const audited = (await audit('plugin:refs')).map((r) => [r.entity_type, JSON.parse(r.after!).read]);
      assert.deepEqual(audited.slice(0, 3), [
        ['data.reference', 'reference.list'],
        ['data.reference', 'reference.get'],
        ['data.reference', 'reference.list'],
      ]);
      assert.equal((await api.call('DELETE', '/core/api/v1/plugins/refs/?force=true')).status, 204);
    });

    it('looks up and searches coded concepts as autocomplete finds them', async () => {
      await install('coder', [READER('Coder', ['PLAN_COMMAND__POST_ORIGINATE'])], { read: ['terminology'] });
      const results = await reads('coder', [
        ['terminology', 'lookup', 'E11.9'],
        ['terminology', 'search', 'type 2 diabetes'],
        ['terminology', 'lookup', 'Z99.999'],
      ]);
      // READER passes one argument: lookup(system) and search(systems) get it as the system; the
      // handler below passes both, so these three are refused as the instance refuses bad arguments.
      for (const r of results) assert.equal(r.error?.code, 'invalid', JSON.stringify(r));
      await install(
        'coder2',
        [
          {
            className: 'Coder2',
            events: ['PLAN_COMMAND__POST_ORIGINATE'],
            async: true,
            compute: `    const out = {};
    out.lookup = await this.data.terminology.lookup('ICD-10', 'E11.9');
    out.search = await this.data.terminology.search(['ICD-10'], 'E11.9', { limit: 5 });
    try { await this.data.terminology.lookup('ICD-10', 'Z99.999'); } catch (e) { out.missing = e.code; }
    try { await this.data.terminology.search(['nowhere'], 'x'); } catch (e) { out.badSystem = e.code; }
    this.log.info(JSON.stringify(out));
    return [];`,
          },
        ],
        { read: ['terminology'] },
      );
      const from = seen.length;
      await plan(p.noteKey, 'code things');
      await settle(api);
      const line = seen.slice(from).find((e) => e.plugin === 'coder2' && e.source === 'plugin');
      assert.ok(line, JSON.stringify(seen.slice(from).map((e) => e.event)));
      const out = JSON.parse(line.event);
      assert.equal(out.lookup.code, 'E11.9');
      assert.equal(out.lookup.system, 'ICD-10');
      assert.match(out.lookup.display, /diabetes/i);
      assert.equal(out.search[0].code, 'E11.9', 'an exact code first, as autocomplete');
      assert.equal(out.missing, 'not_found');
      assert.equal(out.badSystem, 'invalid');
      const audited = (await audit('plugin:coder2')).map((r) => [r.entity_type, JSON.parse(r.after!).read, JSON.parse(r.after!).keys[0]]);
      assert.deepEqual(audited.slice(0, 2), [
        ['data.terminology', 'terminology.lookup', 'ICD-10|E11.9'],
        ['data.terminology', 'terminology.search', 'ICD-10|E11.9'],
      ]);
      for (const name of ['coder', 'coder2']) assert.equal((await api.call('DELETE', `/core/api/v1/plugins/${name}/?force=true`)).status, 204);
    });

    it('instance scope needs the data:instance grant: installed disabled without it, saying why; with it, reads reach any patient; taking it back disables', async () => {
      const asked = { read: ALL, scope: 'instance' };
      const installed = await installPlugin(api.url, 'wide', [READER('Wide', ['PLAN_COMMAND__POST_ORIGINATE'])], { data: asked });
      assert.equal(installed.json.is_enabled, false);
      assert.match(installed.json.notice, /wide is disabled: its manifest asks data.scope instance .* needs the data:instance grant/);
      const shown = { read: ALL, scope: 'instance', reads_per_call: null, rows_per_call: null };
      assert.deepEqual(installed.json.data, shown);
      assert.deepEqual((await get('/core/api/v1/plugins/wide/')).data, shown, 'the plugin object shows the access asked for');
      assert.ok(seen.some((e) => e.plugin === 'wide' && e.level === 'warning' && /needs the data:instance grant/.test(e.event)));

      // Enabling without the grant leaves it disabled, saying why.
      const refused = await setEnabled(api.url, 'wide', true);
      assert.equal(refused.json.is_enabled, false);
      assert.match(refused.json.notice, /needs the data:instance grant/);

      assert.equal((await changeGrants(api.url, 'wide', { grant: ['data:instance'] })).status, 200);
      const enabled = await setEnabled(api.url, 'wide', true);
      assert.equal(enabled.json.is_enabled, true);
      assert.equal(enabled.json.notice, undefined);
      assert.deepEqual(enabled.json.grants, ['data:instance']);
      await until('wide running', () => seen.find((e) => e.plugin === 'wide' && /running: \d+ handler/.test(e.event)));
      const withGrant = await reads('wide', [
        ['patients', 'get', q.patientKey],
        ['commands', 'list', { patient_key: q.patientKey }],
      ]);
      assert.deepEqual(withGrant[0].ok, await get(`/core/api/v1/patients/${q.patientKey}/`));
      assert.deepEqual(
        withGrant[1].ok.results.map((c: { uuid: string }) => c.uuid),
        [qCommand],
      );
      const rows = (await audit('plugin:wide')).slice(-2);
      assert.deepEqual(
        rows.map((r) => [r.action, r.entity_id]),
        [
          ['plugin.read', q.patientKey],
          ['plugin.read', q.patientKey],
        ],
      );

      const revoked = await changeGrants(api.url, 'wide', { revoke: ['data:instance'] });
      assert.equal(revoked.json.is_enabled, false, 'taking the grant back disables it');
      assert.match(revoked.json.notice, /needs the data:instance grant/);
      const audited = await api.storage.db.selectFrom('audit_events').select('action').where('entity_id', '=', 'wide').orderBy('id').execute();
      assert.equal(audited.at(-1)?.action, 'plugin.disabled');
      assert.equal((await api.call('DELETE', `/core/api/v1/plugins/wide/?force=true`)).status, 204);
    });

    it('a PRE handler reads the record as it was before the change, a POST handler as it is after', async () => {
      await install('states', [STATE_OF('Before', 'PLAN_COMMAND__PRE_COMMIT'), STATE_OF('After', 'PLAN_COMMAND__POST_COMMIT')], { read: ['commands'] });
      const uuid = await plan(p.noteKey, 'To commit');
      await settle(api);
      const from = seen.length;
      assert.equal((await api.call('POST', `${C}/${uuid}/commit/`)).status, 200);
      await settle(api);
      const states = seen
        .slice(from)
        .filter((e) => e.plugin === 'states' && e.source === 'plugin')
        .map((e) => JSON.parse(e.event));
      assert.deepEqual(states, [
        { event: 'PLAN_COMMAND__PRE_COMMIT', state: 'staged' },
        { event: 'PLAN_COMMAND__POST_COMMIT', state: 'committed' },
      ]);
      await until('the PRE read audited', async () => (await audit('plugin:states')).length === 2);
      assert.equal((await api.call('DELETE', `/core/api/v1/plugins/states/?force=true`)).status, 204);
    });
  });
}
