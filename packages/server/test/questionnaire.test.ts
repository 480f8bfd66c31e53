// A questionnaire command's questions become its fields once a questionnaire is chosen, on both
// engines: /fields/ lists `question-<id>` typed by response kind (text, integer, single and
// multiple choice with the question's options), PATCH checks answers against them (400 naming
// the question), the questionnaire and its answers can come in one request, answers to another
// questionnaire's questions are dropped when it changes, and the answered command commits.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ENGINES, TEST_API_KEY, startInstance, type Instance } from './support/harness.ts';

const C = '/core/api/v1/commands';

for (const engine of ENGINES) {
  describe(`questionnaire questions as fields (${engine})`, () => {
    let api: Instance;
    let intake: { value: string; questions: Array<{ pk: string; code: string; options: Array<{ pk: string; text: string }> }> };
    let other: { value: string };
    const q = (code: string) => intake.questions.find((x) => x.code === code)!;
    const field = (code: string) => `question-${q(code).pk}`;

    before(async () => {
      api = await startInstance(engine);
      const admin = async (body: unknown) => {
        const r = await api.call('POST', '/core/api/v1/admin/questionnaires/', { body, authorization: TEST_API_KEY });
        assert.equal(r.status, 201, r.text);
      };
      await admin({
        code: 'TEST-INTAKE',
        name: 'Test intake',
        questions: [
          { code: 'allergies', label: 'Allergies', kind: 'TXT' },
          { code: 'cigarettes', label: 'Cigarettes per day', kind: 'INT' },
          {
            code: 'smoker',
            label: 'Do you smoke?',
            kind: 'SING',
            options: [
              { code: 'y', text: 'Yes' },
              { code: 'n', text: 'No' },
            ],
          },
          {
            code: 'symptoms',
            label: 'Symptoms',
            kind: 'MULT',
            options: [
              { code: 'f', text: 'Fever' },
              { code: 'c', text: 'Cough' },
              { code: 'h', text: 'Headache' },
            ],
          },
        ],
      });
      await admin({ code: 'TEST-OTHER', name: 'Test other', questions: [{ code: 'mood', label: 'Mood', kind: 'TXT' }] });
      const { uuid } = await api.command('questionnaire');
      const options = (await api.call('GET', `${C}/${uuid}/fields/questionnaire/autocomplete/?search_term=test`)).json as Array<{
        text: string;
        value: string;
      }>;
      const pick = (name: string) => options.find((o) => o.text === name)!;
      intake = { value: pick('Test intake').value, questions: JSON.parse(pick('Test intake').value).extra.questions };
      other = { value: pick('Test other').value };
    });
    after(async () => api?.stop());

    it('/fields/ adds one field per question once a questionnaire is chosen', async () => {
      const { uuid } = await api.command('questionnaire');
      const bare = (await api.call('GET', `${C}/${uuid}/fields/`)).json.fields.map((f: { name: string }) => f.name);
      assert.deepEqual(bare, ['questionnaire', 'result']);
      await api.call('PATCH', `${C}/${uuid}/`, { body: { values: { questionnaire: intake.value } } });
      const fields = (await api.call('GET', `${C}/${uuid}/fields/`)).json.fields;
      assert.deepEqual(
        fields.slice(2).map((f: Record<string, unknown>) => [f.name, f.type, f.required]),
        [
          [field('allergies'), 'MultiLineTextField', false],
          [field('cigarettes'), 'IntegerField', false],
          [field('smoker'), 'ChoiceField', false],
          [field('symptoms'), 'MultipleChoiceField', false],
        ],
      );
      assert.deepEqual(
        fields[4].choices,
        q('smoker').options.map((o) => ({ value: o.pk, text: o.text })),
      );
      // Each question carries its text as the field's label; the kind's own fields have none.
      assert.deepEqual(
        fields.map((f: { label?: string }) => f.label),
        [undefined, undefined, 'Allergies', 'Cigarettes per day', 'Do you smoke?', 'Symptoms'],
      );
    });

    it("a scored questionnaire's answers carry their points in /fields/; an unscored one's carry none", async () => {
      const often = (code: string, label: string) => ({
        code,
        label,
        kind: 'SING',
        options: ['Not at all', 'Several days', 'More than half the days', 'Nearly every day'].map((text, score) => ({ code: String(score), text, score })),
      });
      const made = await api.call('POST', '/core/api/v1/admin/questionnaires/', {
        body: {
          code: 'TEST-SCORED',
          name: 'Test scored',
          questions: [often('s1', 'Nervous'), often('s2', 'Worrying'), { code: 'note', label: 'Notes', kind: 'TXT' }],
        },
        authorization: TEST_API_KEY,
      });
      assert.equal(made.status, 201, made.text);
      assert.deepEqual(
        made.json.questions[0].options.map((o: { score: number }) => o.score),
        [0, 1, 2, 3],
      );
      const { uuid } = await api.command('questionnaire');
      const [scored] = (await api.call('GET', `${C}/${uuid}/fields/questionnaire/autocomplete/?search_term=scored`)).json as Array<{ value: string }>;
      await api.call('PATCH', `${C}/${uuid}/`, { body: { values: { questionnaire: scored!.value } } });
      const questions = (await api.call('GET', `${C}/${uuid}/fields/`)).json.fields.slice(2) as Array<{ choices: Array<{ text: string; score?: number }> }>;
      for (const q of questions.slice(0, 2))
        assert.deepEqual(
          q.choices.map((c) => [c.text, c.score]),
          [
            ['Not at all', 0],
            ['Several days', 1],
            ['More than half the days', 2],
            ['Nearly every day', 3],
          ],
        );
      assert.deepEqual(questions[2]!.choices, []);
      // An unscored questionnaire's answers carry none.
      const plain = await api.command('questionnaire');
      await api.call('PATCH', `${C}/${plain.uuid}/`, { body: { values: { questionnaire: intake.value } } });
      const smoker = (await api.call('GET', `${C}/${plain.uuid}/fields/`)).json.fields[4] as { choices: Array<Record<string, unknown>> };
      assert.ok(smoker.choices.every((c) => !('score' in c)));
    });

    it('answers are checked against their questions; the questionnaire and its answers may come together', async () => {
      const { uuid } = await api.command('questionnaire');
      const yes = q('smoker').options[0]!.pk;
      const [fever, cough] = q('symptoms').options.map((o) => o.pk);
      const values = {
        questionnaire: intake.value,
        [field('allergies')]: 'Penicillin',
        [field('cigarettes')]: 10,
        [field('smoker')]: yes,
        [field('symptoms')]: [fever, cough],
      };
      const r = await api.call('PATCH', `${C}/${uuid}/`, { body: { values } });
      assert.equal(r.status, 200, r.text);
      assert.equal(r.json.data[field('cigarettes')], 10);
      assert.deepEqual(r.json.data[field('symptoms')], [fever, cough]);

      const bad: Array<[Record<string, unknown>, string]> = [
        [{ [field('cigarettes')]: 'ten' }, field('cigarettes')],
        [{ [field('smoker')]: 'maybe' }, field('smoker')],
        [{ [field('symptoms')]: [fever, fever] }, `${field('symptoms')}[1]`],
        [{ [field('symptoms')]: ['nope'] }, `${field('symptoms')}[0]`],
        [{ 'question-00000000-0000-4000-8000-000000000000': 'x' }, 'question-00000000-0000-4000-8000-000000000000'],
      ];
      for (const [answer, name] of bad) {
        const refused = await api.call('PATCH', `${C}/${uuid}/`, { body: { values: answer } });
        assert.equal(refused.status, 400, refused.text);
        assert.equal(refused.json.errors[0].field, `values.${name}`, refused.text);
      }
      const unchanged = await api.call('GET', `${C}/${uuid}`);
      assert.deepEqual(unchanged.json.data, r.json.data, 'nothing written by the refused requests');

      const committed = await api.call('POST', `${C}/${uuid}/commit/`);
      assert.equal(committed.status, 200, committed.text);
      assert.equal(committed.json.data[field('allergies')], 'Penicillin');
    });

    it('answers before a questionnaire is chosen are refused; changing the questionnaire drops the old answers', async () => {
      const { uuid } = await api.command('questionnaire');
      const early = await api.call('PATCH', `${C}/${uuid}/`, { body: { values: { [field('allergies')]: 'None' } } });
      assert.equal(early.status, 400);
      assert.equal(early.json.errors[0].field, `values.${field('allergies')}`);
      await api.call('PATCH', `${C}/${uuid}/`, { body: { values: { questionnaire: intake.value, [field('allergies')]: 'None' } } });
      const switched = await api.call('PATCH', `${C}/${uuid}/`, { body: { values: { questionnaire: other.value } } });
      assert.equal(switched.status, 200, switched.text);
      assert.deepEqual(Object.keys(switched.json.data), ['questionnaire']);
      const cleared = await api.call('PATCH', `${C}/${uuid}/`, { body: { values: { questionnaire: intake.value, [field('allergies')]: 'Dust' } } });
      const removed = await api.call('PATCH', `${C}/${uuid}/`, { body: { values: { questionnaire: null } } });
      assert.equal(cleared.status, 200);
      assert.deepEqual(removed.json.data, {}, 'no questionnaire, no answers');
    });
  });
}
