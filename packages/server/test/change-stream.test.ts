// The change stream (docs/api.md, "Change stream") on both engines: a client following a patient
// (or one note) is told of each command and note change once it is committed, with what changed,
// how and by whom (a plugin's effect by the plugin), and nothing of other patients or notes; the
// credentials and scope are the Commands API's, in the header or in the first message.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ENGINES, startInstance, TEST_API_KEY, type Instance } from './support/harness.ts';
import { openJsonSocket } from './support/websockets.ts';
import { installPlugin, untilRunning } from './support/plugins.ts';
import { signalOf, signalPayload } from '../src/signals/pg-relay.ts';

const C = '/core/api/v1/commands';

for (const engine of ENGINES) {
  describe(`the change stream (${engine})`, () => {
    let api: Instance;
    const ws = (query: string) => `${api.url.replace(/^http/, 'ws')}/core/api/v1/changes/?${query}`;

    before(async () => {
      api = await startInstance(engine);
    });
    after(async () => api?.stop());

    it("tells a client following a patient of each change of its commands and notes, once committed, and nothing of another patient's", async () => {
      const { patientKey, noteKey } = await api.note();
      const other = await api.note();
      const socket = await openJsonSocket(ws(`patient_key=${patientKey}`), { authorization: `Bearer ${api.token}` });
      await api.call('POST', `${C}/`, { body: { schemaKey: 'plan', noteKey: other.noteKey, values: { narrative: 'not theirs' } } });
      const created = await api.call('POST', `${C}/`, { body: { schemaKey: 'plan', noteKey, values: { narrative: 'x' } } });
      assert.equal((await api.call('POST', `${C}/${created.json.uuid}/commit/`)).status, 200);
      assert.equal((await api.call('POST', `/core/api/v1/notes/${noteKey}/lock/`)).status, 200);
      const messages = await socket.upTo(3);
      assert.deepEqual(
        messages.map((m: any) => [m.type, m.patient_key, m.note_key, m.target.type, m.target.id, m.action]),
        [
          ['changed', patientKey, noteKey, 'command', created.json.uuid, 'created'],
          ['changed', patientKey, noteKey, 'command', created.json.uuid, 'committed'],
          ['changed', patientKey, noteKey, 'note', noteKey, 'locked'],
        ],
      );
      assert.equal((messages[0] as any).actor, created.json.originated_by);
      assert.ok(!JSON.stringify(messages).includes('narrative'), 'never the content');
      socket.close();
    });

    it('follows one note when asked; a plugin effect says the plugin changed it', async () => {
      const { patientKey, noteKey } = await api.note();
      const second = await api.call('POST', '/core/api/v1/notes/', { body: { patientKey, noteType: 'encounter' } });
      await installPlugin(api.url, 'stream-nudge', [
        {
          className: 'Nudge',
          events: ['PLAN_COMMAND__POST_COMMIT'],
          compute:
            "    return [{ type: 'ORIGINATE_INSTRUCT_COMMAND', payload: { command: null, note: this.event.context.note.uuid, data: { comment: 'next' }, line_number: -1, commit: false } }];",
        },
      ]);
      await untilRunning(api.url, 'stream-nudge');
      // First-message authentication, as a browser does it.
      const socket = await openJsonSocket(ws(`patient_key=${patientKey}&note_key=${noteKey}`));
      socket.ws.send(JSON.stringify({ type: 'auth', token: api.token }));
      await socket.upTo(1);
      assert.deepEqual(socket.messages[0], { type: 'ready' });
      await api.call('POST', `${C}/`, { body: { schemaKey: 'plan', noteKey: second.json.uuid, values: {} } });
      const plan = await api.call('POST', `${C}/`, { body: { schemaKey: 'plan', noteKey, values: { narrative: 'y' } } });
      await api.call('POST', `${C}/${plan.json.uuid}/commit/`);
      const messages = await socket.upTo(4, 15_000);
      assert.deepEqual(
        messages.slice(1).map((m: any) => [m.note_key, m.target.type, m.action, m.actor.startsWith('plugin:') ? m.actor : 'staff']),
        [
          [noteKey, 'command', 'created', 'staff'],
          [noteKey, 'command', 'committed', 'staff'],
          [noteKey, 'command', 'created', 'plugin:stream-nudge'],
        ],
      );
      socket.close();
      assert.equal((await api.call('DELETE', '/core/api/v1/plugins/stream-nudge/?force=true', { authorization: TEST_API_KEY })).status, 204);
    });

    it("takes the Commands API's credentials only: an API key is 403 (4403 in a first message), no credentials 401, a bad key 400", async () => {
      const { patientKey } = await api.note();
      await assert.rejects(openJsonSocket(ws(`patient_key=${patientKey}`), { authorization: TEST_API_KEY }), /unexpected 403/);
      await assert.rejects(openJsonSocket(ws(`patient_key=${patientKey}`), { authorization: 'Bearer nope' }), /unexpected 401/);
      await assert.rejects(openJsonSocket(ws('patient_key=not-a-key'), { authorization: `Bearer ${api.token}` }), /unexpected 400/);
      const keyed = await openJsonSocket(ws(`patient_key=${patientKey}`));
      keyed.ws.send(JSON.stringify({ type: 'auth', token: TEST_API_KEY }));
      assert.equal((await keyed.closed).code, 4403);
      const plain = await api.call('GET', `/core/api/v1/changes/?patient_key=${patientKey}`);
      assert.equal(plain.status, 426);
    });
  });
}

describe('the record-changed signal between processes', () => {
  it('crosses the relay as it was sent, and a malformed one is dropped', () => {
    const signal = {
      type: 'record-changed' as const,
      patient: 'a'.repeat(32),
      note: '00000000-0000-4000-8000-000000000001',
      target: { type: 'command' as const, id: '00000000-0000-4000-8000-000000000002' },
      action: 'committed',
      actor: 'plugin:x',
    };
    assert.deepEqual(signalOf(signalPayload(signal, 'other'), 'me'), signal);
    assert.equal(signalOf(JSON.stringify({ ...signal, origin: 'other', target: { type: 'patient', id: 'x' } }), 'me'), undefined);
    assert.equal(signalOf(JSON.stringify({ ...signal, origin: 'other', patient: 1 }), 'me'), undefined);
  });
});
