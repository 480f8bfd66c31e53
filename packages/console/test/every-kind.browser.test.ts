// Issue 9's "Done when" in headless Chromium (docs/console.md, "Browser tests"), against a real
// instance on port 0 with the demo data and the real build. First, a command of each of the 15
// kinds is added to the demo encounter note, every field the form marks "(required to commit)" is
// filled generically, from what the form shows (no per-kind code), and it is committed. Then the
// newcomer's path: sign in with the OAuth client the instance prints, install a plugin package
// built by the charta tool's packaging, enable it, see its lifecycle line in Live logs, and commit
// a plan in the demo encounter note. One browser, one page per describe.
import { after, before, it } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import type { Browser, Locator, Page } from 'playwright-core';
import { startInstance, TEST_API_KEY, type Instance } from '../../server/test/support/harness.ts';
import { createProject } from '../../cli/src/scaffold/project.ts';
import { buildProject } from '../../cli/src/packaging/index.ts';
import { describeInChromium, consoleBuild, launch, outputDir, signInWithClient, tempDir, watchPage } from './support/browser.ts';

const C = '/core/api/v1/commands';

/**
 * The 15 kinds, in an order where what a kind picks from exists by then: an assessment picks one
 * of the patient's active conditions (made by the diagnosis), a goal update an open goal, a
 * medication stop an active medication (made by the medication statement).
 */
const KINDS = [
  'plan',
  'hpi',
  'reasonForVisit',
  'diagnose',
  'assess',
  'goal',
  'updateGoal',
  'medicationStatement',
  'stopMedication',
  'prescribe',
  'instruct',
  'perform',
  'labOrder',
  'questionnaire',
  'educationalMaterial',
];
/** What a picker with no default options is given to search for: one letter, what a newcomer types first. */
const TERM = 'a';

/** From the patients page to the demo encounter note. */
const openEncounter = async (p: Page) => {
  await p.getByRole('navigation').getByRole('link', { name: 'Patients' }).click();
  await p.getByLabel('Patient name').fill('Ada Demo');
  await p.getByRole('button', { name: 'Search' }).click();
  await p.getByRole('link', { name: 'Ada Demo' }).click();
  await p.getByRole('heading', { name: 'Ada Demo' }).waitFor();
  await p.getByRole('link', { name: 'Office visit (demo)' }).click();
  await p.getByRole('heading', { name: 'Office visit (demo)' }).waitFor();
  return /^#notes\/(.+)$/.exec(new URL(p.url()).hash)![1]!;
};

const editorOf = (p: Page) => p.locator('form.editor');
/** A picker's input (a select is a combobox to ARIA too). */
const PICKER = 'input[role="combobox"]';

/** Picks the first option of a picker with the keyboard, after typing a term; waits for the pick's save and the fields read again. */
async function pickFirst(p: Page, uuid: string, field: Locator) {
  const combobox = field.locator(PICKER);
  const autocomplete = (term: string) =>
    p.waitForResponse(
      (r) => r.url().includes(`/${uuid}/fields/`) && r.url().includes('/autocomplete/') && new URL(r.url()).searchParams.get('search_term') === term,
    );
  // Focused with nothing typed, it lists the field's default options, if it has any (a new
  // command's first field has the focus already: it is left first, so that focusing it asks).
  await combobox.evaluate((el) => (el as HTMLElement).blur());
  const defaults = autocomplete('');
  await combobox.focus();
  const listed = (await (await defaults).json()) as Array<{ text: string }>;
  // The term: the first word of the first default option, or one letter when it has none.
  const term = (listed[0]?.text.split(/[\s(),/-]+/).find((w) => w.length >= 3) ?? TERM).slice(0, 12);
  const searched = autocomplete(term);
  await p.keyboard.type(term);
  await searched;
  // The server's options arrived (a field taking free text offers the typed text after them).
  await field
    .getByRole('status')
    .filter({ hasText: /^\d+ options?(, then the text as free text)?\.$/ })
    .waitFor();
  const saved = p.waitForResponse((r) => r.request().method() === 'PATCH' && r.url().endsWith(`${C}/${uuid}/`));
  const reread = p.waitForResponse((r) => r.request().method() === 'GET' && r.url().endsWith(`${C}/${uuid}/fields/`));
  await p.keyboard.press('ArrowDown');
  await p.keyboard.press('Enter');
  const answer = await saved;
  assert.equal(answer.status(), 200, `the pick of ${await field.getAttribute('data-field')} is saved: ${await answer.text()}`);
  await reread;
  await editorOf(p).locator('p.ok').filter({ hasText: 'Saved:' }).waitFor();
}

/** Fills one field the form marks required, by what the form shows for it. */
async function fill(p: Page, uuid: string, field: Locator) {
  if ((await field.locator(PICKER).count()) > 0) return pickFirst(p, uuid, field);
  const tag = await field.evaluate((e) => e.tagName);
  if (tag === 'FIELDSET') return field.getByRole('checkbox').first().check();
  const textarea = field.locator('textarea');
  if ((await textarea.count()) > 0) return textarea.fill('Written in the console');
  const select = field.locator('select');
  if ((await select.count()) > 0) return select.selectOption({ index: 1 });
  const input = field.locator('input');
  const type = await input.getAttribute('type');
  if (type === 'checkbox') return input.check();
  if (type === 'date') return input.fill('2026-01-15');
  const mode = await input.getAttribute('inputmode');
  if (mode === 'numeric' || mode === 'decimal') return input.fill('1');
  // A text input whose hint asks for a date (an approximate date) gets one.
  const hint = (await field.locator('.hint').allTextContents()).join(' ');
  if (/YYYY-MM-DD/.test(hint)) return input.fill('2026-01-15');
  return input.fill('Written in the console');
}

/** The required fields still to fill: a field is filled once; a list picker takes one pick. */
async function requiredLeft(p: Page, done: Set<string>) {
  const names = await editorOf(p)
    .locator('.field:has(.required)')
    .evaluateAll((els) => els.map((e) => e.getAttribute('data-field') ?? ''));
  return names.filter((n) => !done.has(n));
}

describeInChromium('console in Chromium: a command of every kind, committed', (executable) => {
  let instance: Instance;
  let browser: Browser;
  let page: Page;
  let note: string;
  const failures: string[] = [];
  const shots = outputDir();

  before(async () => {
    instance = await startInstance('sqlite', { consoleDir: consoleBuild(), demo: true });
    browser = await launch(executable);
    page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
    watchPage(page, failures);
    await page.goto(`${instance.url}/console/`);
    await signInWithClient(page);
    note = await openEncounter(page);
  });
  after(async () => {
    await browser?.close();
    await instance?.stop();
  });

  for (const kind of KINDS) {
    it(`fills what ${kind} requires, from the form alone, and commits it`, async () => {
      await page.getByLabel('Add a command of kind').selectOption(kind);
      const created = page.waitForResponse((r) => r.request().method() === 'POST' && r.url().endsWith(`${C}/`));
      await page.getByRole('button', { name: 'Add command' }).click();
      const uuid = ((await (await created).json()) as { uuid: string }).uuid;
      await editorOf(page)
        .and(page.locator(`[data-command="${uuid}"]`))
        .waitFor();
      const done = new Set<string>();
      for (let left = await requiredLeft(page, done); left.length > 0; left = await requiredLeft(page, done)) {
        const name = left[0]!;
        done.add(name);
        await fill(page, uuid, editorOf(page).locator(`.field[data-field="${name}"]`));
      }
      await editorOf(page).getByRole('button', { name: 'Commit' }).click();
      // A questionnaire with questions left unanswered asks first (only the questionnaire is required).
      if (kind === 'questionnaire') await editorOf(page).getByRole('button', { name: 'Commit with questions unanswered' }).click();
      const outcome = await Promise.race([
        editorOf(page)
          .locator('p.ok')
          .filter({ hasText: 'Committed.' })
          .waitFor()
          .then(() => 'Committed.'),
        editorOf(page)
          .getByRole('alert')
          .waitFor()
          .then(async () => (await editorOf(page).getByRole('alert').textContent()) ?? 'refused'),
      ]);
      assert.equal(outcome, 'Committed.', `${kind} with its required fields: ${[...done].join(', ') || 'none'}`);
      await page.locator(`li[data-command="${uuid}"] .state-committed`).waitFor();
      assert.equal((await instance.call('GET', `${C}/${uuid}`)).json.state, 'committed');
    });
  }

  it('lists a committed command of each of the 15 kinds in the note; at 1280 and 375 px', async () => {
    // The list above is every kind the console offers.
    const offered = await page
      .getByLabel('Add a command of kind')
      .locator('option')
      .evaluateAll((els) => els.map((e) => (e as HTMLOptionElement).value));
    assert.deepEqual(offered.filter((v) => v !== '').sort(), [...KINDS].sort());
    const listed = await instance.call('GET', `${C}?note_key=${note}&limit=100`);
    const committed = new Set(listed.json.results.filter((c: { state: string }) => c.state === 'committed').map((c: { schema_key: string }) => c.schema_key));
    assert.deepEqual([...committed].sort(), [...KINDS].sort());
    assert.equal(await page.locator('li[data-command] .state-committed').count(), KINDS.length);
    await page.screenshot({ path: path.join(shots, 'every-kind-1280.png'), fullPage: true });
    await page.setViewportSize({ width: 375, height: 800 });
    await page.screenshot({ path: path.join(shots, 'every-kind-375.png'), fullPage: true });
    assert.equal(await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth), 0, 'no horizontal scrolling');
    assert.deepEqual(failures, [], 'no script error, no CSP violation');
  });
});

describeInChromium("console in Chromium: the newcomer's path", (executable) => {
  let instance: Instance;
  let browser: Browser;
  let page: Page;
  let pkg: { file: string; name: string };
  const failures: string[] = [];

  before(async () => {
    instance = await startInstance('sqlite', { consoleDir: consoleBuild(), demo: true });
    const dir = createProject(tempDir('charta-newcomer-plugin-'), {
      full_name: 'New Comer',
      email: 'new@example.org',
      version: '0.1.0',
      project_name: 'First Plugin',
      project_slug: 'first-plugin',
      project_package_name: 'first_plugin',
      project_short_description: 'The first plugin a newcomer installs',
    });
    pkg = await buildProject(dir);
    browser = await launch(executable);
    page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
    watchPage(page, failures);
  });
  after(async () => {
    await browser?.close();
    await instance?.stop();
  });

  it('says on the sign-in form which credentials the clinical pages need, and an API key is told so there', async () => {
    await page.goto(`${instance.url}/console/#patients`);
    await page.getByText('OAuth client credentials (patients, notes, commands)').waitFor();
    await page.getByLabel('API key', { exact: true }).fill(TEST_API_KEY);
    await page.getByRole('button', { name: 'Sign in' }).click();
    // Said at once, with what to do about it: no request is made to be refused.
    const told = page.locator('#needs-oauth');
    await told.waitFor();
    assert.match((await told.textContent()) ?? '', /API key.*Patients and notes need a sign-in with an OAuth client \(client ID and secret\)/);
    await page.getByRole('button', { name: 'Sign out' }).click();
  });

  it('signs in with the OAuth client, installs and enables a plugin, sees its lifecycle line, and commits a plan', async () => {
    await page.goto(`${instance.url}/console/#plugins`);
    await signInWithClient(page);
    // Install it disabled, then enable it on its card.
    await page.getByLabel('Enable it once installed').uncheck();
    await page.getByLabel('Package file').setInputFiles(pkg.file);
    await page
      .getByRole('status')
      .filter({ hasText: `${pkg.name} 0.1.0 installed` })
      .waitFor();
    const card = page.locator(`li.plugin[data-plugin="${pkg.name}"]`);
    await card.locator('dd.disabled').waitFor();
    await card.getByRole('button', { name: 'Enable' }).click();
    await card.locator('dd.enabled').waitFor();
    assert.equal((await instance.call('GET', `/core/api/v1/plugins/${pkg.name}/`, { authorization: TEST_API_KEY })).json.is_enabled, true);

    await page.getByRole('navigation').getByRole('link', { name: 'Live logs' }).click();
    await page
      .locator('#log-lines .vlist-row')
      .filter({ hasText: `plugin ${pkg.name} 0.1.0 installed` })
      .first()
      .waitFor();
    await page
      .locator('#log-lines .vlist-row')
      .filter({ hasText: `plugin ${pkg.name} 0.1.0 enabled` })
      .first()
      .waitFor();

    const note = await openEncounter(page);
    await page.getByLabel('Add a command of kind').selectOption('plan');
    await page.getByRole('button', { name: 'Add command' }).click();
    await editorOf(page)
      .getByLabel(/Narrative/)
      .fill('See again in a month');
    await editorOf(page).getByRole('button', { name: 'Commit' }).click();
    await editorOf(page).locator('p.ok').filter({ hasText: 'Committed.' }).waitFor();
    const listed = await instance.call('GET', `${C}?note_key=${note}`);
    // (The scaffolded plugin answers a plan's commit with a staged instruction of its own.)
    assert.deepEqual(
      listed.json.results
        .filter((c: { schema_key: string }) => c.schema_key === 'plan')
        .map((c: { schema_key: string; state: string; data: unknown }) => [c.schema_key, c.state, c.data]),
      [['plan', 'committed', { narrative: 'See again in a month' }]],
    );
    assert.deepEqual(failures, [], 'no script error, no CSP violation');
  });
});
