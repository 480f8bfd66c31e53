// The console's clinical pages in headless Chromium (docs/console.md, "Patients and notes", "The
// command editor", "The chart panel"), against a real instance on port 0 with the demo data:
// sign in with the OAuth client, find the demo patient, open the demo encounter note, create and
// commit a plan, pick a diagnosis with the keyboard and commit it (then see the condition in the
// chart panel), a diagnosis given as free text (offered only where the field takes it), a questionnaire's questions, a plugin's validation errors (and the
// banner alert and patient metadata its POST handler writes, in the chart panel), a 400 named next to
// its field, a 412 from a second tab, and a locked note refusing edits. One browser; the second
// tab is a second page of it.
import { after, before, it } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { startInstance, TEST_API_KEY, TEST_CLIENT_ID, TEST_CLIENT_SECRET, type Instance } from '../../server/test/support/harness.ts';
import { installPlugin, untilRunning } from '../../server/test/support/plugins.ts';
import { until } from '../../server/test/support/until.ts';
import { describeInChromium, consoleBuild, launch, outputDir, watchPage } from './support/browser.ts';

const C = '/core/api/v1/commands';

describeInChromium('console in Chromium: patients, notes, the command editor', (executable) => {
  let instance: Instance;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  const failures: string[] = [];
  const shots = outputDir();
  let patientKey: string;
  let encounter: string;

  const watch = (p: Page) => watchPage(p, failures);

  /** Signs a page in with the OAuth client, at `hash`. */
  const signIn = async (p: Page, hash = '') => {
    await p.goto(`${instance.url}/console/${hash}`);
    await fillSignIn(p);
  };
  const fillSignIn = async (p: Page) => {
    await p.getByLabel('OAuth client credentials').check();
    await p.getByLabel('Client id').fill(TEST_CLIENT_ID);
    await p.getByLabel('Client secret').fill(TEST_CLIENT_SECRET);
    await p.getByRole('button', { name: 'Sign in' }).click();
    await p.getByText(`Signed in as client ${TEST_CLIENT_ID}`).waitFor();
  };

  const editor = (p: Page) => p.locator('form.editor');
  const hashOf = (p: Page) => new URL(p.url()).hash;

  before(async () => {
    instance = await startInstance('sqlite', { consoleDir: consoleBuild(), demo: true });
    browser = await launch(executable);
    context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    page = await context.newPage();
    watch(page);
  });
  after(async () => {
    await browser?.close();
    await instance?.stop();
  });

  it('signs in with the OAuth client and finds the demo patient by name', async () => {
    await signIn(page);
    await page.getByRole('link', { name: 'Patients' }).click();
    assert.equal(hashOf(page), '#patients');
    assert.equal(await page.getByRole('navigation').getByRole('link', { name: 'Patients' }).getAttribute('aria-current'), 'page');
    assert.equal(await page.getByRole('navigation').getByRole('link', { name: 'Plugins' }).getAttribute('aria-current'), null);
    await page.getByLabel('Patient name').fill('demo ADA');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.getByRole('status').filter({ hasText: '1 patient found' }).waitFor();
    await page.getByRole('link', { name: 'Ada Demo' }).click();
    await page.getByRole('heading', { name: 'Ada Demo' }).waitFor();
    const m = /^#patients\/([0-9a-f]{32})$/.exec(hashOf(page));
    assert.ok(m, `the patient's page: ${hashOf(page)}`);
    patientKey = m[1]!;
    // Their notes, each with its type, state and times.
    const notes = page.locator('ul.notes > li');
    await notes.first().waitFor();
    assert.equal(await notes.count(), 6);
    const locked = notes.filter({ hasText: 'Locked visit (demo)' });
    assert.match((await locked.textContent()) ?? '', /Encounter · Locked · created \d{4}-\d\d-\d\d \d\d:\d\d UTC/);
    assert.match((await notes.filter({ hasText: 'Deleted visit (demo)' }).textContent()) ?? '', /Deleted/);
    await page.locator('#conditions-title').filter({ hasText: 'Active conditions (0)' }).waitFor();
    await page.screenshot({ path: path.join(shots, 'patient-1280.png'), fullPage: true });
  });

  it('opens the demo encounter note and commits a new plan', async () => {
    await page.getByRole('link', { name: 'Office visit (demo)' }).click();
    await page.getByRole('heading', { name: 'Office visit (demo)' }).waitFor();
    encounter = /^#notes\/(.+)$/.exec(hashOf(page))![1]!;
    await page.getByText('This note has no command yet.').waitFor();
    await page.getByLabel('Add a command of kind').selectOption('plan');
    await page.getByRole('button', { name: 'Add command' }).click();
    await editor(page).getByLabel('Narrative').fill('Follow up in two weeks');
    await editor(page).getByRole('button', { name: 'Save' }).click();
    await editor(page).getByRole('status').filter({ hasText: 'Saved: Narrative.' }).waitFor();
    await editor(page).getByRole('button', { name: 'Commit' }).click();
    await editor(page).getByRole('status').filter({ hasText: 'Committed.' }).waitFor();
    // A committed command offers only "Enter in error", and its inputs are read-only.
    assert.equal(await editor(page).getByRole('button', { name: 'Commit' }).count(), 0);
    assert.equal(await editor(page).getByRole('button', { name: 'Enter in error' }).count(), 1);
    // It reads as text, not as disabled inputs marked "(required to commit)".
    assert.equal(await editor(page).locator('[data-field="narrative"] output').textContent(), 'Follow up in two weeks');
    assert.equal(await editor(page).locator('textarea, input, select').count(), 0);
    assert.equal(await editor(page).getByText('(required to commit)').count(), 0);
    const listed = await instance.call('GET', `${C}?note_key=${encounter}`);
    assert.deepEqual(
      listed.json.results.map((c: { schema_key: string; state: string; data: unknown }) => [c.schema_key, c.state, c.data]),
      [['plan', 'committed', { narrative: 'Follow up in two weeks' }]],
    );
    await page.locator('li[data-kind="plan"] .state-committed').waitFor();
  });

  it('summarises each command in one line; a double click adds one command; an empty one is discarded without a question; a command committed elsewhere and one a plugin adds appear by themselves, the plugin named in a badge', async () => {
    // The committed plan reads as what it says, not only as its kind and state.
    assert.equal(await page.locator('li[data-kind="plan"] .summary').first().textContent(), 'Follow up in two weeks');
    const count = async () => (await instance.call('GET', `${C}?note_key=${encounter}`)).json.count as number;
    const before = await count();
    await page.getByLabel('Add a command of kind').selectOption('hpi');
    await page.getByRole('button', { name: 'Add command' }).dblclick();
    await editor(page).getByRole('button', { name: 'Discard' }).waitFor();
    assert.equal(await count(), before + 1, 'one command for a double click');
    // Nothing in it yet: Discard deletes it at once (no question), and the note is as it was.
    await editor(page).getByRole('button', { name: 'Discard' }).click();
    await until('the empty HPI gone', async () => (await count()) === before);
    await page.locator('li[data-kind="hpi"]').waitFor({ state: 'detached' });
    // A command a plugin originated: the badge names the plugin whole (a staff key is cut to 8 characters).
    await installPlugin(instance.url, 'follow-up-nudger', [
      {
        className: 'Nudge',
        events: ['PLAN_COMMAND__POST_COMMIT'],
        compute:
          "    return [{ type: 'ORIGINATE_INSTRUCT_COMMAND', payload: { command: null, note: this.event.context.note.uuid, data: { comment: 'Book the follow-up' }, line_number: -1, commit: false } }];",
      },
    ]);
    await untilRunning(instance.url, 'follow-up-nudger');
    const plan = await instance.call('POST', `${C}/`, { body: { schemaKey: 'plan', noteKey: encounter, values: { narrative: 'Recheck' } } });
    assert.equal((await instance.call('POST', `${C}/${plan.json.uuid}/commit/`)).status, 200);
    await until("the plugin's instruct", async () => (await count()) === before + 2);
    // No reload: the note follows its changes (the change stream), and says a plugin added one.
    await page.getByRole('status').filter({ hasText: 'New command by plugin follow-up-nudger' }).waitFor();
    await page.locator('li[data-kind="plan"]', { hasText: 'Recheck' }).waitFor();
    const nudge = page.locator('li[data-kind="instruct"]');
    await nudge.waitFor();
    assert.equal(await nudge.getAttribute('class'), 'fresh', 'marked as new');
    assert.equal(await nudge.locator('.badge.plugin-author').textContent(), 'plugin follow-up-nudger');
    assert.equal(await nudge.locator('.summary').textContent(), 'Book the follow-up');
    assert.equal((await instance.call('DELETE', '/core/api/v1/plugins/follow-up-nudger/?force=true', { authorization: TEST_API_KEY })).status, 204);
  });

  it('picks a diagnosis from the keyboard, commits it, and the chart panel shows the condition', async () => {
    await page.getByLabel('Add a command of kind').selectOption('diagnose');
    await page.getByRole('button', { name: 'Add command' }).click();
    const picker = editor(page).getByRole('combobox', { name: /Diagnose/ });
    await picker.focus();
    await page.keyboard.type('essential hyper');
    const listbox = editor(page).getByRole('listbox');
    const option = listbox.getByRole('option').filter({ hasText: 'Essential (primary) hypertension' });
    await option.waitFor();
    assert.match((await option.textContent()) ?? '', /I10 · ICD-10/, 'the option shows its code and system');
    assert.equal(await picker.getAttribute('aria-expanded'), 'true');
    // Down to the first option, Escape closes, Down reopens, Enter picks.
    await page.keyboard.press('ArrowDown');
    assert.equal(await picker.getAttribute('aria-activedescendant'), await listbox.getByRole('option').first().getAttribute('id'));
    assert.equal(await listbox.getByRole('option').first().getAttribute('aria-selected'), 'true');
    await page.keyboard.press('Escape');
    assert.equal(await picker.getAttribute('aria-expanded'), 'false');
    await page.keyboard.press('ArrowDown');
    await option.waitFor();
    const index = await listbox.getByRole('option').evaluateAll((els) => els.findIndex((e) => e.textContent?.includes('Essential (primary)')));
    for (let i = 0; i <= index; i++) await page.keyboard.press('ArrowDown');
    assert.equal(await option.getAttribute('aria-selected'), 'true');
    await page.keyboard.press('Enter');
    await editor(page).getByRole('status').filter({ hasText: 'Saved: Diagnose.' }).waitFor();
    await editor(page).locator('.picked').filter({ hasText: 'Essential (primary) hypertension' }).waitFor();
    const uuid = (await editor(page).getAttribute('data-command'))!;
    const stored = await instance.call('GET', `${C}/${uuid}`);
    assert.equal(stored.json.data.diagnose.extra.coding[0].code, 'I10');
    await editor(page).getByRole('button', { name: 'Commit' }).click();
    await editor(page).getByRole('status').filter({ hasText: 'Committed.' }).waitFor();
    const conditions = page.locator('aside.chart .conditions');
    await conditions.getByRole('heading', { name: 'Active conditions (1)' }).waitFor();
    assert.match((await conditions.textContent()) ?? '', /Essential \(primary\) hypertension I10 · ICD-10/);
    await page.screenshot({ path: path.join(shots, 'note-1280.png'), fullPage: true });
  });

  it('offers typed text as free text on a field that takes it, commits it as an UNSTRUCTURED coding, and not elsewhere', async () => {
    const text = 'Post-viral fatigue after travel';
    await page.getByLabel('Add a command of kind').selectOption('diagnose');
    await page.getByRole('button', { name: 'Add command' }).click();
    const picker = editor(page).getByRole('combobox', { name: /Diagnose/ });
    await picker.focus();
    await page.keyboard.type(text);
    const listbox = editor(page).getByRole('listbox');
    // After the server's options (none for this text), the text itself, with its system.
    const free = listbox.getByRole('option').last();
    await free.filter({ hasText: `Use "${text}" as free text` }).waitFor();
    assert.match((await free.textContent()) ?? '', /UNSTRUCTURED/);
    // Reached with the keyboard like any option.
    const count = await listbox.getByRole('option').count();
    for (let i = 0; i < count; i++) await page.keyboard.press('ArrowDown');
    assert.equal(await free.getAttribute('aria-selected'), 'true');
    await page.keyboard.press('Enter');
    await editor(page).getByRole('status').filter({ hasText: 'Saved: Diagnose.' }).waitFor();
    await editor(page)
      .locator('.picked')
      .filter({ hasText: `${text} free text` })
      .waitFor();
    const uuid = (await editor(page).getAttribute('data-command'))!;
    const stored = (await instance.call('GET', `${C}/${uuid}`)).json.data.diagnose;
    assert.deepEqual(stored.extra.coding, [{ code: text, display: text, system: 'UNSTRUCTURED' }]);
    await editor(page).getByRole('button', { name: 'Commit' }).click();
    await editor(page).getByRole('status').filter({ hasText: 'Committed.' }).waitFor();
    await page.locator('aside.chart .conditions').getByRole('heading', { name: 'Active conditions (2)' }).waitFor();

    // An assessment's condition (the chart's conditions) takes no free text: its options only.
    await page.getByLabel('Add a command of kind').selectOption('assess');
    await page.getByRole('button', { name: 'Add command' }).click();
    await editor(page)
      .getByRole('combobox', { name: /Condition/ })
      .focus();
    await page.keyboard.type('fatigue');
    await editor(page).getByRole('option').filter({ hasText: text }).waitFor();
    await editor(page).getByRole('status').filter({ hasText: '1 option.' }).waitFor();
    assert.deepEqual(await editor(page).locator('[data-field="condition"]').getByRole('option').allTextContents(), [`${text} free text`]);
    await page.keyboard.press('Escape');
  });

  it("shows a questionnaire's questions once it is picked, and saves an answer", async () => {
    await page.getByLabel('Add a command of kind').selectOption('questionnaire');
    await page.getByRole('button', { name: 'Add command' }).click();
    await editor(page)
      .getByRole('combobox', { name: /Questionnaire/ })
      .focus();
    // Focused, it lists every questionnaire; typing narrows the list to the two PHQs.
    await editor(page).getByRole('option').filter({ hasText: 'GAD-7' }).waitFor();
    await page.keyboard.type('phq');
    await editor(page).getByRole('option').filter({ hasText: 'GAD-7' }).waitFor({ state: 'detached' });
    const options = editor(page).getByRole('option');
    const index = await options.evaluateAll((els) => els.findIndex((e) => e.textContent?.includes('PHQ-9')));
    assert.ok(index >= 0);
    for (let i = 0; i <= index; i++) await page.keyboard.press('ArrowDown');
    await page.keyboard.press('Enter');
    await editor(page).getByRole('status').filter({ hasText: 'Saved: Questionnaire.' }).waitFor();
    // Each question a group of radio buttons, every answer in sight.
    const question = editor(page).getByRole('group', { name: 'Little interest or pleasure in doing things' });
    assert.ok((await question.getByRole('radio').count()) >= 4);
    await question.getByRole('radio', { name: 'Several days' }).check();
    await editor(page).getByRole('button', { name: 'Save' }).click();
    await editor(page).getByRole('status').filter({ hasText: 'Saved: Little interest or pleasure in doing things.' }).waitFor();
    const uuid = (await editor(page).getAttribute('data-command'))!;
    const data = (await instance.call('GET', `${C}/${uuid}`)).json.data;
    const answers = Object.keys(data).filter((k) => k.startsWith('question-'));
    assert.equal(answers.length, 1, JSON.stringify(data));
    assert.equal(data.questionnaire.text, 'Patient Health Questionnaire (PHQ-9)');
    // Committing with questions unanswered asks first, naming them; Cancel commits nothing.
    await editor(page).getByRole('button', { name: 'Commit' }).click();
    const warning = editor(page).getByRole('group').filter({ hasText: 'questions are not answered' });
    await warning.waitFor();
    assert.match((await warning.textContent()) ?? '', /^9 questions are not answered: Feeling down, depressed, or hopeless; /);
    await warning.getByRole('button', { name: 'Cancel' }).click();
    assert.equal((await instance.call('GET', `${C}/${uuid}`)).json.state, 'staged');
  });

  it('adds picks to a list field, after the field its options depend on', async () => {
    await page.getByLabel('Add a command of kind').selectOption('labOrder');
    await page.getByRole('button', { name: 'Add command' }).click();
    // Focused with nothing typed, a reference-data picker lists its first options.
    await editor(page)
      .getByRole('combobox', { name: /Lab partner/ })
      .focus();
    await editor(page).getByRole('option').first().waitFor();
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('Enter');
    await editor(page).getByRole('status').filter({ hasText: 'Saved: Lab partner.' }).waitFor();
    const tests = editor(page).getByRole('combobox', { name: /Tests/ });
    assert.match((await editor(page).locator('[data-field="tests"]').textContent()) ?? '', /Up to 20\./);
    await tests.focus();
    await editor(page).getByRole('option').nth(1).waitFor();
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('Enter');
    await editor(page).getByRole('status').filter({ hasText: 'Saved: Tests.' }).waitFor();
    await page.keyboard.press('ArrowDown');
    await editor(page).getByRole('option').nth(1).waitFor();
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('Enter');
    await editor(page).locator('[data-field="tests"] .picked li').nth(1).waitFor();
    const uuid = (await editor(page).getAttribute('data-command'))!;
    await until('two tests stored', async () => (await instance.call('GET', `${C}/${uuid}`)).json.data.tests?.length === 2);
    await editor(page)
      .getByRole('button', { name: /^Remove/ })
      .first()
      .waitFor();
  });

  it("shows a plugin's validation errors with its name next to their field; commits (the plugin's banner alert shows), enters in error", async () => {
    await installPlugin(instance.url, 'hpi-checker', [
      {
        className: 'HowLong',
        events: ['HISTORY_OF_PRESENT_ILLNESS_COMMAND__PRE_COMMIT'],
        compute: `    const narrative = this.event.context.command.data.narrative ?? '';
    if (/days?/.test(narrative)) return [];
    return [{ type: 'EVENT_VALIDATION_ERROR', payload: { errors: [{ message: 'Say how long it has lasted', field: 'narrative' }, { message: 'HPIs need a duration' }] } }];`,
      },
      {
        className: 'Flag',
        events: ['HISTORY_OF_PRESENT_ILLNESS_COMMAND__POST_COMMIT'],
        compute: `    const patient = this.event.context.patient.key;
    return [
      { type: 'ADD_BANNER_ALERT', payload: { patient, key: 'hpi', narrative: 'HPI recorded today', placement: ['chart'], intent: 'info' } },
      { type: 'UPSERT_PATIENT_METADATA', payload: { patient, key: 'hpi.last-narrative', value: this.event.context.command.data.narrative } },
    ];`,
      },
    ]);
    await untilRunning(instance.url, 'hpi-checker');
    await page.getByLabel('Add a command of kind').selectOption('hpi');
    await page.getByRole('button', { name: 'Add command' }).click();
    await editor(page).getByLabel('Narrative').fill('Dry cough');
    await editor(page).getByRole('button', { name: 'Commit' }).click();
    const alert = editor(page).getByRole('alert');
    await alert.filter({ hasText: 'Refused by hpi-checker' }).waitFor();
    assert.match((await alert.textContent()) ?? '', /hpi-checker: HPIs need a duration/, 'a message about the whole command is listed above the form');
    const describedBy = (await editor(page).getByLabel('Narrative').getAttribute('aria-describedby'))!;
    assert.equal(await page.locator(`[id="${describedBy}"]`).textContent(), 'hpi-checker: Say how long it has lasted');
    await editor(page).getByLabel('Narrative').fill('Dry cough for three days');
    await editor(page).getByRole('button', { name: 'Commit' }).click();
    await editor(page).getByRole('status').filter({ hasText: 'Committed.' }).waitFor();
    // The plugin adds a banner alert once the commit is delivered to it; the chart panel shows it on refresh.
    await until('the banner alert', async () => (await instance.call('GET', `/core/api/v1/patients/${patientKey}/banner-alerts/`)).json.count === 1);
    await until('the metadata', async () => (await instance.call('GET', `/core/api/v1/patients/${patientKey}/metadata/`)).json.count === 1);
    await page.getByRole('button', { name: 'Refresh chart' }).click();
    await page.locator('aside.chart .alerts li').filter({ hasText: 'HPI recorded today (hpi-checker)' }).waitFor();
    // And the metadata it wrote on the patient in the same answer: its namespace, key and value.
    await page.locator('#metadata-title').filter({ hasText: 'Plugin metadata (1)' }).waitFor();
    assert.equal(await page.locator('aside.chart .metadata li').textContent(), 'hpi-checker · hpi.last-narrative: Dry cough for three days');
    // Committed: only "Enter in error" is offered; once entered in error, nothing is.
    assert.deepEqual(await editor(page).getByRole('button').allTextContents(), ['Enter in error']);
    await editor(page).getByRole('button', { name: 'Enter in error' }).click();
    // Asked once more: Cancel keeps it; the confirmation enters it in error. The focus moves
    // to Cancel in an effect after the render: wait for it (up to the page's timeout).
    await page.waitForFunction(() => document.activeElement?.textContent === 'Cancel').catch(() => undefined);
    assert.equal(await page.evaluate(() => document.activeElement?.textContent), 'Cancel', 'Cancel has the focus');
    await editor(page).getByRole('button', { name: 'Cancel' }).click();
    await editor(page).getByRole('button', { name: 'Enter in error', exact: true }).click();
    await editor(page).getByRole('button', { name: 'Yes, enter it in error' }).click();
    await editor(page).getByRole('status').filter({ hasText: 'Entered in error.' }).waitFor();
    assert.equal(await editor(page).getByRole('button').count(), 0);
    const uuid = (await editor(page).getAttribute('data-command'))!;
    assert.equal((await instance.call('GET', `${C}/${uuid}`)).json.state, 'entered_in_error');
    await page.locator(`li[data-command="${uuid}"] .state-entered_in_error`).waitFor();
  });

  it('names the field a 400 is about next to its input', async () => {
    await page.getByLabel('Add a command of kind').selectOption('plan');
    await page.getByRole('button', { name: 'Add command' }).click();
    await editor(page).getByRole('button', { name: 'Commit' }).click();
    const alert = editor(page).getByRole('alert');
    // Once: the banner says where, the field says why, with its label (docs/console.md, "The command editor").
    await alert.filter({ hasText: 'Not accepted: see Narrative below.' }).waitFor();
    const narrative = editor(page).getByLabel('Narrative');
    assert.equal(await narrative.getAttribute('aria-invalid'), 'true');
    const describedBy = (await narrative.getAttribute('aria-describedby'))!;
    assert.equal(await page.locator(`[id="${describedBy.split(' ')[0]}"]`).textContent(), 'Narrative is required to commit.');
  });

  it('says a command changed in a second tab, and reloads it', async () => {
    // The staged plan of the last step is open in the first tab.
    const uuid = (await editor(page).getAttribute('data-command'))!;
    const second = await context.newPage();
    watch(second);
    await signIn(second, `#notes/${encounter}`);
    await second.locator(`li[data-command="${uuid}"]`).getByRole('button', { name: /Edit/ }).click();
    await editor(second).getByLabel('Narrative').fill('Changed in the second tab');
    await editor(second).getByRole('button', { name: 'Save' }).click();
    await editor(second).getByRole('status').filter({ hasText: 'Saved: Narrative.' }).waitFor();
    await second.close();

    await editor(page).getByLabel('Narrative').fill('Changed in the first tab');
    await editor(page).getByRole('button', { name: 'Save' }).click();
    const conflict = editor(page).getByRole('alert').filter({ hasText: 'This command was changed elsewhere' });
    await conflict.waitFor();
    await page.screenshot({ path: path.join(shots, 'conflict-1280.png'), fullPage: true });
    let stored = await instance.call('GET', `${C}/${uuid}`);
    assert.equal(stored.json.data.narrative, 'Changed in the second tab', 'the first tab wrote nothing');
    await conflict.getByRole('button', { name: 'Reload the command' }).click();
    await conflict.waitFor({ state: 'detached' });
    assert.equal(await editor(page).getByLabel('Narrative').inputValue(), 'Changed in the second tab');
    // Saving again now works, with the new ETag.
    await editor(page).getByLabel('Narrative').fill('Changed in the first tab, after reloading');
    await editor(page).getByRole('button', { name: 'Save' }).click();
    await editor(page).getByRole('status').filter({ hasText: 'Saved: Narrative.' }).waitFor();
    stored = await instance.call('GET', `${C}/${uuid}`);
    assert.equal(stored.json.data.narrative, 'Changed in the first tab, after reloading');
  });

  it('a note locked meanwhile shows as locked by itself (the change stream), and offers no way to write', async () => {
    const uuid = (await editor(page).getAttribute('data-command'))!;
    assert.equal((await instance.call('POST', `/core/api/v1/notes/${encounter}/lock/`)).status, 200);
    // No reload: the note's change reaches the page, which stops offering writes at once.
    await page.getByText('This note is locked: its commands can be read, not changed.').waitFor();
    await page.locator('dd.state-locked').waitFor();
    assert.equal(await page.getByRole('button', { name: 'Add command' }).count(), 0);
    assert.equal((await instance.call('GET', `${C}/${uuid}`)).json.data.narrative, 'Changed in the first tab, after reloading');

    // Opened again, the locked note offers no way to add or change a command.
    await page.getByRole('link', { name: 'Ada Demo' }).click();
    await page.getByRole('link', { name: 'Office visit (demo)' }).click();
    await page.getByText('This note is locked: its commands can be read, not changed.').waitFor();
    await page.locator(`li[data-command="${uuid}"]`).waitFor();
    assert.equal(await page.getByRole('button', { name: 'Add command' }).count(), 0);
    assert.equal(await page.getByRole('button', { name: /^Edit/ }).count(), 0);
    await page.locator(`li[data-command="${uuid}"]`).getByRole('button', { name: /View/ }).click();
    await editor(page).getByLabel('Narrative').waitFor();
    assert.equal(await editor(page).locator('textarea, input, select').count(), 0, 'text, not inputs');
    assert.equal(await editor(page).getByRole('button').count(), 0, 'no Save, Commit, Delete or Enter in error');
  });

  it('clinical basics: opens on Patients after an OAuth sign-in with the list shown, creates a patient and a note, shows age, sex and local times, locks, unlocks and deletes a note', async () => {
    // A page in Paris time, signed in afresh with the OAuth client: it opens on Patients, listing them at once.
    const paris = await browser.newContext({ viewport: { width: 1280, height: 900 }, timezoneId: 'Europe/Paris' });
    const p = await paris.newPage();
    watch(p);
    await signIn(p);
    assert.equal(hashOf(p), '#patients');
    await p.getByRole('heading', { name: 'All patients' }).waitFor();
    assert.ok((await p.locator('ul.records li').count()) > 0, 'patients listed before any search');
    // The patient opened earlier in this tab is not there (another tab), but the one opened now is, once back.
    await p.getByText('New patient').click();
    await p.getByLabel('First name').fill('Grace');
    await p.getByLabel('Last name').fill('Basics');
    await p.getByLabel('Birth date').fill('1990-01-01');
    await p.getByLabel('Sex at birth').selectOption('female');
    await p.getByRole('button', { name: 'Create patient' }).click();
    await p.getByRole('heading', { name: 'Grace Basics' }).waitFor();
    assert.match((await p.locator('dd.birth').textContent()) ?? '', /^1990-01-01 \(\d+ years\)$/);
    assert.equal(await p.locator('dd.sex').textContent(), 'Female');
    // A note of the type picked, with a title: the note's page opens.
    await p.getByLabel('Type').selectOption('encounter');
    await p.getByLabel('Title').fill('Basics visit');
    await p.getByRole('button', { name: 'Create note' }).click();
    await p.getByRole('heading', { name: 'Basics visit' }).waitFor();
    // The note names its patient with age and sex.
    await p
      .locator('.crumbs .patient-facts')
      .filter({ hasText: /^ · \d+ years · Female$/ })
      .waitFor();
    // Times in the browser's zone (Paris: CET or CEST), UTC on hover.
    const created = p.locator('dl.facts time').first();
    assert.match((await created.textContent()) ?? '', /^\d{4}-\d\d-\d\d \d\d:\d\d (CET|CEST|GMT\+1|GMT\+2)$/);
    assert.match((await created.getAttribute('title')) ?? '', /^\d{4}-\d\d-\d\d \d\d:\d\d UTC$/);
    // Lock, unlock, delete (after a question).
    await p.getByRole('button', { name: 'Lock note' }).click();
    await p.locator('dd.state-locked').waitFor();
    assert.equal(await p.getByLabel('Add a command of kind').count(), 0, 'a locked note takes no command');
    await p.getByRole('button', { name: 'Unlock note' }).click();
    await p.locator('dd.state-open').waitFor();
    await p.getByRole('button', { name: 'Delete note' }).click();
    await p.getByRole('button', { name: 'Yes, delete the note' }).click();
    await p.locator('dd.state-deleted').waitFor();
    const uuid = /^#notes\/(.+)$/.exec(hashOf(p))![1]!;
    const stored = await instance.call('GET', `/core/api/v1/notes/${uuid}`);
    assert.equal(stored.json.deleted, true);
    // Back on Patients: the patient opened in this tab is listed first.
    await p.getByRole('navigation').getByRole('link', { name: 'Patients' }).click();
    await p.getByRole('heading', { name: 'Opened recently' }).waitFor();
    assert.deepEqual(await p.locator('ul.recent li').allTextContents(), ['Grace Basics']);
    await p.screenshot({ path: path.join(shots, 'patients-basics-1280.png'), fullPage: true });
    await paris.close();
  });

  it('with an API key, the Patients page says at once that it needs an OAuth sign-in (no request refused)', async () => {
    const keyed = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const p = await keyed.newPage();
    watch(p);
    const asked: string[] = [];
    p.on('request', (r) => asked.push(r.url()));
    await p.goto(`${instance.url}/console/#patients`);
    await p.getByLabel('API key', { exact: true }).fill(TEST_API_KEY);
    await p.getByRole('button', { name: 'Sign in' }).click();
    await p.locator('#needs-oauth').waitFor();
    assert.deepEqual(
      asked.filter((u) => u.includes('/core/api/v1/patients')),
      [],
    );
    await keyed.close();
  });

  it('works at 375 px wide, with no credential in the address or in storage', async () => {
    await page.setViewportSize({ width: 375, height: 800 });
    await page.screenshot({ path: path.join(shots, 'note-375.png'), fullPage: true });
    let overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    assert.equal(overflow, 0, 'no horizontal scrolling on the note');
    // A reload forgets the credentials: the sign-in form, whatever the hash; then the hash's page.
    await page.goto(`${instance.url}/console/#patients/${patientKey}`);
    await page.reload();
    await fillSignIn(page);
    await page.getByRole('heading', { name: 'Ada Demo' }).waitFor();
    // On a phone the chart is folded above the page: its counts, then all of it on demand.
    await page
      .locator('aside.chart .chart-counts')
      .filter({ hasText: /^2 conditions · / })
      .waitFor();
    await page.getByRole('button', { name: 'Show the chart' }).click();
    await page.locator('#conditions-title').filter({ hasText: 'Active conditions (2)' }).waitFor();
    await page.screenshot({ path: path.join(shots, 'patient-375.png'), fullPage: true });
    overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    assert.equal(overflow, 0, 'no horizontal scrolling on the patient');
    const kept = await page.evaluate(() => ({ local: localStorage.length, session: sessionStorage.length, cookie: document.cookie, url: location.href }));
    assert.deepEqual(kept, { local: 0, session: 0, cookie: '', url: `${instance.url}/console/#patients/${patientKey}` });
    assert.ok(!(await page.content()).includes(TEST_CLIENT_SECRET), 'the secret is not in the page');
    assert.deepEqual(failures, [], 'no script error, no CSP violation');
  });
});
