// The patient's chart kept by committed commands, on both engines: diagnose adds an active
// condition that assess offers; medicationStatement and prescribe add active medications that
// stopMedication offers and stops; goal opens a goal that updateGoal offers and changes. Entering
// a command in error undoes exactly what its commit did. Another patient's entries are never
// options; a picked entry stopped meanwhile refuses the commit; the read endpoints list them.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ENGINES, startInstance, type Instance } from './support/harness.ts';

const C = '/core/api/v1/commands';
type Option = { text: string; value: string };
const doc = (o: Option) => JSON.parse(o.value) as { text: string; value: string; extra: { coding: Array<{ code: string; system: string }> } };

for (const engine of ENGINES) {
  describe(`the patient's chart (${engine})`, () => {
    let api: Instance;
    let patient = '';
    let noteKey = '';

    const options = async (uuid: string, field: string, term = '') => {
      const r = await api.call('GET', `${C}/${uuid}/fields/${field}/autocomplete/?search_term=${encodeURIComponent(term)}`);
      assert.equal(r.status, 200, r.text);
      return r.json as Option[];
    };
    /** A staged command of the patient with these values (options picked by autocomplete before). */
    const stage = async (schemaKey: string, values: Record<string, unknown> = {}, note = noteKey) => {
      const r = await api.call('POST', `${C}/`, { body: { schemaKey, noteKey: note, values } });
      assert.equal(r.status, 201, r.text);
      return r.json.uuid as string;
    };
    const patch = async (uuid: string, values: Record<string, unknown>) => {
      const r = await api.call('PATCH', `${C}/${uuid}/`, { body: { values } });
      assert.equal(r.status, 200, r.text);
      return r.json;
    };
    const commit = async (uuid: string, status = 200) => {
      const r = await api.call('POST', `${C}/${uuid}/commit/`);
      assert.equal(r.status, status, r.text);
      return r;
    };
    const enterInError = async (uuid: string) => {
      const r = await api.call('POST', `${C}/${uuid}/enter-in-error/`);
      assert.equal(r.status, 200, r.text);
    };
    const chart = async (what: string, query = '') => {
      const r = await api.call('GET', `/core/api/v1/patients/${patient}/${what}/${query}`);
      assert.equal(r.status, 200, r.text);
      return r.json as { count: number; results: Array<Record<string, any>> };
    };
    /** Commits a command of `kind` whose coded field gets the first option for `term`. */
    const commitCoded = async (kind: string, field: string, term: string, extra: Record<string, unknown> = {}) => {
      const uuid = await stage(kind, extra);
      const [first] = await options(uuid, field, term);
      assert.ok(first, `${kind}.${field} offers something for "${term}"`);
      await patch(uuid, { [field]: first!.value });
      await commit(uuid);
      return { uuid, option: first! };
    };

    before(async () => {
      api = await startInstance(engine);
      ({ patientKey: patient, noteKey } = await api.note());
    });
    after(async () => api?.stop());

    it('diagnose → an active condition, offered by assess (all of them for an empty term); a second diagnose of it is refused', async () => {
      const diabetes = await commitCoded('diagnose', 'diagnose', 'E11.9', { approximate_date_of_onset: '2019-06' });
      await commitCoded('diagnose', 'diagnose', 'I10');
      const conditions = await chart('conditions');
      assert.deepEqual(
        conditions.results.map((c) => c.coding.code),
        ['E11.9', 'I10'],
      );
      assert.equal(conditions.results[0]!.onset, '2019-06');
      assert.equal(conditions.results[0]!.source_command, diabetes.uuid);

      const assess = await stage('assess');
      const offered = await options(assess, 'condition');
      assert.deepEqual(
        offered.map((o) => doc(o).extra.coding[0]!.code),
        ['E11.9', 'I10'],
      );
      assert.match(offered[0]!.text, /\(E11\.9\)$/);
      assert.deepEqual(
        (await options(assess, 'condition', 'hypert')).map((o) => doc(o).extra.coding[0]!.code),
        ['I10'],
      );
      await patch(assess, { condition: offered[0]!.value, status: 'stable' });
      await commit(assess);

      const again = await stage('diagnose');
      await patch(again, { diagnose: diabetes.option.value });
      const refused = await commit(again, 400);
      assert.equal(refused.json.code, 'condition_already_active');
      assert.equal(refused.json.errors[0].field, 'values.diagnose');
      assert.equal((await api.call('GET', `${C}/${again}`)).json.state, 'staged', 'nothing changed');
    });

    it("labOrder.diagnosis and prescribe.indications offer the patient's active conditions first, marked, without repeating them", async () => {
      const mine = await api.note();
      const diagnose = async (term: string) => {
        const uuid = await stage('diagnose', {}, mine.noteKey);
        const [first] = await options(uuid, 'diagnose', term);
        await patch(uuid, { diagnose: first!.value });
        await commit(uuid);
      };
      await diagnose('E11.9');
      await diagnose('M54.50');
      const order = await stage('labOrder', {}, mine.noteKey);
      const all = await options(order, 'diagnosis');
      assert.deepEqual(
        all.map((o) => [doc(o).extra.coding[0]!.code, (doc(o) as { description?: string }).description]),
        [
          ['E11.9', 'Active condition on the chart'],
          ['M54.50', 'Active condition on the chart'],
        ],
      );
      const diabetes = await options(order, 'diagnosis', 'diabetes');
      assert.equal(doc(diabetes[0]!).extra.coding[0]!.code, 'E11.9', 'the active condition leads');
      assert.ok(diabetes.length > 1, 'then the terminology');
      assert.equal(diabetes.filter((o) => doc(o).extra.coding[0]!.code === 'E11.9').length, 1, 'not offered twice');
      await patch(order, { diagnosis: [diabetes[0]!.value] });
      const rx = await stage('prescribe', {}, mine.noteKey);
      const back = await options(rx, 'indications', 'back');
      assert.equal(doc(back[0]!).extra.coding[0]!.code, 'M54.50');
      // Another patient's conditions are never offered.
      const stranger = await api.note();
      assert.deepEqual(
        await options(await stage('labOrder', {}, stranger.noteKey), 'diagnosis'),
        [],
        'a patient with no condition is offered none of the others',
      );
    });

    it('concurrent commits diagnosing the same condition: one adds it, the others are refused', async () => {
      const drafts = await Promise.all(Array.from({ length: 6 }, () => stage('diagnose')));
      const [asthma] = await options(drafts[0]!, 'diagnose', 'J45.909');
      assert.ok(asthma, 'the starter set has J45.909');
      for (const uuid of drafts) await patch(uuid, { diagnose: asthma!.value });
      const answers = await Promise.all(drafts.map((uuid) => api.call('POST', `${C}/${uuid}/commit/`)));
      assert.deepEqual(answers.map((r) => r.status).sort(), [200, 400, 400, 400, 400, 400], answers.map((r) => r.text).join('\n'));
      assert.equal((await chart('conditions')).results.filter((c) => c.coding.code === 'J45.909').length, 1);
    });

    it("another patient's condition is not an option: 400 naming the field", async () => {
      const other = await api.note();
      const theirs = await stage('diagnose', {}, other.noteKey);
      const [option] = await options(theirs, 'diagnose', 'M54.50');
      await patch(theirs, { diagnose: option!.value });
      await commit(theirs);
      const theirAssess = await stage('assess', {}, other.noteKey);
      const [theirCondition] = await options(theirAssess, 'condition');
      const mine = await stage('assess');
      const r = await api.call('PATCH', `${C}/${mine}/`, { body: { values: { condition: theirCondition!.value } } });
      assert.equal(r.status, 400, r.text);
      assert.equal(r.json.errors[0].field, 'values.condition');
      assert.match(r.json.errors[0].message, /is not an active condition of this patient/);
    });

    it('medicationStatement and prescribe → active medications; stopMedication offers and stops one; a stale pick is refused', async () => {
      const statement = await commitCoded('medicationStatement', 'medication', 'amlodipine', { sig: 'one tablet daily' });
      const before = (await chart('medications')).results;
      assert.equal(before.length, 1);
      assert.equal(before[0]!.sig, 'one tablet daily');
      assert.equal(before[0]!.coding.code, doc(statement.option).value);

      const stopA = await stage('stopMedication');
      const stopB = await stage('stopMedication');
      const [med] = await options(stopA, 'medication');
      assert.equal(med!.text, before[0]!.coding.display);
      assert.equal(doc(med!).value, before[0]!.id, 'the option value is the medication entry');
      await patch(stopA, { medication: med!.value, rationale: 'Ankle swelling' });
      await patch(stopB, { medication: med!.value });
      await commit(stopA);
      const stopped = await chart('medications', '?status=stopped');
      assert.deepEqual(
        stopped.results.map((m) => [m.id, m.stopped_by_command]),
        [[before[0]!.id, stopA]],
      );
      assert.deepEqual(await options(stopB, 'medication'), [], 'no active medication left');
      const refused = await commit(stopB, 400);
      assert.equal(refused.json.code, 'chart_entry_not_active');
      assert.equal(refused.json.errors[0].field, 'values.medication');

      // Entering the stop in error makes the medication active again.
      await enterInError(stopA);
      assert.deepEqual(
        (await chart('medications')).results.map((m) => m.id),
        [before[0]!.id],
      );
      await commit(stopB);
      assert.equal((await chart('medications')).count, 0);
    });

    it('concurrent commits stopping the same medication: exactly one wins, the others are refused', async () => {
      await commitCoded('medicationStatement', 'medication', 'lisinopril');
      const stops = await Promise.all(Array.from({ length: 8 }, () => stage('stopMedication')));
      const [med] = await options(stops[0]!, 'medication', 'lisinopril');
      for (const uuid of stops) await patch(uuid, { medication: med!.value });
      const answers = await Promise.all(stops.map((uuid) => api.call('POST', `${C}/${uuid}/commit/`)));
      assert.deepEqual(answers.map((r) => r.status).sort(), [200, 400, 400, 400, 400, 400, 400, 400], answers.map((r) => r.text).join('\n'));
      for (const r of answers.filter((a) => a.status === 400)) assert.equal(r.json.code, 'chart_entry_not_active');
      const stopped = (await chart('medications', '?status=stopped')).results.filter((m) => m.id === doc(med!).value);
      assert.equal(stopped.length, 1);
      assert.ok(stops.includes(stopped[0]!.stopped_by_command), 'stopped by the one that won');
      const states = await Promise.all(stops.map(async (uuid) => (await api.call('GET', `${C}/${uuid}`)).json.state));
      assert.deepEqual(states.sort(), ['committed', 'staged', 'staged', 'staged', 'staged', 'staged', 'staged', 'staged']);
    });

    it('goal → an open goal; updateGoal offers it and changes it; entered in error, the old values come back', async () => {
      const goal = await stage('goal', { goal_statement: 'Walk 30 minutes a day', start_date: '2026-11-01', priority: 'low-priority' });
      await commit(goal);
      const update = await stage('updateGoal');
      const [option] = await options(update, 'goal_statement', 'walk');
      assert.equal(option!.text, 'Walk 30 minutes a day');
      await patch(update, { goal_statement: option!.value, achievement_status: 'achieved', priority: 'high-priority', progress: 'Daily since October' });
      await commit(update);
      assert.equal((await chart('goals')).count, 0, 'an achieved goal is closed');
      const closed = (await chart('goals', '?status=closed')).results[0]!;
      assert.deepEqual([closed.achievement_status, closed.priority, closed.progress], ['achieved', 'high-priority', 'Daily since October']);
      assert.deepEqual(await options(await stage('updateGoal'), 'goal_statement'), [], 'a closed goal is not offered');

      await enterInError(update);
      const reopened = (await chart('goals')).results[0]!;
      assert.deepEqual([reopened.status, reopened.achievement_status, reopened.priority, reopened.progress], ['open', null, 'low-priority', null]);
      await enterInError(goal);
      assert.equal((await chart('goals', '?status=entered_in_error')).count, 1);
      assert.equal((await chart('goals')).count, 0);
    });

    it('a diagnose entered in error takes its condition out of the chart and out of assess', async () => {
      const migraine = await commitCoded('diagnose', 'diagnose', 'migraine');
      const code = doc(migraine.option).value;
      assert.ok((await chart('conditions')).results.some((c) => c.coding.code === code));
      await enterInError(migraine.uuid);
      assert.ok(!(await chart('conditions')).results.some((c) => c.coding.code === code));
      assert.ok((await chart('conditions', '?status=entered_in_error')).results.some((c) => c.coding.code === code));
      const assess = await stage('assess');
      assert.ok(!(await options(assess, 'condition')).some((o) => doc(o).extra.coding[0]!.code === code));
    });

    it('a diagnose stored before picks were checked (an option without a coding) commits as free text', async () => {
      const uuid = await stage('diagnose');
      const legacy = { text: 'Old free text', value: 'old-1', disabled: false, description: null, annotations: null, extra: null };
      await api.storage.db
        .updateTable('commands')
        .set({ data: JSON.stringify({ diagnose: legacy }) })
        .where('uuid', '=', uuid)
        .execute();
      await commit(uuid);
      const condition = (await chart('conditions')).results.find((c) => c.source_command === uuid)!;
      assert.deepEqual(condition.coding, { system: 'UNSTRUCTURED', code: 'Old free text', display: 'Old free text' });
    });

    it('the read endpoints: pagination, status filter, unknown patient, bad status', async () => {
      const page = await chart('conditions', '?limit=1');
      assert.equal(page.results.length, 1);
      assert.ok(page.count >= 2);
      assert.match(String((page as unknown as { next: string }).next), /offset=1/);
      const all = await chart('conditions', '?status=all');
      assert.ok(all.count > page.count);
      const unknown = await api.call('GET', `/core/api/v1/patients/${'0'.repeat(32)}/conditions/`);
      assert.equal(unknown.status, 404);
      const bad = await api.call('GET', `/core/api/v1/patients/${patient}/goals/?status=done`);
      assert.equal(bad.status, 400);
      assert.equal(bad.json.errors[0].field, 'status');
      const keyOnly = await api.call('GET', `/core/api/v1/patients/${patient}/goals/`, { authorization: `Bearer nope` });
      assert.equal(keyOnly.status, 401);
    });
  });
}
