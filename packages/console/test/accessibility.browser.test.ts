// The console's automated accessibility audit in headless Chromium (docs/console.md,
// "Accessibility"): axe-core's WCAG 2 A and AA rules (contrast included) on every page, as it
// shows with data, at 1280 and 375 px wide, against a real instance on port 0 with the demo data
// and its real Content-Security-Policy, in the light and the dark scheme (prefers-color-scheme,
// docs/console.md "Design system"), with a screenshot of each (test-results/console/a11y-*.png):
// the sign-in form (and its error), the plugins page with a
// plugin listed, its dead letters, secrets and logs open, the live logs with lines and one picked, the patient
// search with a result, a patient, a note with commands, the command editor with a picker's
// options open, with a refusal and with Delete's confirmation, the chart panel beside the patient
// and the note, and the page for an unknown address. Every violation is a failure.
import { after, before, it } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { startInstance, TEST_CLIENT_ID, TEST_CLIENT_SECRET, type Instance } from '../../server/test/support/harness.ts';
import { installPlugin } from '../../server/test/support/plugins.ts';
import { insertDeadLetter } from '../../server/src/storage/plugin-dead-letters-repository.ts';
import { nowMicros } from '../../server/src/lib/time.ts';
import { describeInChromium, consoleBuild, launch, outputDir, watchPage } from './support/browser.ts';
import { audit } from './support/axe.ts';

const WIDTHS = [1280, 375];
const SCHEMES = ['light', 'dark'] as const;

describeInChromium('console in Chromium: accessibility audit', (executable) => {
  let instance: Instance;
  let browser: Browser;
  let page: Page;
  const failures: string[] = [];
  const shots = outputDir();

  /**
   * The violations of what the page shows, at each width in each colour scheme, with a screenshot
   * of each (`a11y-<shot>-<width>-<scheme>.png`); back at 1280 px in the light scheme after.
   */
  const auditAtEachWidth = async (shot: string) => {
    const found: string[] = [];
    for (const colorScheme of SCHEMES) {
      await page.emulateMedia({ colorScheme });
      for (const width of WIDTHS) {
        await page.setViewportSize({ width, height: 900 });
        for (const v of await audit(page)) found.push(`${width} px, ${colorScheme}: ${v}`);
        await page.screenshot({ path: path.join(shots, `a11y-${shot}-${width}-${colorScheme}.png`), fullPage: true });
      }
    }
    await page.emulateMedia({ colorScheme: 'light' });
    await page.setViewportSize({ width: WIDTHS[0]!, height: 900 });
    return found;
  };
  const editor = () => page.locator('form.editor');

  before(async () => {
    instance = await startInstance('sqlite', { consoleDir: consoleBuild(), demo: true });
    await installPlugin(
      instance.url,
      'follow-up-flag',
      [{ className: 'Flag', events: ['PLAN_COMMAND__POST_COMMIT'], compute: '    return [];' }],
      {
        description: 'Flags plans that need a follow-up',
        secrets: ['API_TOKEN'],
      },
      // Its card then shows a grant badge, which the audit covers too.
      ['effects:instance'],
    );
    // The demo encounter note gets a committed plan and diagnosis (a condition in the chart) and a staged plan.
    const patient = (await instance.call('GET', '/core/api/v1/patients?name=ada')).json.results[0];
    const notes = (await instance.call('GET', `/core/api/v1/notes?patient_key=${patient.key}`)).json.results;
    const encounter = notes.find((n: { title: string }) => n.title === 'Office visit (demo)').uuid;
    const add = async (schemaKey: string, values: Record<string, unknown>, commit: boolean) => {
      const created = await instance.call('POST', '/core/api/v1/commands/', { body: { schemaKey, noteKey: encounter, values } });
      assert.equal(created.status, 201, created.text);
      if (commit) assert.equal((await instance.call('POST', `/core/api/v1/commands/${created.json.uuid}/commit/`)).status, 200);
    };
    await add('plan', { narrative: 'Follow up in two weeks' }, true);
    await add(
      'diagnose',
      { diagnose: { text: 'Essential (primary) hypertension', value: 'I10', extra: { coding: [{ code: 'I10', system: 'ICD-10' }] } } },
      true,
    );
    await add('plan', { narrative: 'Check blood pressure at home' }, false);
    // A dead letter of the plugin, as delivery keeps one after its last attempt.
    const event = { id: 'c0ffee00-0000-4000-8000-000000000001', type: 'PLAN_COMMAND__POST_COMMIT' };
    await insertDeadLetter(instance.storage.db, {
      plugin_name: 'follow-up-flag',
      handler: 'dist/handlers.js:Flag',
      event_id: event.id,
      event_type: event.type,
      target_type: 'command',
      target_id: '5b1c0000-0000-4000-8000-000000000002',
      payload: JSON.stringify(event),
      depth: 0,
      request_id: null,
      root_id: event.id,
      attempts: 5,
      last_error: 'ran longer than its 1000 ms deadline',
      created_at: nowMicros(),
      failed_at: nowMicros(),
    });
    browser = await launch(executable);
    page = await (await browser.newContext({ viewport: { width: WIDTHS[0]!, height: 900 } })).newPage();
    watchPage(page, failures);
  });
  after(async () => {
    await browser?.close();
    await instance?.stop();
  });

  it('the sign-in form, and its error', async (t) => {
    t.diagnostic(`screenshots of every page at ${WIDTHS.join(' and ')} px, light and dark: ${shots}/a11y-*.png`);
    await page.goto(`${instance.url}/console/`);
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
    const found = await auditAtEachWidth('sign-in');
    await page.getByLabel('API key', { exact: true }).fill('not-a-key');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('alert').waitFor();
    found.push(...(await auditAtEachWidth('sign-in-error')));
    assert.deepEqual(found, []);
  });

  it('the plugins page with a plugin listed, its dead letters, secrets and logs open', async () => {
    // An OAuth sign-in opens on Patients unless an address was asked for: this one asks for Plugins.
    await page.evaluate(() => void (location.hash = '#plugins'));
    await page.getByLabel('OAuth client credentials').check();
    await page.getByLabel('Client id').fill(TEST_CLIENT_ID);
    await page.getByLabel('Client secret').fill(TEST_CLIENT_SECRET);
    await page.getByRole('button', { name: 'Sign in' }).click();
    const card = page.locator('li[data-plugin="follow-up-flag"]');
    await card.waitFor();
    await card.locator('.dead-letters summary').click();
    await card.getByRole('button', { name: /^Replay #\d+$/ }).waitFor();
    await card.getByRole('button', { name: 'Secrets and logs' }).click();
    await card.getByText('API_TOKEN').waitFor();
    assert.deepEqual(await auditAtEachWidth('plugins'), []);
  });

  it('the live logs with lines, one picked', async () => {
    await page.getByRole('link', { name: 'Live logs' }).click();
    await page.locator('#log-status', { hasText: /^Live$/ }).waitFor();
    instance.app.logs.emit({ level: 'info', event: 'plan committed', plugin: 'follow-up-flag' });
    instance.app.logs.emit({ level: 'warning', event: 'slow handler', plugin: 'follow-up-flag' });
    instance.app.logs.emit({ level: 'error', event: 'handler failed', plugin: 'follow-up-flag', success: false });
    instance.app.logs.emit({ level: 'debug', event: 'cache warmed' });
    const row = page.locator('#log-lines .vlist-row').filter({ hasText: 'handler failed' });
    await row.click();
    await page.getByRole('button', { name: 'Copy as JSON' }).waitFor();
    assert.deepEqual(await auditAtEachWidth('logs'), []);
  });

  it('the patient search with a result', async () => {
    await page.getByRole('link', { name: 'Patients' }).click();
    await page.getByLabel('Patient name').fill('ada');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.getByRole('link', { name: 'Ada Demo' }).waitFor();
    assert.deepEqual(await auditAtEachWidth('patients'), []);
  });

  it('a patient, their notes and the chart panel', async () => {
    await page.getByRole('link', { name: 'Ada Demo' }).click();
    await page.locator('#conditions-title').filter({ hasText: 'Active conditions (1)' }).waitFor();
    await page.locator('ul.notes > li').first().waitFor();
    assert.deepEqual(await auditAtEachWidth('patient'), []);
  });

  it('a note with commands and the chart panel', async () => {
    await page.getByRole('link', { name: 'Office visit (demo)' }).click();
    await page.locator('li[data-kind="diagnose"] .state-committed').waitFor();
    await page.locator('#conditions-title').filter({ hasText: 'Active conditions (1)' }).waitFor();
    assert.deepEqual(await auditAtEachWidth('note'), []);
  });

  it("the command editor with a picker's options open", async () => {
    await page.getByLabel('Add a command of kind').selectOption('diagnose');
    await page.getByRole('button', { name: 'Add command' }).click();
    const picker = editor().getByRole('combobox', { name: /Diagnose/ });
    await picker.focus();
    await page.keyboard.type('diabetes');
    await editor().getByRole('listbox').getByRole('option').nth(1).waitFor();
    await page.keyboard.press('ArrowDown');
    assert.equal(await picker.getAttribute('aria-expanded'), 'true');
    assert.deepEqual(await auditAtEachWidth('editor-picker'), []);
    assert.equal(await picker.getAttribute('aria-expanded'), 'true', 'the options were open throughout');
  });

  it("the command editor showing a refusal next to its field, and Delete's confirmation", async () => {
    await page.keyboard.press('Escape');
    // The searched text is cleared: left unpicked, it would stop Save (docs/console.md, "The command editor").
    await editor()
      .getByRole('combobox', { name: /Diagnose/ })
      .fill('');
    // Something stored (a command with nothing in it offers Discard, not Delete and its question).
    await editor().getByLabel('Background').fill('Since childhood');
    await editor().getByRole('button', { name: 'Save' }).click();
    await editor().getByRole('status').filter({ hasText: 'Saved' }).waitFor();
    await editor().getByRole('button', { name: 'Commit' }).click();
    await editor().getByRole('alert').filter({ hasText: 'Not accepted: see Diagnose below.' }).waitFor();
    const found = await auditAtEachWidth('editor-refusal');
    await editor().getByRole('button', { name: 'Delete' }).click();
    await editor().getByRole('button', { name: 'Cancel' }).waitFor();
    found.push(...(await auditAtEachWidth('editor-confirm')));
    assert.deepEqual(found, []);
  });

  it('the page for an unknown address', async () => {
    await page.evaluate(() => void (location.hash = '#nowhere'));
    await page.getByRole('heading', { name: 'Page not found' }).waitFor();
    assert.deepEqual(await auditAtEachWidth('not-found'), []);
    assert.deepEqual(failures, [], 'no script error, no CSP violation');
  });
});
