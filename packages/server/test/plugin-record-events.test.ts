// Note and patient events (docs/plugins.md, "Event names", "A note event", "A patient event"), on
// each engine, with real plugins installed through the plugin API and run in the sandbox: each
// change the API makes to a note (create, lock, unlock, delete) or a patient (create) fires its PRE
// and its POST event once, carrying the record as the API shows it after the change and before
// it; a PRE handler's validation error refuses the change (400) and one that cannot answer with
// on_failure refuse refuses it too (503), writing nothing and firing no POST event; a PRE handler
// reads the record before the change, a POST handler after it; POST handlers' effects are applied
// within the event's reach (its patient); the changes those effects make carry depth 1; a POST
// handler that keeps failing is retried, then kept as a dead letter about the note. Nothing
// changes a note or a patient from an effect (no effect does), and nothing updates a patient (the
// API has no such route): PATIENT_PRE_UPDATE and PATIENT_UPDATED never fire.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { EVENT_NAMES } from '@charta/api/constants';
import { ENGINES, startInstance, TEST_API_KEY, type Instance, type Reply } from './support/harness.ts';
import { runtimeWatch } from './support/plugins.ts';
import { until } from './support/until.ts';

const N = '/core/api/v1/notes';
const P = '/core/api/v1/patients';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** Every note and patient event name. */
const RECORD_EVENT_NAMES = EVENT_NAMES.filter((n) => /^(NOTE|PATIENT)_/.test(n));

for (const engine of ENGINES) {
  describe(`note and patient events (${engine})`, () => {
    let api: Instance;
    const { entries, lines, failures, settled, install, update, disable } = runtimeWatch(() => api);
    /** The JSON lines a plugin logged. */
    const logged = (plugin: string): any[] => lines(plugin).map((e) => JSON.parse(e.event));

    const expect = (reply: Reply, status: number): any => {
      assert.equal(reply.status, status, reply.text);
      return reply.json;
    };
    const patient = async (firstName: string) => expect(await api.call('POST', `${P}/`, { body: { firstName, lastName: 'Events' } }), 201);
    const note = async (patientKey: string, title?: string, noteType = 'encounter') =>
      expect(await api.call('POST', `${N}/`, { body: { patientKey, noteType, ...(title === undefined ? {} : { title }) } }), 201);
    /** The audit rows of an entity, oldest first. */
    const audit = (entityId: string) => api.storage.db.selectFrom('audit_events').selectAll().where('entity_id', '=', entityId).orderBy('id').execute();

    before(async () => {
      api = await startInstance(engine, { pluginDeliveryAttempts: 2, pluginRetryBaseMs: 50 });
    });
    after(async () => api?.stop());

    it('each change fires its PRE and its POST event once, with the record as the API shows it after the change and before it', async () => {
      await install('watch', [{ className: 'Watch', events: RECORD_EVENT_NAMES, compute: '    this.log.info(JSON.stringify(this.event));\n    return [];' }]);
      const p = await patient('Watched');
      const created = await note(p.key);
      const locked = expect(await api.call('POST', `${N}/${created.uuid}/lock/`), 200);
      const unlocked = expect(await api.call('POST', `${N}/${created.uuid}/unlock/`), 200);
      const deleted = expect(await api.call('DELETE', `${N}/${created.uuid}/`), 200);
      await settled();

      const seen = logged('watch');
      const staff = (await audit(created.uuid))[0]!.actor;
      assert.ok(staff);
      const one = (type: string) => {
        const found = seen.filter((e) => e.type === type);
        assert.equal(found.length, 1, `${type} once: ${JSON.stringify(seen.map((e) => e.type))}`);
        const event = found[0];
        assert.match(event.id, UUID);
        assert.deepEqual(event.actor, { id: staff });
        assert.equal(event.depth, 0);
        return event;
      };
      const patientEvent = { target: { id: p.key, type: 'patient' }, context: { patient: p, previous: null } };
      for (const type of ['PATIENT_PRE_CREATE', 'PATIENT_CREATED']) {
        const { id: _id, type: _type, actor: _actor, depth: _depth, ...rest } = one(type);
        assert.deepEqual(rest, patientEvent, type);
      }
      const changes: Array<[string, string, unknown, unknown]> = [
        ['NOTE_PRE_CREATE', 'NOTE_CREATED', created, null],
        ['NOTE_PRE_LOCK', 'NOTE_LOCKED', locked, created],
        ['NOTE_PRE_UNLOCK', 'NOTE_UNLOCKED', unlocked, locked],
        ['NOTE_PRE_DELETE', 'NOTE_DELETED', deleted, unlocked],
      ];
      for (const [pre, post, after, previous] of changes) {
        const events = [one(pre), one(post)];
        assert.notEqual(events[0].id, events[1].id, 'the PRE and the POST event are two events');
        for (const { id: _id, type: _type, actor: _actor, depth: _depth, ...rest } of events) {
          assert.deepEqual(rest, { target: { id: created.uuid, type: 'note' }, context: { note: after, previous, patient: { key: p.key } } }, pre);
        }
      }
      assert.equal(deleted.deleted, true, 'a deleted note is shown deleted');
      // The POST events of one note arrive in the order of its changes.
      assert.deepEqual(
        seen.filter((e) => e.target.type === 'note' && !e.type.startsWith('NOTE_PRE_')).map((e) => e.type),
        ['NOTE_CREATED', 'NOTE_LOCKED', 'NOTE_UNLOCKED', 'NOTE_DELETED'],
      );
      assert.deepEqual(
        seen.filter((e) => /^PATIENT_(PRE_UPDATE|UPDATED)$/.test(e.type)),
        [],
        'nothing updates a patient',
      );
      assert.deepEqual(failures('watch'), []);
      await disable('watch');
    });

    it('a PRE handler refuses a note lock, a note create or a patient create: the API answers the refusal, nothing is written, no POST event fires', async () => {
      await install('guard', [
        {
          className: 'KeepOpen',
          events: ['NOTE_PRE_LOCK'],
          compute: `    if (this.event.context.note.title !== 'Keep open') return [];
    return [{ type: 'EVENT_VALIDATION_ERROR', payload: { errors: [{ message: 'This note stays open' }] } }];`,
        },
        {
          className: 'NoLetters',
          events: ['NOTE_PRE_CREATE'],
          compute: `    if (this.event.context.note.note_type !== 'letter') return [];
    return [{ type: 'EVENT_VALIDATION_ERROR', payload: { errors: [{ message: 'No letters for ' + this.event.context.patient.key, field: 'noteType' }] } }];`,
        },
        {
          className: 'Registry',
          events: ['PATIENT_PRE_CREATE'],
          onFailure: 'refuse',
          compute: `    if (this.event.context.patient.first_name === 'Unchecked') throw new Error('the registry is away');
    return [];`,
        },
      ]);
      await install('after', [
        {
          className: 'After',
          events: ['NOTE_CREATED', 'NOTE_LOCKED', 'PATIENT_CREATED'],
          compute: '    this.log.info(JSON.stringify({ type: this.event.type, target: this.event.target.id }));\n    return [];',
        },
      ]);
      const p = await patient('Guarded');
      const open = await note(p.key, 'Keep open');

      const refused = await api.call('POST', `${N}/${open.uuid}/lock/`);
      assert.equal(refused.status, 400, refused.text);
      assert.equal(refused.json.code, 'plugin_validation_failed');
      assert.deepEqual(refused.json.errors, [{ field: 'note', message: 'This note stays open', plugin: 'guard' }]);
      assert.deepEqual(expect(await api.call('GET', `${N}/${open.uuid}/`), 200), open, 'the note is as it was');
      // No change written (the reads the test made are audited too: left out here).
      assert.deepEqual(
        (await audit(open.uuid)).map((r) => r.action).filter((a) => !a.endsWith('.read')),
        ['note.created'],
      );
      const other = await note(p.key);
      expect(await api.call('POST', `${N}/${other.uuid}/lock/`), 200);

      const letter = await api.call('POST', `${N}/`, { body: { patientKey: p.key, noteType: 'letter' } });
      assert.equal(letter.status, 400, letter.text);
      assert.equal(letter.json.code, 'plugin_validation_failed');
      assert.deepEqual(letter.json.errors, [{ field: 'noteType', message: `No letters for ${p.key}`, plugin: 'guard' }]);
      const notes = expect(await api.call('GET', `${N}?patient_key=${p.key}`), 200);
      assert.deepEqual(notes.results.map((n: { uuid: string }) => n.uuid).sort(), [open.uuid, other.uuid].sort(), 'no letter was written');

      const unchecked = await api.call('POST', `${P}/`, { body: { firstName: 'Unchecked', lastName: 'Events' } });
      assert.equal(unchecked.status, 503, unchecked.text);
      assert.equal(unchecked.json.code, 'plugin_unavailable');
      assert.deepEqual(
        unchecked.json.errors.map((e: Record<string, string>) => [e.field, e.plugin]),
        [['patient', 'guard']],
      );
      assert.match(unchecked.json.errors[0].message, /handler dist\/handlers\.js:Registry threw/);
      const line = failures('guard').find((e) => e.event_type === 'PATIENT_PRE_CREATE');
      assert.match(line?.event ?? '', /the change to patient [0-9a-f]{32} is refused \(on_failure: refuse\)/);
      assert.deepEqual(await api.storage.db.selectFrom('patients').select('key').where('first_name', '=', 'Unchecked').execute(), []);

      await settled();
      assert.deepEqual(
        logged('after')
          .map((e) => `${e.type} ${e.target}`)
          .sort(),
        [`NOTE_CREATED ${open.uuid}`, `NOTE_CREATED ${other.uuid}`, `NOTE_LOCKED ${other.uuid}`, `PATIENT_CREATED ${p.key}`].sort(),
        'the refused changes fired no POST event',
      );
      await disable('guard');
      await disable('after');
    });

    it('a PRE handler reads the note before the change, a POST handler after it', async () => {
      await install(
        'reader',
        [
          {
            className: 'State',
            events: ['NOTE_PRE_CREATE', 'NOTE_CREATED', 'NOTE_PRE_LOCK', 'NOTE_LOCKED'],
            async: true,
            compute: `    try {
      const note = await this.data.notes.get(this.event.target.id);
      this.log.info(JSON.stringify({ type: this.event.type, locked: note.locked }));
    } catch (e) {
      this.log.info(JSON.stringify({ type: this.event.type, error: e.code }));
    }
    return [];`,
          },
        ],
        { data: { read: ['notes'] } },
      );
      const p = await patient('Read');
      const n = await note(p.key);
      // A POST handler reads the record at least as new as its event: the lock waits until NOTE_CREATED is delivered.
      await settled();
      expect(await api.call('POST', `${N}/${n.uuid}/lock/`), 200);
      await settled();
      const byType = Object.fromEntries(logged('reader').map(({ type, ...rest }) => [type, rest]));
      assert.deepEqual(byType, {
        NOTE_PRE_CREATE: { error: 'not_found' },
        NOTE_CREATED: { locked: false },
        NOTE_PRE_LOCK: { locked: false },
        NOTE_LOCKED: { locked: true },
      });
      assert.deepEqual(failures('reader'), []);
      await disable('reader');
    });

    it("POST handlers' effects are applied within the event's patient, and the changes they make carry depth 1", async () => {
      const q = await patient('Elsewhere');
      await install('react', [
        {
          className: 'Register',
          events: ['PATIENT_CREATED'],
          compute: `    return [{ type: 'UPSERT_PATIENT_METADATA', payload: { patient: this.event.target.id, key: 'registered-by', value: this.event.actor.id } }];`,
        },
        {
          className: 'Plan',
          events: ['NOTE_CREATED'],
          compute: `    return [{ type: 'ORIGINATE_PLAN_COMMAND', payload: { command: null, note: this.event.target.id, data: { narrative: 'Plan of ' + this.event.context.note.title }, line_number: -1 } }];`,
        },
        {
          className: 'Flag',
          events: ['NOTE_LOCKED'],
          compute: `    const { note, patient } = this.event.context;
    return [{ type: 'ADD_BANNER_ALERT', payload: { patient: patient.key, key: 'locked', narrative: 'Locked: ' + note.title, placement: ['chart'], intent: 'info' } }];`,
        },
        {
          className: 'Elsewhere',
          events: ['NOTE_DELETED'],
          compute: `    return [{ type: 'ADD_BANNER_ALERT', payload: { patient: '${q.key}', key: 'deleted', narrative: 'Not mine', placement: ['chart'], intent: 'info' } }];`,
        },
        {
          className: 'Depth',
          events: ['PLAN_COMMAND__POST_ORIGINATE'],
          compute: `    const { command } = this.event.context;
    this.log.info(JSON.stringify({ depth: this.event.depth, actor: this.event.actor.id, note: command.note_key, narrative: command.data.narrative }));
    return [];`,
        },
      ]);
      const p = await patient('Reacted');
      const n = await note(p.key, 'Visit');
      // Each change waits for the effects of the one before: a plan is originated only in a note not locked yet.
      await settled();
      await until(
        'the plan',
        () => logged('react').length > 0,
        undefined,
        () => JSON.stringify(failures('react')),
      );
      expect(await api.call('POST', `${N}/${n.uuid}/lock/`), 200);
      await settled();
      expect(await api.call('POST', `${N}/${n.uuid}/unlock/`), 200);
      expect(await api.call('DELETE', `${N}/${n.uuid}/`), 200);
      await settled();

      const metadata = expect(await api.call('GET', `${P}/${p.key}/metadata/`), 200);
      const staff = (await audit(p.key))[0]!.actor;
      assert.deepEqual(
        metadata.results.map((m: Record<string, string>) => [m.namespace, m.key, m.value, m.updated_by]),
        [['react', 'registered-by', staff, 'plugin:react']],
      );
      assert.deepEqual(logged('react'), [{ depth: 1, actor: 'plugin:react', note: n.uuid, narrative: 'Plan of Visit' }]);
      const banners = expect(await api.call('GET', `${P}/${p.key}/banner-alerts/`), 200);
      assert.deepEqual(
        banners.results.map((b: Record<string, string>) => [b.key, b.narrative]),
        [['locked', 'Locked: Visit']],
      );
      assert.equal(expect(await api.call('GET', `${P}/${q.key}/banner-alerts/`), 200).count, 0, "another patient than the event's is out of reach");
      const refused = failures('react').find((e) => e.event_type === 'NOTE_DELETED');
      assert.match(refused?.event ?? JSON.stringify(entries('react')), new RegExp(`was refused: patient ${q.key} is not the event's patient`));
      await disable('react');
    });

    it('a POST handler that keeps failing on a note event is retried, then kept as a dead letter about the note, which a replay delivers', async () => {
      await install('late', [{ className: 'Late', events: ['NOTE_UNLOCKED'], compute: '    for (;;) {}' }], { limits: { timeout_ms: 100 } });
      const p = await patient('Late');
      const n = await note(p.key);
      expect(await api.call('POST', `${N}/${n.uuid}/lock/`), 200);
      expect(await api.call('POST', `${N}/${n.uuid}/unlock/`), 200);
      const letters = async () => expect(await api.call('GET', `/core/api/v1/plugins/late/dead-letters/`, { authorization: TEST_API_KEY }), 200);
      const [letter] = await until(
        'a dead letter',
        async () => (await letters()).count === 1 && (await letters()).results,
        undefined,
        () => JSON.stringify(entries('late').map((e) => e.event)),
      );
      assert.deepEqual(
        [letter.event_type, letter.target, letter.command, letter.attempts, letter.event.target],
        ['NOTE_UNLOCKED', { type: 'note', id: n.uuid }, null, 2, { type: 'note', id: n.uuid }],
      );
      assert.ok(entries('late').some((e) => e.level === 'warning' && /on NOTE_UNLOCKED is given the event again/.test(e.event)));
      await update('late', [
        { className: 'Late', events: ['NOTE_UNLOCKED'], compute: "    this.log.info('delivered ' + this.event.target.id);\n    return [];" },
      ]);
      expect(await api.call('POST', `/core/api/v1/plugins/late/dead-letters/${letter.id}/replay/`, { authorization: TEST_API_KEY }), 202);
      await until('the replay', () => lines('late').some((e) => e.event === `delivered ${n.uuid}`));
      await settled();
      assert.equal((await letters()).count, 0);
      await disable('late');
    });
  });
}
