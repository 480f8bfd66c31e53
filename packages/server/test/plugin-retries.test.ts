// No POST event lost (docs/plugins.md, "Delivery and guarantees" and "Faults"), on each engine,
// with real plugins installed through the plugin API: a call cut off by the runner's SIGKILL is
// delivered again and its effect applied once; a handler that always times out is called the
// configured number of times with growing gaps, then kept as a dead letter, listed, replayed once a
// fixed version runs (its effect applied once) or discarded, each write audited; a handler that
// threw is not called again; an event in back-off holds the later events of its command, and a
// handler already done with it is not called again; and the dead-letter endpoints' bad input.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DatabaseUnavailableError } from '../src/storage/errors.ts';
import { ENGINES, TEST_API_KEY, TEST_CLIENT_ID, TEST_CLIENT_SECRET, request, startInstance, type Instance } from './support/harness.ts';
import { runtimeWatch } from './support/plugins.ts';
import { until } from './support/until.ts';
import { nowMicros, parseTimestampMicros } from '../src/lib/time.ts';
import { insertDeadLetter } from '../src/storage/plugin-dead-letters-repository.ts';

const C = '/core/api/v1/commands';
const P = '/core/api/v1/plugins';
const ATTEMPTS = 3;
const BASE_MS = 100;

/** A POST_COMMIT handler that runs 1.5 s (long enough for a test to cut it off), logs the event and originates an instruct. */
const slowFollowUp = (comment: string) => [
  {
    className: 'FollowUp',
    events: ['PLAN_COMMAND__POST_COMMIT'],
    compute: `    for (const end = Date.now() + 1500; Date.now() < end; );
    this.log.info('delivered ' + this.event.id);
    return [{ type: 'ORIGINATE_INSTRUCT_COMMAND', payload: { command: null, note: this.event.context.note.uuid, data: { comment: ${JSON.stringify(comment)} }, line_number: -1 } }];`,
  },
];

for (const engine of ENGINES) {
  describe(`plugin event retries and dead letters (${engine})`, () => {
    let api: Instance;
    const { entries, lines, failures, settled, commandsOf, install, update, disable } = runtimeWatch(() => api);
    const admin = (method: string, path: string) => api.call(method, path, { authorization: TEST_API_KEY });
    const letters = async (plugin: string) => {
      const r = await admin('GET', `${P}/${plugin}/dead-letters/`);
      assert.equal(r.status, 200, r.text);
      return r.json as { count: number; next: string | null; previous: string | null; results: Array<Record<string, any>> };
    };
    const runner = () => api.app.pluginRuntime.runner;
    const commit = async (uuid: string) => {
      const r = await api.call('POST', `${C}/${uuid}/commit/`);
      assert.equal(r.status, 200, r.text);
      return r.headers.get('x-request-id')!;
    };
    const micros = (timestamp: string) => parseTimestampMicros(timestamp)!;

    before(async () => {
      api = await startInstance(engine, { pluginDeliveryAttempts: ATTEMPTS, pluginRetryBaseMs: BASE_MS });
    });
    after(async () => api?.stop());

    it("the plugin's isolate ended during a POST call: the event is delivered again and its effect applied exactly once", async () => {
      await install('isolated', slowFollowUp('after the end'), { limits: { timeout_ms: 4000 } });
      const pid = runner().pid;
      const plan = await api.command('plan', { narrative: 'Recheck' });
      await commit(plan.uuid);
      await until('the call under way', () => runner().begun > 0);
      await runner().endIsolate('isolated');
      await until('the crash line', () => failures('isolated').find((e) => /crashed the sandbox: the plugin's isolate failed/.test(e.event)));
      await until('the instruct', async () => (await commandsOf(plan.noteKey)).some((c) => c.schema_key === 'instruct'));
      await settled();
      const instructs = (await commandsOf(plan.noteKey)).filter((c) => c.schema_key === 'instruct');
      assert.equal(instructs.length, 1, JSON.stringify(instructs));
      assert.equal(lines('isolated').filter((e) => e.event.startsWith('delivered ')).length, 1);
      assert.equal(runner().pid, pid, 'only the isolate was ended, not the runner');
      assert.equal((await letters('isolated')).count, 0);
      await disable('isolated');
    });

    it('storage failing while an answer is applied: the event is delivered again and each effect applied once', async () => {
      await install('writer', [
        {
          className: 'FollowUp',
          events: ['PLAN_COMMAND__POST_COMMIT'],
          compute: `    this.log.info('delivered ' + this.event.id);
    return [{ type: 'ORIGINATE_INSTRUCT_COMMAND', payload: { command: null, note: this.event.context.note.uuid, data: { comment: 'written once' }, line_number: -1 } }];`,
        },
      ]);
      // The database goes away once, at the write of the effect itself (the first write after the
      // answer's reservation of effects).
      const storage = api.storage;
      const transact = storage.transact;
      let reserved = false;
      let failed = 0;
      storage.transact = ((work: Parameters<typeof transact>[0]) => {
        // (Not the audit rows of the test's own reads: AuditBatch writes them through transact too.)
        if (reserved && failed === 0 && !String(work).includes('writeAuditBatch')) {
          failed++;
          return Promise.reject(new DatabaseUnavailableError('the database went away (test)'));
        }
        if (String(work).includes('reserveEffects')) reserved = true;
        return transact.call(storage, work);
      }) as typeof transact;
      try {
        const plan = await api.command('plan', { narrative: 'Write it' });
        await commit(plan.uuid);
        await until('the instruct', async () => (await commandsOf(plan.noteKey)).some((c) => c.schema_key === 'instruct'));
        await settled();
        assert.equal(failed, 1);
        assert.equal((await commandsOf(plan.noteKey)).filter((c) => c.schema_key === 'instruct').length, 1);
        assert.equal(lines('writer').filter((e) => e.event.startsWith('delivered ')).length, 2, 'called again after the failure');
        assert.ok(
          failures('writer').some((e) => /the database went away \(test\)/.test(e.event)),
          JSON.stringify(failures('writer')),
        );
        assert.equal((await letters('writer')).count, 0);
      } finally {
        storage.transact = transact;
      }
      await disable('writer');
    });

    it('the runner killed with SIGKILL during a POST call: the event is delivered again and its effect applied exactly once', async () => {
      await install('survivor', slowFollowUp('after the crash'), { limits: { timeout_ms: 4000 } });
      const plan = await api.command('plan', { narrative: 'Recheck' });
      await commit(plan.uuid);
      await until('the call under way', () => runner().begun > 0);
      const killed = runner().pid!;
      process.kill(killed, 'SIGKILL');
      await until('the crash line', () => failures('survivor').find((e) => /crashed the sandbox: .*died \(signal SIGKILL\)/.test(e.event)));
      await until('the instruct', async () => (await commandsOf(plan.noteKey)).some((c) => c.schema_key === 'instruct'));
      await settled();
      assert.notEqual(runner().pid, killed);
      const instructs = (await commandsOf(plan.noteKey)).filter((c) => c.schema_key === 'instruct');
      assert.equal(instructs.length, 1, JSON.stringify(instructs));
      assert.equal(instructs[0]!.originated_by, 'plugin:survivor');
      assert.equal(lines('survivor').filter((e) => e.event.startsWith('delivered ')).length, 1);
      assert.ok(
        entries('survivor').some(
          (e) => e.level === 'warning' && new RegExp(`is given the event again in ${BASE_MS} ms \\(attempt 2 of ${ATTEMPTS}\\)`).test(e.event),
        ),
        JSON.stringify(entries('survivor')),
      );
      assert.equal((await letters('survivor')).count, 0);
      await disable('survivor');
    });

    it(`a handler that always times out is called ${ATTEMPTS} times with growing gaps, then kept as a dead letter: listed, replayed once fixed, discarded, each audited`, async () => {
      await install('always-late', [{ className: 'Late', events: ['PLAN_COMMAND__POST_COMMIT'], compute: '    for (;;) {}' }], { limits: { timeout_ms: 100 } });
      const plans = [await api.command('plan', { narrative: 'one' }), await api.command('plan', { narrative: 'two' })];
      const requests = [await commit(plans[0]!.uuid), await commit(plans[1]!.uuid)];
      await until(
        'two dead letters',
        async () => (await letters('always-late')).count === 2,
        20_000,
        () => JSON.stringify(entries('always-late')),
      );
      await settled();

      for (const requestId of requests) {
        const timeouts = failures('always-late').filter(
          (e) => e.request_id === requestId && /ran longer than its 100 ms deadline; its runtime was replaced/.test(e.event),
        );
        assert.equal(timeouts.length, ATTEMPTS, JSON.stringify(timeouts));
        // Waits of 100 ms, then 400 ms, announced by a warning line each; each gap between two
        // faults holds its wait (and the next call's 100 ms deadline).
        const waits = entries('always-late')
          .filter((e) => e.request_id === requestId && e.level === 'warning')
          .map((e) => /is given the event again in (\d+) ms \(attempt (\d) of 3\)$/.exec(e.event)?.slice(1).map(Number));
        assert.deepEqual(waits, [
          [BASE_MS, 2],
          [4 * BASE_MS, 3],
        ]);
        const at = timeouts.map((e) => micros(e.timestamp) / 1000);
        const gaps = at.slice(1).map((t, i) => t - at[i]!);
        assert.ok(gaps[0]! >= BASE_MS + 100 && gaps[1]! >= 4 * BASE_MS + 100, `gaps ${gaps.join(', ')}`);
        const given = failures('always-late').filter(
          (e) => e.request_id === requestId && new RegExp(`still failed after ${ATTEMPTS} attempt\\(s\\)`).test(e.event),
        );
        assert.equal(given.length, 1, JSON.stringify(given));
        assert.match(given[0]!.event, /the event is kept as dead letter \d+$/);
      }

      const listed = await letters('always-late');
      assert.equal(listed.count, 2);
      assert.deepEqual([listed.next, listed.previous], [null, null]);
      // Newest first.
      assert.ok(listed.results[0]!.id > listed.results[1]!.id);
      for (const letter of listed.results) {
        assert.deepEqual(Object.keys(letter).sort(), [
          'attempts',
          'command',
          'created_at',
          'event',
          'event_id',
          'event_type',
          'failed_at',
          'handler',
          'id',
          'last_error',
          'plugin',
          'request_id',
          'target',
        ]);
        assert.equal(letter.plugin, 'always-late');
        assert.equal(letter.handler, 'dist/handlers.js:Late');
        assert.equal(letter.event_type, 'PLAN_COMMAND__POST_COMMIT');
        assert.equal(letter.attempts, ATTEMPTS);
        assert.match(letter.last_error, /^ran longer than its 100 ms deadline/);
        assert.equal(letter.event.id, letter.event_id);
        assert.equal(letter.event.type, 'PLAN_COMMAND__POST_COMMIT');
        assert.equal(letter.event.target.id, letter.command);
        assert.deepEqual(letter.target, { type: 'command', id: letter.command });
      }
      const byCommand = new Map(listed.results.map((l) => [l.command as string, l]));
      const [replayed, discarded] = [byCommand.get(plans[0]!.uuid)!, byCommand.get(plans[1]!.uuid)!];
      assert.equal(replayed.request_id, requests[0]);
      const paged = await admin('GET', `${P}/always-late/dead-letters/?limit=1`);
      assert.equal(paged.json.count, 2);
      assert.deepEqual(
        paged.json.results.map((l: { id: number }) => l.id),
        [listed.results[0]!.id],
      );
      assert.match(paged.json.next, /\/core\/api\/v1\/plugins\/always-late\/dead-letters\/\?limit=1&offset=1$/);

      // A fixed version answers an effect; the replay goes to it once, keeping the event's id.
      await update('always-late', [
        {
          className: 'Late',
          events: ['PLAN_COMMAND__POST_COMMIT'],
          compute: `    this.log.info('fixed ' + this.event.id);
    return [{ type: 'ORIGINATE_INSTRUCT_COMMAND', payload: { command: null, note: this.event.context.note.uuid, data: { comment: 'replayed' }, line_number: -1 } }];`,
        },
      ]);
      const replay = await admin('POST', `${P}/always-late/dead-letters/${replayed.id}/replay/`);
      assert.equal(replay.status, 202, replay.text);
      assert.deepEqual(replay.json, replayed);
      await until('the replayed instruct', async () => (await commandsOf(plans[0]!.noteKey)).some((c) => c.schema_key === 'instruct'));
      await settled();
      const instructs = (await commandsOf(plans[0]!.noteKey)).filter((c) => c.schema_key === 'instruct');
      assert.equal(instructs.length, 1, JSON.stringify(instructs));
      assert.deepEqual(
        lines('always-late').map((e) => e.event),
        [`fixed ${replayed.event_id}`],
      );
      assert.deepEqual(
        (await letters('always-late')).results.map((l) => l.id),
        [discarded.id],
      );
      const again = await admin('POST', `${P}/always-late/dead-letters/${replayed.id}/replay/`);
      assert.equal(again.status, 404, again.text);
      assert.equal(again.json.code, 'dead_letter_not_found');

      const discard = await admin('DELETE', `${P}/always-late/dead-letters/${discarded.id}/`);
      assert.equal(discard.status, 204, discard.text);
      assert.equal((await letters('always-late')).count, 0);
      assert.equal((await admin('DELETE', `${P}/always-late/dead-letters/${discarded.id}/`)).status, 404);
      assert.equal((await commandsOf(plans[1]!.noteKey)).filter((c) => c.schema_key === 'instruct').length, 0);

      const audit = await api.storage.db
        .selectFrom('audit_events')
        .select(['action', 'entity_id', 'before', 'after', 'credential'])
        .where('entity_type', '=', 'plugin_dead_letter')
        .orderBy('id')
        .execute();
      assert.deepEqual(
        audit.map((a) => [a.action, a.entity_id]),
        [
          ['plugin.dead_letter_replayed', String(replayed.id)],
          ['plugin.dead_letter_discarded', String(discarded.id)],
        ],
      );
      assert.deepEqual(JSON.parse(audit[0]!.before!), replayed);
      assert.deepEqual(JSON.parse(audit[0]!.after!), { outbox_event_id: `${replayed.event_id}:replay:${replayed.id}` });
      assert.deepEqual(JSON.parse(audit[1]!.before!), discarded);
      assert.equal(audit[1]!.after, null);
      await disable('always-late');
    });

    it('a handler that threw is not called again, and leaves no dead letter', async () => {
      await install('thrower', [{ className: 'Boom', events: ['PLAN_COMMAND__POST_COMMIT'], compute: "    throw new Error('boom');" }]);
      const plan = await api.command('plan', { narrative: 'Throw' });
      const requestId = await commit(plan.uuid);
      await until('the fault', () => failures('thrower').find((e) => e.request_id === requestId));
      await settled();
      const faults = failures('thrower').filter((e) => e.request_id === requestId);
      assert.equal(faults.length, 1, JSON.stringify(faults));
      assert.match(faults[0]!.event, /threw Error: boom/);
      assert.ok(!entries('thrower').some((e) => e.level === 'warning'));
      assert.equal((await letters('thrower')).count, 0);
      await disable('thrower');
    });

    it('an event in back-off holds the later events of its command; a handler already done is not called again', async () => {
      const narrate = (prefix: string, slow: boolean) => ({
        className: 'Narrate',
        events: ['PLAN_COMMAND__POST_UPDATE'],
        compute: `    const narrative = this.event.context.fields.narrative;
    ${slow ? "if (narrative === 'step 0') for (const end = Date.now() + 1500; Date.now() < end; );" : ''}
    this.log.info('${prefix} ' + narrative);
    return [];`,
      });
      // a-first answers at once; b-slow's first call on step 0 is long (the plugins are called side by side).
      await install('a-first', [narrate('first', false)]);
      await install('b-slow', [narrate('slow', true)], { limits: { timeout_ms: 4000 } });
      const plan = await api.command('plan');
      for (let i = 0; i < 3; i++) {
        const r = await api.call('PATCH', `${C}/${plan.uuid}/`, { body: { values: { narrative: `step ${i}` } } });
        assert.equal(r.status, 200, r.text);
      }
      // a-first answered step 0 and b-slow's call runs: the runner dies under it.
      await until('b-slow called on step 0', () => lines('a-first').length === 1 && runner().begun > 0);
      process.kill(runner().pid!, 'SIGKILL');
      await until(
        'every line',
        () => lines('b-slow').length === 3,
        20_000,
        () => JSON.stringify(entries()),
      );
      await settled();
      assert.deepEqual(
        lines('a-first').map((e) => e.event),
        ['first step 0', 'first step 1', 'first step 2'],
      );
      assert.deepEqual(
        lines('b-slow').map((e) => e.event),
        ['slow step 0', 'slow step 1', 'slow step 2'],
      );
      // Step 1 waited for step 0's second attempt, for both plugins.
      const order = entries()
        .filter((e) => e.source === 'plugin' && (e.plugin === 'a-first' || e.plugin === 'b-slow'))
        .map((e) => e.event);
      const retried = order.indexOf('slow step 0');
      assert.ok(retried >= 0 && order.slice(0, retried).every((line) => line.endsWith('step 0')), JSON.stringify(order));
      assert.equal(failures('b-slow').filter((e) => /crashed the sandbox/.test(e.event)).length, 1);
      await disable('a-first');
      await disable('b-slow');
    });

    it("a disabled plugin's dead letter is not replayed (400 plugin_disabled); a plugin's dead letters are deleted with it", async () => {
      await install('gone-soon', [{ className: 'Gone', events: ['PLAN_COMMAND__POST_COMMIT'], compute: '    return [];' }]);
      const plan = await api.command('plan');
      const event = { id: 'e-1', type: 'PLAN_COMMAND__POST_COMMIT', target: { id: plan.uuid, type: 'command' } };
      const letter = (plugin: string) =>
        insertDeadLetter(api.storage.db, {
          plugin_name: plugin,
          handler: 'dist/handlers.js:Gone',
          event_id: event.id,
          event_type: event.type,
          target_type: 'command',
          target_id: plan.uuid,
          payload: JSON.stringify(event),
          depth: 0,
          request_id: null,
          root_id: event.id,
          attempts: ATTEMPTS,
          last_error: 'ran longer than its 100 ms deadline',
          created_at: nowMicros(),
          failed_at: nowMicros(),
        });
      const id = await letter('gone-soon');
      const other = await letter('another-plugin');
      await disable('gone-soon');
      const refused = await admin('POST', `${P}/gone-soon/dead-letters/${id}/replay/`);
      assert.equal(refused.status, 400, refused.text);
      assert.equal(refused.json.code, 'plugin_disabled');
      assert.equal((await letters('gone-soon')).count, 1);
      // Another plugin's letter is not this plugin's.
      assert.equal((await admin('DELETE', `${P}/gone-soon/dead-letters/${other}/`)).status, 404);
      assert.equal((await admin('DELETE', `${P}/gone-soon/`)).status, 204);
      const left = await api.storage.db
        .selectFrom('plugin_dead_letters')
        .select(['id', 'plugin_name'])
        .where('plugin_name', 'in', ['gone-soon', 'another-plugin'])
        .execute();
      assert.deepEqual(
        left.map((l) => [Number(l.id), l.plugin_name]),
        [[other, 'another-plugin']],
      );
    });

    it('bad input: an unknown plugin or letter is 404, a malformed id 400, no credentials 401, a token without the plugin scope 403', async () => {
      await install('quiet', [{ className: 'Quiet', events: ['PLAN_COMMAND__POST_COMMIT'], compute: '    return [];' }]);
      for (const [method, path] of [
        ['GET', `${P}/no-such-plugin/dead-letters/`],
        ['POST', `${P}/no-such-plugin/dead-letters/1/replay/`],
        ['DELETE', `${P}/no-such-plugin/dead-letters/1/`],
      ] as const) {
        const r = await admin(method, path);
        assert.equal(r.status, 404, `${method} ${path}: ${r.text}`);
        assert.equal(r.json.code, 'plugin_not_found');
      }
      for (const [method, path] of [
        ['POST', `${P}/quiet/dead-letters/987654/replay/`],
        ['DELETE', `${P}/quiet/dead-letters/987654/`],
      ] as const) {
        const r = await admin(method, path);
        assert.equal(r.status, 404, `${method} ${path}: ${r.text}`);
        assert.equal(r.json.code, 'dead_letter_not_found');
      }
      for (const id of ['abc', '0', '-1', '1.5', '1e3', '99999999999999999999', '%20']) {
        for (const [method, path] of [
          ['POST', `${P}/quiet/dead-letters/${id}/replay/`],
          ['DELETE', `${P}/quiet/dead-letters/${id}/`],
        ] as const) {
          const r = await admin(method, path);
          assert.equal(r.status, 400, `${method} ${path}: ${r.text}`);
          assert.equal(r.json.code, 'validation_failed');
        }
      }
      const bad = await admin('GET', `${P}/quiet/dead-letters/?limit=0`);
      assert.equal(bad.status, 400, bad.text);
      assert.equal((await api.call('GET', `${P}/quiet/dead-letters/`, { token: null })).status, 401);
      const narrow = await request(
        api.url,
        'POST',
        '/auth/token/',
        {
          raw: {
            contentType: 'application/x-www-form-urlencoded',
            data: `grant_type=client_credentials&client_id=${TEST_CLIENT_ID}&client_secret=${TEST_CLIENT_SECRET}&scope=${encodeURIComponent('user/*.*')}`,
          },
          token: null,
        },
        '',
      );
      for (const [method, path] of [
        ['GET', `${P}/quiet/dead-letters/`],
        ['POST', `${P}/quiet/dead-letters/1/replay/`],
        ['DELETE', `${P}/quiet/dead-letters/1/`],
      ] as const) {
        const r = await api.call(method, path, { token: narrow.json.access_token });
        assert.equal(r.status, 403, `${method} ${path}: ${r.text}`);
      }
      await disable('quiet');
    });
  });
}
