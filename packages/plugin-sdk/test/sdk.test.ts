// @charta/plugin-sdk: event names, event and effect builders, running a handler as the instance
// does, and the manifest validator plugin projects are checked with.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import {
  addBannerAlert,
  BaseHandler,
  commandEvent,
  commandStep,
  COMMAND_EVENT_PREFIXES,
  createEvent,
  editCommand,
  EVENT_NAMES,
  isEventName,
  originateCommand,
  recordingLogger,
  removeBannerAlert,
  runHandler,
  SDK_VERSION,
  slugify,
  type Effect,
  type EventName,
} from '../src/index.ts';
import { parseManifest, validateManifest } from '../src/manifest.ts';

describe('event names', () => {
  it('has ten lifecycle events per kind, the generic ten and the two plugin events, all distinct', () => {
    assert.equal(Object.keys(COMMAND_EVENT_PREFIXES).length, 15);
    assert.equal(EVENT_NAMES.length, 15 * 10 + 10 + 2);
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

  it('every event name passes the manifest schema', () => {
    const result = validateManifest(manifestWith({ events: [...EVENT_NAMES] }));
    assert.deepEqual(result.ok ? [] : result.reasons, []);
  });
});

describe('createEvent', () => {
  it('builds a command event with its fields and note', () => {
    const event = createEvent('PLAN_COMMAND__POST_COMMIT', { target: 'c-1', fields: { narrative: 'x' }, note: 'n-1', patient: 'p-1', actor: 'staff-1' });
    assert.deepEqual(event, {
      type: 'PLAN_COMMAND__POST_COMMIT',
      target: { id: 'c-1', type: 'command' },
      context: { fields: { narrative: 'x' }, note: { uuid: 'n-1' }, patient: { key: 'p-1' } },
      actor: { id: 'staff-1' },
    });
  });

  it('refuses an unknown event name', () => {
    assert.throws(
      () => createEvent('NOPE_COMMAND__POST_COMMIT' as 'PLAN_COMMAND__POST_COMMIT', { target: 'x' }),
      /unknown event name "NOPE_COMMAND__POST_COMMIT"/,
    );
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
