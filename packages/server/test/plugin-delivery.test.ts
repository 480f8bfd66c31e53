// Delivery guarantees of POST events and the effects they return (docs/plugins.md, "Effects"), on
// each engine, with real plugins installed through the plugin API and run in the sandbox: the
// events of one command in order, an event delivered again (an expired claim) applying each effect
// once, a chain of effects stopped at MAX_EVENT_DEPTH with a warning, banner alerts added and
// removed, after-search handlers reordering and annotating options (and refused when they invent
// one), and every effect the instance cannot apply reported as a failure line.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { ENGINES, startInstance, type Instance } from './support/harness.ts';
import { changeGrants, runtimeWatch } from './support/plugins.ts';
import { until } from './support/until.ts';
import { MAX_EVENT_DEPTH } from '../src/runtime/index.ts';
import { commandEvent } from '../src/runtime/events.ts';
import { insertPluginEvent } from '../src/storage/plugin-events-repository.ts';
import { nowMicros } from '../src/lib/time.ts';

const C = '/core/api/v1/commands';

for (const engine of ENGINES) {
  describe(`plugin event delivery (${engine})`, () => {
    let api: Instance;
    const { entries, lines, failures, settled, commandsOf, install, disable } = runtimeWatch(() => api);

    before(async () => {
      api = await startInstance(engine, { demo: true });
    });
    after(async () => api?.stop());

    it('the events of one command are delivered in the order of the changes', async () => {
      await install('order-log', [
        {
          className: 'Narrate',
          events: ['PLAN_COMMAND__POST_UPDATE'],
          compute: `    const narrative = this.event.context.fields.narrative;
    // The first call is slow, so that the next events wait in the outbox together.
    if (narrative === 'step 0') for (const end = Date.now() + 300; Date.now() < end; );
    this.log.info('narrative ' + narrative);
    return [];`,
        },
      ]);
      const plan = await api.command('plan');
      const sent: string[] = [];
      for (let i = 0; i < 10; i++) {
        const narrative = `step ${i}`;
        const r = await api.call('PATCH', `${C}/${plan.uuid}/`, { body: { values: { narrative } } });
        assert.equal(r.status, 200, r.text);
        sent.push(`narrative ${narrative}`);
      }
      await until('ten lines', () => lines('order-log').length >= 10);
      await settled();
      assert.deepEqual(
        lines('order-log').map((e) => e.event),
        sent,
      );
      await disable('order-log');
    });

    it('an event delivered again (its claim expired) applies each effect once', async () => {
      await install('redeliver', [
        {
          className: 'FollowUp',
          events: ['PLAN_COMMAND__POST_COMMIT'],
          compute: `    this.log.info('delivered ' + this.event.id);
    return [
      { type: 'ORIGINATE_INSTRUCT_COMMAND', payload: { command: null, note: this.event.context.note.uuid, data: { comment: 'once' }, line_number: -1 } },
      { type: 'ADD_BANNER_ALERT', payload: { patient: this.event.context.patient.key, key: 'once', narrative: 'Once only', placement: ['chart'], intent: 'info' } },
    ];`,
        },
      ]);
      const plan = await api.command('plan', { narrative: 'Recheck' });
      const committed = await api.call('POST', `${C}/${plan.uuid}/commit/`);
      assert.equal(committed.status, 200, committed.text);
      await until('the first delivery', async () => (await commandsOf(plan.noteKey)).some((c) => c.schema_key === 'instruct'));
      await settled();
      const first = lines('redeliver').filter((e) => e.event.startsWith('delivered '));
      assert.equal(first.length, 1);
      const eventId = first[0]!.event.slice('delivered '.length);

      // The same event again, as the outbox holds it while a process that claimed it has died
      // after applying its effects and before deleting it: its claim has expired.
      const snapshot = (await api.call('GET', `${C}/${plan.uuid}/`)).json;
      const payload = commandEvent(
        eventId,
        'PLAN_COMMAND__POST_COMMIT',
        { action: 'COMMIT', command: snapshot, previous: null },
        { staffKey: 'x', requestId: 'r', depth: 0 },
      );
      await insertPluginEvent(api.storage.db, {
        event_id: eventId,
        target_type: 'command',
        target_id: plan.uuid,
        event_type: 'PLAN_COMMAND__POST_COMMIT',
        payload: JSON.stringify(payload),
        depth: 0,
        request_id: 'redelivered',
        root_id: eventId,
        created_at: nowMicros(),
      });
      await api.storage.db
        .updateTable('plugin_events')
        .set({ claimed_by: 'a-process-that-died', claimed_until: nowMicros() - 1, attempts: 1 })
        .where('event_id', '=', eventId)
        .execute();
      api.app.pluginRuntime.committed();
      await until('the second delivery', () => lines('redeliver').filter((e) => e.event === `delivered ${eventId}`).length === 2);
      await settled();

      const instructs = (await commandsOf(plan.noteKey)).filter((c) => c.schema_key === 'instruct');
      assert.equal(instructs.length, 1, JSON.stringify(instructs));
      assert.equal(instructs[0]!.data.comment, 'once');
      const banners = await api.call('GET', `/core/api/v1/patients/${snapshot.patient_key}/banner-alerts/`);
      assert.equal(banners.json.count, 1);
      assert.deepEqual(failures('redeliver'), []);
      await disable('redeliver');
    });

    it(`a chain of effects stops at depth ${MAX_EVENT_DEPTH} with a warning naming the depth`, async () => {
      await install('chain', [
        {
          className: 'Again',
          events: ['INSTRUCT_COMMAND__POST_ORIGINATE'],
          compute: `    this.log.info('depth ' + this.event.depth);
    return [{ type: 'ORIGINATE_INSTRUCT_COMMAND', payload: { command: null, note: this.event.context.note.uuid, data: { comment: 'depth ' + (this.event.depth + 1) }, line_number: -1 } }];`,
        },
      ]);
      const first = await api.command('instruct', { comment: 'start' });
      const limit = MAX_EVENT_DEPTH;
      const warning = await until('the depth warning', () =>
        entries().find((e) => e.level === 'warning' && e.event_type === 'INSTRUCT_COMMAND__POST_ORIGINATE' && /chained/.test(e.event)),
      );
      await settled();
      assert.match(warning.event, new RegExp(`chained ${limit + 1} events deep \\(limit ${limit}\\)`));
      // Events at depths 0..limit were delivered; each originated one more instruct.
      assert.deepEqual(
        lines('chain').map((e) => e.event),
        Array.from({ length: limit + 1 }, (_, d) => `depth ${d}`),
      );
      const instructs = (await commandsOf(first.noteKey)).filter((c) => c.schema_key === 'instruct');
      assert.equal(instructs.length, limit + 2);
      assert.equal(instructs.filter((c) => c.originated_by === 'plugin:chain').length, limit + 1);
      await disable('chain');
    });

    it('banner alert effects: added on a POST event, removed on another, as the patient read shows', async () => {
      await install('banners', [
        {
          className: 'Flag',
          events: ['GOAL_COMMAND__POST_ORIGINATE', 'GOAL_COMMAND__POST_DELETE'],
          compute: `    const patient = this.event.context.patient.key;
    if (this.event.type === 'GOAL_COMMAND__POST_ORIGINATE')
      return [{ type: 'ADD_BANNER_ALERT', payload: { patient, key: 'goal', narrative: 'Goal: ' + this.event.context.command.uuid, placement: ['chart', 'timeline'], intent: 'warning' } }];
    return [{ type: 'REMOVE_BANNER_ALERT', payload: { patient, key: 'goal' } }];`,
        },
      ]);
      const goal = await api.command('goal', { goal_statement: 'Walk daily' });
      const patient = goal.json.patient_key as string;
      const read = async () => (await api.call('GET', `/core/api/v1/patients/${patient}/banner-alerts/`)).json;
      const added = await until('the banner', async () => ((await read()).count === 1 ? await read() : undefined));
      assert.deepEqual(
        { ...added.results[0], created_at: undefined, updated_at: undefined },
        {
          plugin: 'banners',
          key: 'goal',
          narrative: `Goal: ${goal.uuid}`,
          placement: ['chart', 'timeline'],
          intent: 'warning',
          created_at: undefined,
          updated_at: undefined,
        },
      );
      assert.equal((await api.call('DELETE', `${C}/${goal.uuid}/`)).status, 200);
      await until('the banner removed', async () => (await read()).count === 0);
      await settled();
      assert.deepEqual(failures('banners'), []);
      await disable('banners');
    });

    it('an after-search handler reorders and annotates the options; an invented option is refused and the originals served', async () => {
      const diagnose = await api.command('diagnose');
      const search = (term: string) => api.call('GET', `${C}/${diagnose.uuid}/fields/diagnose/autocomplete/?search_term=${term}`);
      // Two search terms that find options in the demo data.
      const found: Array<{ term: string; options: Array<{ text: string; value: string }> }> = [];
      for (const t of ['a', 'e', 'i', 'o', 'h', 'd', 'c', 'p']) {
        const r = await search(t);
        assert.equal(r.status, 200, r.text);
        if (r.json.length >= 2) found.push({ term: t, options: r.json });
        if (found.length === 2) break;
      }
      assert.equal(found.length, 2, 'the demo data has diagnose options');
      const [{ term, options: original }, { term: otherTerm, options: otherOriginal }] = found as [(typeof found)[0], (typeof found)[0]];
      await install('ranker', [
        {
          className: 'Rank',
          events: ['DIAGNOSE_COMMAND__DIAGNOSE__POST_SEARCH'],
          compute: `    const results = this.event.context.results;
    if (this.event.context.search_term === ${JSON.stringify(term)})
      return [{ type: 'AUTOCOMPLETE_SEARCH_RESULTS', payload: results.slice().reverse().map((o, i) => (i === 0 ? { ...o, annotations: ['Preferred'] } : o)) }];
    return [{ type: 'AUTOCOMPLETE_SEARCH_RESULTS', payload: [{ text: 'Invented', value: 'ZZZ.999', disabled: false, description: null, annotations: null, extra: {} }, ...results] }];`,
        },
      ]);
      const ranked = await search(term);
      assert.equal(ranked.status, 200, ranked.text);
      // An option on the wire is {text, value}, its value the option document as JSON.
      const docs = (options: Array<{ value: string }>) => options.map((o) => JSON.parse(o.value) as Record<string, unknown>);
      const expected = docs(original).reverse();
      expected[0] = { ...expected[0], annotations: ['Preferred'] };
      assert.deepEqual(docs(ranked.json), expected);
      assert.deepEqual(
        ranked.json.map((o: { text: string }) => o.text),
        expected.map((o) => o.text),
      );
      assert.deepEqual(failures('ranker'), []);

      // For any other term the handler invents an option: an error line, and the options as found.
      const refused = await search(otherTerm);
      assert.equal(refused.status, 200, refused.text);
      assert.deepEqual(refused.json, otherOriginal);
      const lines = failures('ranker');
      assert.equal(lines.length, 1, JSON.stringify(lines));
      assert.match(lines[0]!.event, /AUTOCOMPLETE_SEARCH_RESULTS was not applied: option 0 is not one of the options the event carried/);
      assert.equal(lines[0]!.event_type, 'DIAGNOSE_COMMAND__DIAGNOSE__POST_SEARCH');
      assert.equal(lines[0]!.request_id, refused.headers.get('x-request-id'));
      await disable('ranker');
    });

    it('an effect the instance cannot apply is an error line with success false, never silent', async () => {
      await install('misfit', [
        {
          className: 'Wrong',
          events: ['GOAL_COMMAND__POST_ORIGINATE'],
          compute: `    const goal = this.event.context.command.uuid;
    return [
      { type: 'SUMMON_COMMAND', payload: {} },
      { type: 'COMMIT_PLAN_COMMAND', payload: { command: goal } },
      { type: 'ORIGINATE_INSTRUCT_COMMAND', payload: { command: null, note: ${JSON.stringify(crypto.randomUUID())}, data: {}, line_number: -1 } },
      { type: 'ADD_BANNER_ALERT', payload: { patient: this.event.context.patient.key, key: 'k', narrative: '', placement: ['chart'], intent: 'info' } },
      { type: 'EVENT_VALIDATION_ERROR', payload: { errors: [{ message: 'too late' }] } },
      { type: 'EDIT_GOAL_COMMAND', payload: { command: goal, data: { goal_statement: 'Applied' } } },
    ];`,
        },
      ]);
      // The goal is the client's: only this grant lets the plugin's effects reach it (docs/plugins.md, "Grants").
      await changeGrants(api.url, 'misfit', { grant: ['effects:any-command'] });
      const goal = await api.command('goal', { goal_statement: 'Swim' });
      const lines = await until('five failure lines', () => (failures('misfit').length >= 5 ? failures('misfit') : undefined));
      await settled();
      assert.equal(failures('misfit').length, 5, JSON.stringify(failures('misfit')));
      const texts = lines.map((l) => l.event);
      const expect = [
        /effect 0 \(SUMMON_COMMAND\) was not applied: SUMMON_COMMAND is not an effect Charta knows/,
        /effect 1 \(COMMIT_PLAN_COMMAND\) was not applied: .*is a goal command, not plan/,
        /effect 2 \(ORIGINATE_INSTRUCT_COMMAND\) was not applied: 400 note_does_not_exist/,
        /effect 3 \(ADD_BANNER_ALERT\) was not applied: .*narrative/,
        /effect 4 \(EVENT_VALIDATION_ERROR\) was not applied/,
      ];
      for (const [i, re] of expect.entries()) assert.match(texts[i] ?? '', re);
      for (const l of lines) {
        assert.equal(l.level, 'error');
        assert.equal(l.handler, 'dist/handlers.js:Wrong');
        assert.equal(l.event_type, 'GOAL_COMMAND__POST_ORIGINATE');
        assert.equal(l.request_id, goal.headers.get('x-request-id'));
      }
      // The effects after the failures were still applied.
      assert.equal((await api.call('GET', `${C}/${goal.uuid}/`)).json.data.goal_statement, 'Applied');
      await disable('misfit');
    });
  });
}
