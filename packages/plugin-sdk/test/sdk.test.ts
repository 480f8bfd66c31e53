// @charta/plugin-sdk: event names, event and effect builders, running a handler as the instance
// does, and the manifest validator plugin projects are checked with.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import {
  createRouteEvent,
  EXAMPLE_IDS,
  routeResponse,
  RouteHandler,
  type RouteDeclaration,
  type RouteResponse,
  addBannerAlert,
  isDataError,
  memoryCache,
  noData,
  autocompleteResults,
  BaseHandler,
  commandEffectOf,
  commandEvent,
  commandStep,
  COMMAND_EVENT_PREFIXES,
  createEvent,
  createNoteEvent,
  createPatientEvent,
  createSearchEvent,
  deletePatientMetadata,
  editCommand,
  EFFECT_TYPES,
  EVENT_NAMES,
  isEffectType,
  isEventName,
  originateCommand,
  RECORD_ACTIONS,
  recordEvent,
  recordingLogger,
  removeBannerAlert,
  runHandler,
  upsertPatientMetadata,
  SDK_VERSION,
  SEARCH_FIELDS,
  searchEvent,
  searchEventField,
  slugify,
  validationError,
  type AutocompleteOption,
  type CommandSnapshot,
  type Effect,
  type EventName,
  type PluginEvent,
  type SearchEventName,
} from '../src/index.ts';
import { parseManifest, validateManifest } from '../src/manifest.ts';

describe('event names', () => {
  it('has ten lifecycle events per kind, the generic ten, one after-search event per autocomplete field, a PRE and a POST event per note and patient action, the two plugin events and the route and tick events, all distinct', () => {
    assert.equal(Object.keys(COMMAND_EVENT_PREFIXES).length, 15);
    const searchFields = Object.values(SEARCH_FIELDS).reduce((n, fields) => n + fields.length, 0);
    assert.equal(searchFields, 21);
    assert.equal(RECORD_ACTIONS.note.length + RECORD_ACTIONS.patient.length, 6);
    assert.equal(EVENT_NAMES.length, 15 * 10 + 10 + searchFields + 6 * 2 + 2 + 2);
    assert.ok(EVENT_NAMES.includes('SIMPLE_API_REQUEST') && EVENT_NAMES.includes('CRON'));
    assert.equal(new Set(EVENT_NAMES).size, EVENT_NAMES.length);
    for (const name of EVENT_NAMES) assert.match(name, /^[A-Z][A-Z0-9_]*$/);
  });

  it('names hpi events HISTORY_OF_PRESENT_ILLNESS, as the original platform does', () => {
    assert.equal(commandEvent('hpi', 'POST', 'COMMIT'), 'HISTORY_OF_PRESENT_ILLNESS_COMMAND__POST_COMMIT');
    assert.equal(commandEvent('labOrder', 'PRE', 'ENTER_IN_ERROR'), 'LAB_ORDER_COMMAND__PRE_ENTER_IN_ERROR');
    assert.ok(isEventName('PLAN_COMMAND__POST_COMMIT'));
    assert.ok(isEventName('POST_COMMAND_ORIGINATE'));
    assert.ok(!isEventName('HPI_COMMAND__POST_COMMIT'));
    assert.ok(!isEventName('plan_command__post_commit'));
  });

  it('names a note’s and a patient’s events <RECORD>_PRE_<ACTION> before the change and <RECORD>_<ACTION>ED after it', () => {
    assert.equal(recordEvent('note', 'PRE', 'CREATE'), 'NOTE_PRE_CREATE');
    assert.equal(recordEvent('note', 'POST', 'CREATE'), 'NOTE_CREATED');
    assert.equal(recordEvent('note', 'PRE', 'LOCK'), 'NOTE_PRE_LOCK');
    assert.equal(recordEvent('note', 'POST', 'UNLOCK'), 'NOTE_UNLOCKED');
    assert.equal(recordEvent('note', 'POST', 'DELETE'), 'NOTE_DELETED');
    assert.equal(recordEvent('patient', 'POST', 'CREATE'), 'PATIENT_CREATED');
    assert.equal(recordEvent('patient', 'POST', 'UPDATE'), 'PATIENT_UPDATED');
    assert.equal(recordEvent('patient', 'PRE', 'UPDATE'), 'PATIENT_PRE_UPDATE');
    assert.deepEqual(
      EVENT_NAMES.filter((n) => n.startsWith('NOTE_') || n.startsWith('PATIENT_')),
      [
        'NOTE_PRE_CREATE',
        'NOTE_CREATED',
        'NOTE_PRE_LOCK',
        'NOTE_LOCKED',
        'NOTE_PRE_UNLOCK',
        'NOTE_UNLOCKED',
        'NOTE_PRE_DELETE',
        'NOTE_DELETED',
        'PATIENT_PRE_CREATE',
        'PATIENT_CREATED',
        'PATIENT_PRE_UPDATE',
        'PATIENT_UPDATED',
      ],
    );
    assert.throws(() => recordEvent('patient', 'POST', 'LOCK' as never), /a patient has no action "LOCK"/);
    assert.ok(!isEventName('NOTE_POST_LOCK'));
  });

  it('every event name passes the manifest schema', () => {
    const result = validateManifest(manifestWith({ events: [...EVENT_NAMES] }));
    assert.deepEqual(result.ok ? [] : result.reasons, []);
  });
});

describe('after-search event names', () => {
  it('names each autocomplete field <PREFIX>_COMMAND__<FIELD>__POST_SEARCH', () => {
    assert.equal(searchEvent('diagnose', 'diagnose'), 'DIAGNOSE_COMMAND__DIAGNOSE__POST_SEARCH');
    assert.equal(searchEvent('prescribe', 'indications'), 'PRESCRIBE_COMMAND__INDICATIONS__POST_SEARCH');
    assert.equal(searchEvent('labOrder', 'lab_partner'), 'LAB_ORDER_COMMAND__LAB_PARTNER__POST_SEARCH');
    assert.equal(searchEvent('updateGoal', 'goal_statement'), 'UPDATE_GOAL_COMMAND__GOAL_STATEMENT__POST_SEARCH');
    assert.ok(isEventName('STOP_MEDICATION_COMMAND__MEDICATION__POST_SEARCH'));
    assert.ok(isEventName('EDUCATIONAL_MATERIAL_COMMAND__LANGUAGE__POST_SEARCH'));
    assert.ok(!isEventName('PLAN_COMMAND__NARRATIVE__POST_SEARCH'));
    assert.ok(!isEventName('PRESCRIBE_COMMAND__INDICATIONS__PRE_SEARCH'));
  });

  it('goal, hpi and plan have no autocomplete field, so no after-search event', () => {
    assert.deepEqual([SEARCH_FIELDS.goal, SEARCH_FIELDS.hpi, SEARCH_FIELDS.plan], [[], [], []]);
    for (const prefix of ['GOAL', 'HISTORY_OF_PRESENT_ILLNESS', 'PLAN']) {
      assert.deepEqual(
        EVENT_NAMES.filter((n) => n.startsWith(`${prefix}_COMMAND__`) && n.endsWith('__POST_SEARCH')),
        [],
      );
    }
  });

  it('every after-search event maps back to its kind and field', () => {
    const names = EVENT_NAMES.filter((n) => n.endsWith('__POST_SEARCH'));
    assert.equal(names.length, 21);
    for (const name of names) {
      const found = searchEventField(name);
      assert.ok(found, name);
      assert.equal(searchEvent(found.kind, found.field as never), name);
    }
    assert.equal(searchEventField('PLAN_COMMAND__POST_COMMIT'), undefined);
  });

  it('refuses a field that is not an autocomplete field of the kind', () => {
    assert.throws(() => searchEvent('plan', 'narrative' as never), /plan has no autocomplete field "narrative"/);
    assert.throws(() => searchEvent('task' as 'plan', 'x' as never), /unknown command kind "task"/);
  });
});

describe('createEvent', () => {
  it('builds a command event the way the instance sends it: id, command, previous, fields, note, patient, actor, depth', () => {
    const event = createEvent('PLAN_COMMAND__POST_COMMIT', {
      target: 'c-1',
      fields: { narrative: 'x' },
      note: 'n-1',
      patient: 'p-1',
      actor: 'staff-1',
      id: 'e-1',
      depth: 1,
    });
    const command: CommandSnapshot = {
      uuid: 'c-1',
      state: 'committed',
      created_at: '2026-01-01T00:00:00.000000Z',
      updated_at: '2026-01-01T00:00:00.000000Z',
      schema_key: 'plan',
      patient_key: 'p-1',
      note_key: 'n-1',
      originated_by: 'staff-1',
      edited_by: ['staff-1'],
      committed_by: 'staff-1',
      entered_in_error_by: null,
      data: { narrative: 'x' },
    };
    assert.deepEqual(event, {
      id: 'e-1',
      type: 'PLAN_COMMAND__POST_COMMIT',
      target: { id: 'c-1', type: 'command' },
      context: {
        command,
        previous: { ...command, state: 'staged', committed_by: null },
        fields: { narrative: 'x' },
        note: { uuid: 'n-1' },
        patient: { key: 'p-1' },
      },
      actor: { id: 'staff-1' },
      depth: 1,
    });
  });

  it('fills the command consistently: the kind of the event, the state its action leaves, no previous on originate', () => {
    const originated = createEvent('HISTORY_OF_PRESENT_ILLNESS_COMMAND__PRE_ORIGINATE', { target: 'c' });
    assert.equal(originated.context.command.schema_key, 'hpi');
    assert.equal(originated.context.command.state, 'staged');
    assert.deepEqual(originated.context.command.edited_by, []);
    assert.equal(originated.context.previous, null);
    assert.deepEqual(originated.context.fields, {});
    assert.equal(originated.context.patient.key, originated.context.command.patient_key);
    assert.equal(originated.context.note.uuid, originated.context.command.note_key);
    assert.equal(originated.depth, 0);
    assert.match(originated.id, /^[0-9a-f-]{36}$/);

    const erred = createEvent('LAB_ORDER_COMMAND__POST_ENTER_IN_ERROR', { target: 'c', actor: 's' });
    assert.equal(erred.context.command.state, 'entered_in_error');
    assert.equal(erred.context.command.entered_in_error_by, 's');
    assert.equal(erred.context.previous?.state, 'committed');
    assert.equal(erred.context.previous?.entered_in_error_by, null);

    const generic = createEvent('POST_COMMAND_UPDATE', { target: 'c', kind: 'prescribe', fields: { sig: 'daily' } });
    assert.equal(generic.context.command.schema_key, 'prescribe');
    assert.deepEqual(generic.context.command.data, { sig: 'daily' });
    assert.equal(createEvent('PRE_COMMAND_DELETE', { target: 'c' }).context.command.schema_key, 'plan');
  });

  it('lets a test set any member of the command, and the previous command', () => {
    const previous = createEvent('PLAN_COMMAND__POST_UPDATE', { target: 'c', fields: { narrative: 'old' } }).context.command;
    const event = createEvent('PLAN_COMMAND__POST_UPDATE', {
      target: 'c',
      fields: { narrative: 'new' },
      command: { updated_at: '2026-02-02T00:00:00.000001Z', originated_by: 'someone' },
      previous,
    });
    assert.equal(event.context.command.updated_at, '2026-02-02T00:00:00.000001Z');
    assert.equal(event.context.command.originated_by, 'someone');
    assert.deepEqual(event.context.previous?.data, { narrative: 'old' });
    assert.deepEqual(event.context.fields, { narrative: 'new' });
  });

  it('builds an after-search event with its field, term and results', () => {
    const results = [option('Asthma', 'J45')];
    const event = createSearchEvent('PRESCRIBE_COMMAND__INDICATIONS__POST_SEARCH', { term: 'asth', results, actor: 'staff-1', id: 'e-2' });
    assert.deepEqual(event, {
      id: 'e-2',
      type: 'PRESCRIBE_COMMAND__INDICATIONS__POST_SEARCH',
      target: { id: 'prescribe.indications', type: 'field' },
      context: { schema_key: 'prescribe', field: 'indications', search_term: 'asth', results },
      actor: { id: 'staff-1' },
      depth: 0,
    });
    assert.throws(() => createSearchEvent('PLAN_COMMAND__POST_COMMIT' as SearchEventName, {}), /unknown after-search event name/);
    assert.throws(() => createEvent('DIAGNOSE_COMMAND__DIAGNOSE__POST_SEARCH' as 'PLAN_COMMAND__POST_COMMIT', { target: 'x' }), /unknown event name/);
  });

  it('refuses an unknown event name', () => {
    assert.throws(
      () => createEvent('NOPE_COMMAND__POST_COMMIT' as 'PLAN_COMMAND__POST_COMMIT', { target: 'x' }),
      /unknown event name "NOPE_COMMAND__POST_COMMIT"/,
    );
    assert.throws(() => createEvent('NOTE_LOCKED' as 'PLAN_COMMAND__POST_COMMIT', { target: 'x' }), /unknown event name "NOTE_LOCKED"/);
  });

  it('builds a note event the way the instance sends it: the note after the change, the note before it, its patient', () => {
    const locked = createNoteEvent('NOTE_PRE_LOCK', { target: 'n-1', patient: 'p-1', actor: 'staff-1', id: 'e-3' });
    assert.deepEqual(locked, {
      id: 'e-3',
      type: 'NOTE_PRE_LOCK',
      target: { id: 'n-1', type: 'note' },
      context: {
        note: {
          uuid: 'n-1',
          patient_key: 'p-1',
          note_type: 'encounter',
          title: 'Office visit',
          locked: true,
          deleted: false,
          takes_commands: false,
          created_at: '2026-01-01T00:00:00.000000Z',
          updated_at: '2026-01-01T00:00:00.000000Z',
        },
        previous: {
          uuid: 'n-1',
          patient_key: 'p-1',
          note_type: 'encounter',
          title: 'Office visit',
          locked: false,
          deleted: false,
          takes_commands: true,
          created_at: '2026-01-01T00:00:00.000000Z',
          updated_at: '2026-01-01T00:00:00.000000Z',
        },
        patient: { key: 'p-1' },
      },
      actor: { id: 'staff-1' },
      depth: 0,
    });
    const created = createNoteEvent('NOTE_CREATED', { note: { note_type: 'letter', title: 'To Dr Who' } });
    assert.equal(created.context.previous, null);
    assert.equal(created.context.note.takes_commands, false, 'a letter takes no commands');
    assert.equal(created.context.note.title, 'To Dr Who');
    const deleted = createNoteEvent('NOTE_DELETED', { depth: 2 });
    assert.deepEqual([deleted.context.note.deleted, deleted.context.previous?.deleted, deleted.depth], [true, false, 2]);
    assert.throws(() => createNoteEvent('PATIENT_CREATED' as 'NOTE_CREATED'), /unknown note event name "PATIENT_CREATED"/);
  });

  it('builds a patient event: the patient (its key among the rest) after the change, and before it', () => {
    const created = createPatientEvent('PATIENT_CREATED', { target: 'p-2', patient: { first_name: 'Grace' } });
    assert.deepEqual(created.target, { id: 'p-2', type: 'patient' });
    assert.equal(created.context.patient.key, 'p-2');
    assert.equal(created.context.patient.first_name, 'Grace');
    assert.equal(created.context.previous, null);
    assert.deepEqual(createPatientEvent('PATIENT_PRE_UPDATE').context.previous, createPatientEvent('PATIENT_PRE_UPDATE').context.patient);
    assert.throws(() => createPatientEvent('NOTE_CREATED' as 'PATIENT_CREATED'), /unknown patient event name "NOTE_CREATED"/);
  });
});

describe('effects', () => {
  it('originate, edit, commit, delete and enter in error carry the original platform shapes', () => {
    assert.deepEqual(originateCommand('plan', 'note-1', { narrative: 'rest' }), {
      type: 'ORIGINATE_PLAN_COMMAND',
      payload: { command: null, note: 'note-1', data: { narrative: 'rest' }, line_number: -1, commit: false },
    });
    assert.equal(originateCommand('hpi', 'n', {}, { commit: true }).payload.commit, true);
    assert.equal(originateCommand('hpi', 'n', {}).type, 'ORIGINATE_HPI_COMMAND');
    assert.deepEqual(editCommand('stopMedication', 'c', { rationale: 'x' }), {
      type: 'EDIT_STOP_MEDICATION_COMMAND',
      payload: { command: 'c', data: { rationale: 'x' } },
    });
    assert.deepEqual(commandStep('ENTER_IN_ERROR', 'labOrder', 'c'), { type: 'ENTER_IN_ERROR_LAB_ORDER_COMMAND', payload: { command: 'c' } });
    assert.throws(() => commandStep('COMMIT', 'task' as 'plan', 'c'), /unknown command kind "task"/);
  });

  it('a banner alert is checked: 1–90 characters, known placements and intent', () => {
    const ok = { patient: 'p', key: 'k', narrative: 'Check BP', placement: ['chart' as const], intent: 'warning' as const };
    assert.equal(addBannerAlert(ok).type, 'ADD_BANNER_ALERT');
    assert.throws(() => addBannerAlert({ ...ok, narrative: 'x'.repeat(91) }), RangeError);
    assert.throws(() => addBannerAlert({ ...ok, narrative: '' }), RangeError);
    assert.throws(() => addBannerAlert({ ...ok, placement: [] }), RangeError);
    assert.throws(() => addBannerAlert({ ...ok, placement: ['wall' as 'chart'] }), /unknown banner placement "wall"/);
    assert.throws(() => addBannerAlert({ ...ok, intent: 'loud' as 'info' }), /unknown banner intent "loud"/);
    assert.deepEqual(removeBannerAlert('p', 'k'), { type: 'REMOVE_BANNER_ALERT', payload: { patient: 'p', key: 'k' } });
  });

  it('patient metadata is checked: a key of 1–100 characters of a-z, 0-9, _ . -, a value of at most 4,096 characters', () => {
    assert.deepEqual(upsertPatientMetadata('p', 'follow-up.interval_days', '14'), {
      type: 'UPSERT_PATIENT_METADATA',
      payload: { patient: 'p', key: 'follow-up.interval_days', value: '14' },
    });
    assert.equal(upsertPatientMetadata('p', 'k'.repeat(100), 'v'.repeat(4096)).payload.value.length, 4096);
    assert.equal(upsertPatientMetadata('p', '0', '').payload.value, '');
    for (const key of ['', 'k'.repeat(101), 'Upper', '-lead', '_lead', 'with space', 'slash/key', 'é']) {
      assert.throws(() => upsertPatientMetadata('p', key, 'v'), RangeError, JSON.stringify(key));
      assert.throws(() => deletePatientMetadata('p', key), RangeError, JSON.stringify(key));
    }
    assert.throws(() => upsertPatientMetadata('p', 'k', 'v'.repeat(4097)), /at most 4096 characters/);
    assert.throws(() => upsertPatientMetadata('p', 'k', 'a\u0000b'), RangeError);
    assert.throws(() => upsertPatientMetadata('p', 'k', 42 as unknown as string), RangeError);
    assert.deepEqual(deletePatientMetadata('p', 'k'), { type: 'DELETE_PATIENT_METADATA', payload: { patient: 'p', key: 'k' } });
  });

  it('a validation error carries its message (1–500 characters) and, when given, the field', () => {
    assert.deepEqual(validationError('An indication is required'), {
      type: 'EVENT_VALIDATION_ERROR',
      payload: { errors: [{ message: 'An indication is required' }] },
    });
    assert.deepEqual(validationError('Pick one', { field: 'indications' }), {
      type: 'EVENT_VALIDATION_ERROR',
      payload: { errors: [{ message: 'Pick one', field: 'indications' }] },
    });
    assert.equal(validationError('x'.repeat(500)).payload.errors[0]?.message.length, 500);
    assert.throws(() => validationError('x'.repeat(501)), RangeError);
    assert.throws(() => validationError(''), RangeError);
    assert.throws(() => validationError(42 as unknown as string), RangeError);
    assert.throws(() => validationError('x', { field: '' }), RangeError);
  });

  it('autocomplete results carry the options list as the payload, copied', () => {
    const options = [option('B', 2), option('A', 1)];
    const effect = autocompleteResults(options);
    assert.deepEqual(effect, { type: 'AUTOCOMPLETE_SEARCH_RESULTS', payload: options });
    assert.notEqual(effect.payload, options);
    assert.deepEqual(autocompleteResults([]).payload, []);
    assert.throws(() => autocompleteResults('x' as never), TypeError);
    assert.throws(() => autocompleteResults([null as never]), TypeError);
  });

  it('every effect a builder makes is one of EFFECT_TYPES, and command effect types map back to their kind', () => {
    assert.equal(EFFECT_TYPES.length, 15 * 5 + 6);
    assert.equal(new Set(EFFECT_TYPES).size, EFFECT_TYPES.length);
    const built: Effect[] = [
      originateCommand('hpi', 'n', {}),
      editCommand('educationalMaterial', 'c', {}),
      commandStep('DELETE', 'reasonForVisit', 'c'),
      addBannerAlert({ patient: 'p', key: 'k', narrative: 'n', placement: ['chart'], intent: 'info' }),
      removeBannerAlert('p', 'k'),
      upsertPatientMetadata('p', 'k', 'v'),
      deletePatientMetadata('p', 'k'),
      validationError('no'),
      autocompleteResults([]),
    ];
    for (const effect of built) assert.ok(isEffectType(effect.type), effect.type);
    assert.ok(!isEffectType('ORIGINATE_HISTORY_OF_PRESENT_ILLNESS_COMMAND'));
    assert.deepEqual(commandEffectOf('ENTER_IN_ERROR_LAB_ORDER_COMMAND'), { kind: 'labOrder', step: 'ENTER_IN_ERROR' });
    assert.deepEqual(commandEffectOf('ORIGINATE_HPI_COMMAND'), { kind: 'hpi', step: 'ORIGINATE' });
    assert.equal(commandEffectOf('ORIGINATE_TASK_COMMAND'), undefined);
    assert.equal(commandEffectOf('ADD_BANNER_ALERT'), undefined);
    assert.throws(() => commandStep('SEND' as 'COMMIT', 'plan', 'c'), /unknown command step "SEND"/);
  });
});

describe('runHandler', () => {
  class Echo extends BaseHandler<'PLAN_COMMAND__POST_COMMIT'> {
    static override readonly RESPONDS_TO: readonly EventName[] = ['PLAN_COMMAND__POST_COMMIT'];
    override acceptEvent(): boolean {
      return this.event.context.fields['narrative'] !== 'skip';
    }
    compute(): Effect[] {
      this.log.info(`saw ${this.event.target.id} with ${this.secrets['TOKEN'] ?? 'no token'}`);
      return [editCommand('plan', this.event.target.id, { narrative: 'seen' })];
    }
  }

  it('runs compute for an event it responds to, with the secrets and logger given', async () => {
    const log = recordingLogger();
    const effects = await runHandler(Echo, createEvent('PLAN_COMMAND__POST_COMMIT', { target: 'c-9', fields: { narrative: 'x' } }), {
      secrets: { TOKEN: 't' },
      log,
    });
    assert.deepEqual(effects, [editCommand('plan', 'c-9', { narrative: 'seen' })]);
    assert.deepEqual(log.lines, [{ level: 'info', message: 'saw c-9 with t' }]);
  });

  it('gives nothing for other events or when acceptEvent() declines', async () => {
    const other = createEvent('PLAN_COMMAND__PRE_COMMIT', { target: 'c' });
    assert.deepEqual(await runHandler(Echo as never, other), []);
    assert.deepEqual(await runHandler(Echo, createEvent('PLAN_COMMAND__POST_COMMIT', { target: 'c', fields: { narrative: 'skip' } })), []);
  });
});

describe('typed handlers', () => {
  // An after-search handler sees the search's context; a command handler the command's.
  class Reorder extends BaseHandler<'PRESCRIBE_COMMAND__INDICATIONS__POST_SEARCH'> {
    static override readonly RESPONDS_TO: readonly EventName[] = ['PRESCRIBE_COMMAND__INDICATIONS__POST_SEARCH'];
    compute(): Effect[] {
      const { results, search_term } = this.event.context;
      return [autocompleteResults([...results].reverse().map((o) => ({ ...o, annotations: [`for ${search_term}`] })))];
    }
  }
  class RequireIndication extends BaseHandler<'PRESCRIBE_COMMAND__PRE_COMMIT'> {
    static override readonly RESPONDS_TO: readonly EventName[] = ['PRESCRIBE_COMMAND__PRE_COMMIT'];
    compute(): Effect[] {
      const indications = this.event.context.command.data['indications'];
      return Array.isArray(indications) && indications.length > 0 ? [] : [validationError('A prescription needs an indication', { field: 'indications' })];
    }
  }

  it('an after-search handler reorders and annotates the results', async () => {
    const event = createSearchEvent('PRESCRIBE_COMMAND__INDICATIONS__POST_SEARCH', { term: 'a', results: [option('One', 1), option('Two', 2)] });
    const [effect] = await runHandler(Reorder, event);
    assert.deepEqual(
      (effect?.payload as AutocompleteOption[]).map((o) => [o.text, o.annotations]),
      [
        ['Two', ['for a']],
        ['One', ['for a']],
      ],
    );
  });

  it('a note PRE handler sees the note it is given (typed) and may refuse the change', async () => {
    class NoLockWithoutTitle extends BaseHandler<'NOTE_PRE_LOCK'> {
      static override readonly RESPONDS_TO: readonly EventName[] = ['NOTE_PRE_LOCK'];
      compute(): Effect[] {
        const { note, previous, patient } = this.event.context;
        return note.title === '' && previous?.locked === false && patient.key === note.patient_key
          ? [validationError('A note needs a title to be locked')]
          : [];
      }
    }
    assert.deepEqual(await runHandler(NoLockWithoutTitle, createNoteEvent('NOTE_PRE_LOCK', { note: { title: '' } })), [
      validationError('A note needs a title to be locked'),
    ]);
    assert.deepEqual(await runHandler(NoLockWithoutTitle, createNoteEvent('NOTE_PRE_LOCK')), []);
  });

  it('a PRE handler answers a validation error from the command it is given', async () => {
    const without = createEvent('PRESCRIBE_COMMAND__PRE_COMMIT', { target: 'c', fields: { indications: [] } });
    assert.deepEqual(await runHandler(RequireIndication, without), [validationError('A prescription needs an indication', { field: 'indications' })]);
    const withOne = createEvent('PRESCRIBE_COMMAND__PRE_COMMIT', { target: 'c', fields: { indications: [option('Asthma', 'J45')] } });
    assert.deepEqual(await runHandler(RequireIndication, withOne), []);
  });

  it('an event is plain JSON: it survives a round trip unchanged, as it crosses into the sandbox', () => {
    const events: PluginEvent[] = [
      createEvent('PLAN_COMMAND__POST_COMMIT', { target: 'c', fields: { narrative: 'x' } }),
      createSearchEvent('DIAGNOSE_COMMAND__DIAGNOSE__POST_SEARCH', {}),
      createNoteEvent('NOTE_UNLOCKED'),
      createPatientEvent('PATIENT_CREATED'),
    ];
    for (const event of events) assert.deepEqual(JSON.parse(JSON.stringify(event)), event);
  });
});

describe('docs/plugins.md', () => {
  const doc = fs.readFileSync(new URL('../../../docs/plugins.md', import.meta.url), 'utf8');

  it('names every after-search event, every note, patient and plugin event, every kind prefix and the generic events', () => {
    const missing = EVENT_NAMES.filter((n) => n.endsWith('__POST_SEARCH') || /^(PLUGIN|NOTE|PATIENT)_/.test(n)).filter((n) => !doc.includes(`\`${n}\``));
    assert.deepEqual(missing, []);
    for (const prefix of Object.values(COMMAND_EVENT_PREFIXES)) assert.ok(doc.includes(`| \`${prefix}\` |`), prefix);
    assert.ok(doc.includes('`PRE_COMMAND_<ACTION>`') && doc.includes('`POST_COMMAND_<ACTION>`'));
  });

  it('lists every effect type in its Effects table', () => {
    const rows = EFFECT_TYPES.map((t) => t.replace(/^(ORIGINATE|EDIT|COMMIT|DELETE|ENTER_IN_ERROR)_.+_COMMAND$/, '$1_<KEY>_COMMAND'));
    const missing = [...new Set(rows)].filter((t) => !doc.includes(`| \`${t}\` |`));
    assert.deepEqual(missing, []);
  });
});

describe('package', () => {
  it('SDK_VERSION is the package version', () => {
    const pkg = JSON.parse(fs.readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
    assert.equal(SDK_VERSION, pkg.version);
  });

  it('slugify turns a plugin name into the name the instance uses', () => {
    assert.equal(slugify('Plugin Boilerplate'), 'plugin-boilerplate');
    assert.equal(slugify('  __Vitals--Alert 2__ '), 'vitals-alert-2');
  });

  it('parseManifest reports bad JSON and schema errors as reasons', () => {
    assert.deepEqual(parseManifest(Buffer.from('{')), { ok: false, reasons: [`CHARTA_MANIFEST.json: not valid JSON (${jsonError('{')})`] });
    const result = validateManifest({ ...manifestWith({}), components: [] });
    assert.deepEqual(result.ok ? [] : result.reasons, ['CHARTA_MANIFEST.json: /components must be object']);
  });
});

function jsonError(text: string): string {
  try {
    JSON.parse(text);
    return '';
  } catch (err) {
    return (err as Error).message;
  }
}

function manifestWith(handler: Partial<{ events: string[] }>): object {
  return {
    sdk_version: SDK_VERSION,
    plugin_version: '1.0.0',
    name: 'Test',
    description: '',
    components: { handlers: [{ entry: 'handlers.js', class: 'Echo', events: ['PLAN_COMMAND__POST_COMMIT'], description: '', ...handler }] },
  };
}

function option(text: string, value: string | number): AutocompleteOption {
  return { text, disabled: false, description: null, annotations: null, extra: { coding: [] }, value };
}

describe('outside the instance: this.cache and this.data', () => {
  it('memoryCache keeps JSON copies, honours ttl, and says whether delete found the key', async () => {
    const cache = memoryCache();
    const value = { n: 1, list: [1, 2] };
    await cache.set('k', value);
    value.n = 2;
    assert.deepEqual(await cache.get('k'), { n: 1, list: [1, 2] }, 'a copy, as the instance keeps JSON');
    assert.equal(await cache.get('missing'), null);
    await cache.set('brief', 'x', { ttl: 0.05 });
    assert.equal(await cache.get('brief'), 'x');
    await new Promise((resolve) => setTimeout(resolve, 80));
    assert.equal(await cache.get('brief'), null, 'past its ttl');
    assert.equal(await cache.delete('k'), true);
    assert.equal(await cache.delete('k'), false);
    await assert.rejects(
      cache.set('fn', () => 1),
      /must be JSON/,
    );
  });

  it('noData refuses every read with a DataError', async () => {
    const error = await noData()
      .patients.get('x')
      .catch((e: unknown) => e);
    assert.ok(isDataError(error));
    assert.equal(error.code, 'failed');
    assert.equal(isDataError(new Error('plain')), false);
  });
});

describe('route handlers', () => {
  it('createRouteEvent builds the SIMPLE_API_REQUEST event: the raw body as JSON of the body, lower-cased headers, a content type only for a JSON body', () => {
    const e = createRouteEvent({ method: 'POST', path: '/hooks/a', route: '/hooks/:id', params: { id: 'a' }, body: { n: 1 }, headers: { 'X-Sig': 's' } });
    assert.equal(e.type, 'SIMPLE_API_REQUEST');
    assert.deepEqual(e.target, { id: 'POST /hooks/:id', type: 'route' });
    assert.deepEqual(e.context.request.route, { method: 'POST', path: '/hooks/:id' });
    assert.equal(e.context.request.raw_body, '{"n":1}');
    assert.deepEqual(e.context.request.headers, { 'content-type': 'application/json', 'x-sig': 's' });
    const bare = createRouteEvent({ path: '/x' });
    assert.deepEqual(
      [bare.context.request.method, bare.context.request.body, bare.context.request.raw_body, bare.context.request.headers],
      ['GET', null, '', {}],
    );
  });

  it('RouteHandler.compute() answers the response first, then its effects', async () => {
    class Hook extends RouteHandler {
      static override readonly ROUTES: readonly RouteDeclaration[] = [{ method: 'GET', path: '/x', public: true }];
      override handle(): RouteResponse {
        return { status: 201, body: 'made', effects: [originateCommand('instruct', EXAMPLE_IDS.note, { comment: 'c' })] };
      }
    }
    const effects = await runHandler(Hook, createRouteEvent({ path: '/x' }));
    assert.deepEqual(effects, [routeResponse({ status: 201, body: 'made' }), originateCommand('instruct', EXAMPLE_IDS.note, { comment: 'c' })]);
  });
});
