// The note page doing the work (issue 22 items 3 and 7; docs/console.md, "The command editor",
// "The chart panel"), in headless Chromium against a real instance on port 0 with the demo data:
// pickers that neither lose typed text nor pick from a stale list, coding systems by their short
// names, the patient's active conditions offered first for an order's diagnoses; a new command's
// editor in sight with its first field focused, the chart beside the note while it scrolls (and
// folded above it on a phone), a prescription's quantity, unit, refills and days supply on one
// row, and a picked value on one row.
import { after, before, it } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import type { Browser, Page, Route } from 'playwright-core';
import { startInstance, TEST_CLIENT_ID, TEST_CLIENT_SECRET, type Instance } from '../../server/test/support/harness.ts';
import { addCommand, describeInChromium, consoleBuild, launch, outputDir, watchPage } from './support/browser.ts';

const C = '/core/api/v1/commands';

describeInChromium('console in Chromium: the note page', (executable) => {
  let instance: Instance;
  let browser: Browser;
  let page: Page;
  const failures: string[] = [];
  const shots = outputDir();
  let noteKey: string;
  let patientKey: string;

  const editor = () => page.locator('form.editor');
  const add = (kind: string) => addCommand(page, kind);
  const stored = async (uuid: string) => (await instance.call('GET', `${C}/${uuid}`)).json as { state: string; data: Record<string, any> };
  /** Types `term` into a picker and picks the option with `text`. */
  const pickFrom = async (name: RegExp, term: string, text: string | RegExp) => {
    await editor().getByRole('combobox', { name }).fill(term);
    const option = editor().getByRole('option').filter({ hasText: text }).first();
    await option.waitFor();
    await editor().locator('ul.options:not(.stale)').first().waitFor();
    await option.click();
  };
  const box = async (selector: string) => (await page.locator(selector).first().boundingBox())!;

  before(async () => {
    instance = await startInstance('sqlite', { consoleDir: consoleBuild(), demo: true });
    browser = await launch(executable);
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    page = watchPage(await context.newPage(), failures);
    const made = await instance.note();
    noteKey = made.noteKey;
    patientKey = made.patientKey;
    // The patient has an active condition: essential hypertension.
    const dx = await instance.call('POST', `${C}/`, { body: { schemaKey: 'diagnose', noteKey, values: {} } });
    const [i10] = (await instance.call('GET', `${C}/${dx.json.uuid}/fields/diagnose/autocomplete/?search_term=I10`)).json as Array<{ value: string }>;
    assert.equal((await instance.call('PATCH', `${C}/${dx.json.uuid}/`, { body: { values: { diagnose: i10!.value } } })).status, 200);
    assert.equal((await instance.call('POST', `${C}/${dx.json.uuid}/commit/`)).status, 200);
    await page.goto(`${instance.url}/console/#notes/${noteKey}`);
    await page.getByLabel('OAuth client credentials').check();
    await page.getByLabel('Client id').fill(TEST_CLIENT_ID);
    await page.getByLabel('Client secret').fill(TEST_CLIENT_SECRET);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByText(`Signed in as client ${TEST_CLIENT_ID}`).waitFor();
    await page.goto(`${instance.url}/console/#notes/${noteKey}`);
    await page.getByRole('heading', { name: 'Commands (1)' }).waitFor();
  });
  after(async () => {
    await browser?.close();
    await instance?.stop();
    assert.deepEqual(failures, [], 'no script error, no CSP refusal');
  });

  it("a new command's editor is in sight with its first field focused, not left on Add command", async () => {
    // Enough commands that a new one lands below the fold.
    for (let i = 0; i < 8; i++) await instance.call('POST', `${C}/`, { body: { schemaKey: 'plan', noteKey, values: { narrative: `Plan ${i}` } } });
    // They show by themselves (the change stream): no reload, which would sign out.
    await page.getByRole('heading', { name: 'Commands (9)' }).waitFor();
    const uuid = await add('plan');
    const narrative = editor().getByLabel(/Narrative/);
    await page.waitForFunction(() => document.activeElement?.closest('form.editor') !== null);
    assert.equal(await narrative.evaluate((el) => el === document.activeElement), true, 'the first field has the focus');
    const inView = await page.locator(`li[data-command="${uuid}"] form.editor`).evaluate((el) => {
      const r = el.getBoundingClientRect();
      return r.top >= 0 && r.top < innerHeight;
    });
    assert.ok(inView, "the editor's top is in the window");
    await editor().getByRole('button', { name: 'Discard' }).click();
    await editor().waitFor({ state: 'detached' });
  });

  it('names who wrote a command, not a key', async () => {
    const first = page.locator('ul.commands > li').first();
    const uuid = (await first.getAttribute('data-command'))!;
    const author = (await stored(uuid)) as unknown as { originated_by: string };
    const staff = await instance.call('GET', `/core/api/v1/staff/${author.originated_by}`);
    assert.equal(staff.status, 200, staff.text);
    const name = first.locator('.staff-name').first();
    await name.filter({ hasText: staff.json.name }).waitFor();
    assert.equal(await name.getAttribute('title'), author.originated_by, 'the key on hover');
    assert.ok(!((await first.textContent()) ?? '').includes(author.originated_by.slice(0, 8)), 'no key shown');
  });

  it('the chart stays beside the note while the note scrolls', async () => {
    await page.evaluate(() => scrollTo(0, document.body.scrollHeight));
    await page.waitForFunction(() => scrollY > 100);
    const chart = await page.locator('aside.chart').evaluate((el) => el.getBoundingClientRect().top);
    assert.ok(chart >= 0 && chart < 100, `the chart's top is in sight after scrolling (at ${chart} px)`);
    await page.evaluate(() => scrollTo(0, 0));
  });

  it('text typed and not picked is never lost silently: Commit refuses, says so next to the field and focuses it', async () => {
    const uuid = await add('diagnose');
    const picker = editor().getByRole('combobox', { name: /Diagnose/ });
    await picker.fill('diab');
    await editor().getByRole('option').first().waitFor();
    await page.keyboard.press('Escape');
    await editor().getByText('Not picked yet: choose one of the options, or clear the box.').waitFor();
    await editor().getByRole('button', { name: 'Commit' }).click();
    const message = editor().locator('[data-field="diagnose"] .field-errors');
    await message.filter({ hasText: '"diab" is typed but not picked: pick one of the options (or use it as free text), or clear the box.' }).waitFor();
    assert.equal(await picker.evaluate((el) => el === document.activeElement), true, 'the field with the text has the focus');
    assert.equal((await stored(uuid)).state, 'staged', 'nothing was committed');
    assert.equal((await picker.getAttribute('aria-describedby'))?.includes((await message.getAttribute('id'))!), true, 'the message describes the field');
    // Picked, it goes through.
    await pickFrom(/Diagnose/, 'type 2 diabetes', /E11/);
    await editor().getByRole('status').filter({ hasText: 'Saved: Diagnose.' }).waitFor();
    await editor().getByRole('button', { name: 'Commit' }).click();
    await editor().getByRole('status').filter({ hasText: 'Committed.' }).waitFor();
    assert.equal((await stored(uuid)).state, 'committed');
  });

  it('options of an earlier keystroke cannot be picked while the new ones come, and say they are being replaced', async () => {
    const uuid = await add('diagnose');
    const picker = editor().getByRole('combobox', { name: /Diagnose/ });
    await picker.fill('asthma');
    const listbox = editor().getByRole('listbox');
    await listbox.getByRole('option').first().waitFor();
    await editor().locator('ul.options:not(.stale)').waitFor();
    // Hold the next answer until the stale list has been clicked.
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    // Every request held is let go before the route is removed: removing it first handles the
    // held ones itself, and their continue() then fails ("Route is already handled").
    const handled: Array<Promise<void>> = [];
    const hold = (route: Route) => {
      // A request the page has given up on meanwhile cannot be continued: that is no failure here.
      const done = held.then(() => route.continue()).catch(() => undefined);
      handled.push(done);
      return done;
    };
    await page.route('**/autocomplete/**', hold);
    try {
      await picker.press('End');
      await page.keyboard.type(' x');
      await editor().locator('ul.options.stale[aria-busy="true"]').waitFor();
      await editor().locator('.picker-input .searching').filter({ hasText: 'Searching…' }).waitFor();
      // Playwright would wait for it to be enabled: a forced click is the hasty user's.
      await listbox.getByRole('option').first().click({ force: true });
      assert.equal(await listbox.getByRole('option').first().getAttribute('aria-disabled'), 'true');
      assert.equal(await editor().locator('.picked').count(), 0, 'nothing picked from the stale list');
      assert.deepEqual((await stored(uuid)).data, {}, 'nothing saved');
    } finally {
      release();
      await Promise.all(handled);
      await page.unroute('**/autocomplete/**', hold);
    }
    await editor().locator('ul.options.stale').waitFor({ state: 'detached' });
    await picker.fill('');
    await editor().getByRole('button', { name: 'Discard' }).click();
    await editor().waitFor({ state: 'detached' });
  });

  it("a lab order's diagnoses offer the patient's active conditions first; systems read by their short names", async () => {
    await add('labOrder');
    await editor()
      .getByRole('combobox', { name: /Diagnosis/ })
      .focus();
    const first = editor().locator('[data-field="diagnosis"]').getByRole('option').first();
    await first.waitFor();
    assert.match((await first.textContent()) ?? '', /Essential \(primary\) hypertension.*I10 · ICD-10.*Active condition on the chart/);
    await page.keyboard.press('Escape');
    await editor().getByRole('button', { name: 'Discard' }).click();
    await editor().waitFor({ state: 'detached' });
  });

  it("a prescription: the medication's system as RxNorm, the picked value on one row, quantity, unit, refills and days supply on one row", async () => {
    await add('prescribe');
    await pickFrom(/^Prescribe \(/, 'amlodipine', /amlodipine/i);
    await editor().getByRole('status').filter({ hasText: 'Saved: Prescribe.' }).waitFor();
    const picked = editor().locator('[data-field="prescribe"] .picked li').first();
    assert.match((await picked.textContent()) ?? '', /· RxNorm/, 'the short name, not the URL');
    assert.doesNotMatch((await editor().textContent()) ?? '', /nlm\.nih\.gov/);
    const row = (await picked.boundingBox())!;
    const remove = (await picked.getByRole('button').boundingBox())!;
    assert.ok(row.height < remove.height * 1.6, `a picked value takes one row (${row.height} px, a button ${remove.height} px)`);
    const tops = await Promise.all(
      ['quantity_to_dispense', 'type_to_dispense', 'refills', 'days_supply'].map(async (name) => (await box(`form.editor [data-field="${name}"]`)).y),
    );
    assert.ok(Math.max(...tops) - Math.min(...tops) < 2, `the four fields share a row (tops ${tops.join(', ')})`);
    await page.screenshot({ path: path.join(shots, 'note-prescription-1280.png'), fullPage: true });
  });

  it('a GAD-7 shows its total score as it is answered', async () => {
    await add('questionnaire');
    await pickFrom(/^Questionnaire/, 'GAD', /GAD-7/);
    const nervous = editor().getByRole('group', { name: 'Feeling nervous, anxious or on edge' });
    await nervous.waitFor();
    const score = editor().locator('.score');
    await score.filter({ hasText: 'Total score: 0 of 21 · 0 of 7 scored questions answered' }).waitFor();
    await nervous.getByLabel('Nearly every day').check();
    await editor().getByRole('group', { name: 'Not being able to stop or control worrying' }).getByLabel('Several days').check();
    await score.filter({ hasText: 'Total score: 4 of 21 · 2 of 7 scored questions answered' }).waitFor();
    await page.screenshot({ path: path.join(shots, 'note-gad7-1280.png'), fullPage: true });
  });

  it('on a phone the chart comes first, folded to its counts, and opens on demand', async () => {
    await page.setViewportSize({ width: 375, height: 800 });
    const chart = page.locator('aside.chart');
    await chart.locator('.chart-counts').filter({ hasText: '2 conditions · 0 medications · 0 goals · 0 alerts' }).waitFor();
    assert.ok((await chart.boundingBox())!.y < (await box('#commands-title')).y, 'the chart is above the commands');
    assert.equal(await chart.locator('#conditions-title').isVisible(), false, 'folded');
    await chart.getByRole('button', { name: 'Show the chart' }).click();
    await chart.locator('#conditions-title').filter({ hasText: 'Active conditions (2)' }).waitFor({ state: 'visible' });
    assert.equal(await chart.getByRole('button', { name: 'Hide the chart' }).getAttribute('aria-expanded'), 'true');
    // The four prescription fields wrap instead of widening the page.
    assert.equal(await page.evaluate(() => document.documentElement.scrollWidth <= innerWidth), true, 'nothing wider than the phone');
    await page.screenshot({ path: path.join(shots, 'note-page-375.png'), fullPage: true });
    await page.setViewportSize({ width: 1280, height: 900 });
  });

  it('the patient page is live: a note created elsewhere is listed, a diagnosis committed elsewhere reaches its chart', async () => {
    await page.goto(`${instance.url}/console/#patients/${patientKey}`);
    const notes = page.locator('ul.notes > li');
    await notes.first().waitFor();
    const before = await notes.count();
    const conditions = page.locator('#conditions-title');
    await conditions.filter({ hasText: 'Active conditions (2)' }).waitFor();
    const made = await instance.call('POST', '/core/api/v1/notes/', { body: { patientKey, noteType: 'encounter', title: 'Made elsewhere' } });
    assert.equal(made.status, 201, made.text);
    await notes.filter({ hasText: 'Made elsewhere' }).waitFor();
    assert.equal(await notes.count(), before + 1);
    const dx = await instance.call('POST', `${C}/`, { body: { schemaKey: 'diagnose', noteKey: made.json.uuid, values: {} } });
    const [asthma] = (await instance.call('GET', `${C}/${dx.json.uuid}/fields/diagnose/autocomplete/?search_term=J45.909`)).json as Array<{ value: string }>;
    await instance.call('PATCH', `${C}/${dx.json.uuid}/`, { body: { values: { diagnose: asthma!.value } } });
    assert.equal((await instance.call('POST', `${C}/${dx.json.uuid}/commit/`)).status, 200);
    await conditions.filter({ hasText: 'Active conditions (3)' }).waitFor();
    await page.screenshot({ path: path.join(shots, 'patient-live-1280.png'), fullPage: true });
  });
});
