// The audit trail page (`#audit`, docs/console.md, "Audit trail") in headless Chromium against a
// real instance on port 0: an administrator signed in with the API key filters by patient and
// reads who changed and who saw the record, newest first, pages to older entries, is told once
// which filter is wrong, and the page passes the accessibility audit at 1280 and 375 px; an OAuth
// sign-in is told at once that it needs an admin key.
import { after, before, it } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { startInstance, TEST_API_KEY, type Instance } from '../../server/test/support/harness.ts';
import { describeInChromium, consoleBuild, launch, outputDir, signInWithClient, watchPage } from './support/browser.ts';
import { audit } from './support/axe.ts';

const C = '/core/api/v1/commands';

describeInChromium('console in Chromium: the audit trail', (executable) => {
  let instance: Instance;
  let browser: Browser;
  let page: Page;
  let patientKey: string;
  let command: string;
  const failures: string[] = [];
  const shots = outputDir();

  before(async () => {
    instance = await startInstance('sqlite', { consoleDir: consoleBuild() });
    const made = await instance.command('plan', { narrative: 'Audited' });
    command = made.uuid;
    patientKey = (await instance.call('GET', `${C}/${command}`)).json.patient_key;
    // Sixty reads of it by the API client: more than a page.
    for (let i = 0; i < 60; i++) assert.equal((await instance.call('GET', `${C}/${command}`)).status, 200);
    browser = await launch(executable);
    page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
    watchPage(page, failures);
    await page.goto(`${instance.url}/console/#audit`);
    await page.getByLabel('API key', { exact: true }).fill(TEST_API_KEY);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Audit trail' }).waitFor();
  });
  after(async () => {
    await browser?.close();
    await instance?.stop();
  });

  it('filters by patient: who saw and who changed the record, newest first, and older entries on demand', async () => {
    assert.equal(await page.getByRole('navigation').getByRole('link', { name: 'Audit' }).getAttribute('aria-current'), 'page');
    await page.getByLabel('Patient key').fill(patientKey);
    await page.getByRole('button', { name: 'Show entries' }).click();
    const rows = page.locator('table.audit tbody tr');
    await page.getByRole('heading', { name: 'Entries (50+)' }).waitFor();
    assert.equal(await rows.count(), 50);
    assert.equal(await rows.first().getAttribute('data-action'), 'command.read');
    const all = await instance.call('GET', `/core/api/v1/audit/?patient_key=${patientKey}&limit=200`, { authorization: TEST_API_KEY });
    assert.ok(all.json.results.length > 60);
    await page.getByRole('button', { name: 'Older entries' }).click();
    await page.getByRole('heading', { name: `Entries (${all.json.results.length})` }).waitFor();
    assert.deepEqual(await rows.evaluateAll((trs) => trs.slice(-3).map((tr) => tr.getAttribute('data-action'))), [
      'command.created',
      'note.created',
      'patient.created',
    ]);
    assert.equal(await page.getByRole('button', { name: 'Older entries' }).count(), 0, 'the last page');
    await page.screenshot({ path: path.join(shots, 'audit-1280.png'), fullPage: true });
    assert.deepEqual(await audit(page), []);
    await page.setViewportSize({ width: 375, height: 800 });
    assert.equal(
      await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth),
      0,
      'no sideways scrolling of the page',
    );
    assert.deepEqual(await audit(page), []);
    await page.screenshot({ path: path.join(shots, 'audit-375.png'), fullPage: true });
    await page.setViewportSize({ width: 1280, height: 900 });
  });

  it('a bad filter is said once, naming it; nothing listed', async () => {
    await page.getByLabel('Patient key').fill('Robert');
    await page.getByRole('button', { name: 'Show entries' }).click();
    const alert = page.getByRole('alert');
    await alert.waitFor();
    assert.match((await alert.textContent()) ?? '', /patient_key/);
    assert.equal(await alert.count(), 1);
  });

  it('an OAuth sign-in is told at once that the audit trail needs an admin key', async () => {
    await page.getByRole('button', { name: 'Sign out' }).click();
    await signInWithClient(page);
    await page.evaluate(() => void (location.hash = '#audit'));
    await page.locator('#needs-admin-key').waitFor();
    assert.deepEqual(failures, [], 'no script error, no CSP violation');
  });
});
