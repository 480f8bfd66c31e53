// An expired or revoked credential in headless Chromium (docs/console.md, "An expired or revoked
// credential"), against a real instance on port 0: the console signs in with the OAuth client,
// the test expires the token it was given in the instance's storage (as ten hours would), and the
// next API call (a 401) or log stream connection (a 4401 close) returns to the sign-in form with
// the notice; signing in again shows the page that was open.
import { after, before, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import { startInstance, TEST_CLIENT_ID, TEST_CLIENT_SECRET, type Instance } from '../../server/test/support/harness.ts';
import { nowMicros } from '../../server/src/lib/time.ts';
import { describeInChromium, consoleBuild, launch, watchPage } from './support/browser.ts';
import { audit } from './support/axe.ts';

const NOTICE = 'Your session has expired or was revoked; sign in again.';

describeInChromium('console in Chromium: an expired or revoked credential', (executable) => {
  let instance: Instance;
  let browser: Browser;
  let page: Page;
  const failures: string[] = [];
  const hashOf = () => new URL(page.url()).hash;

  const signIn = async () => {
    await page.getByLabel('OAuth client credentials').check();
    await page.getByLabel('Client id').fill(TEST_CLIENT_ID);
    await page.getByLabel('Client secret').fill(TEST_CLIENT_SECRET);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByText(`Signed in as client ${TEST_CLIENT_ID}`).waitFor();
  };
  /** Expires, now, every token issued since `since` (the console's; not the test's own). */
  const expireTokensSince = async (since: number) => {
    const done = await instance.storage.db.updateTable('access_tokens').set({ expires_at: nowMicros() }).where('created_at', '>=', since).executeTakeFirst();
    assert.ok(Number(done.numUpdatedRows) >= 1, 'the console holds a token');
  };
  const signInForm = () => page.getByRole('button', { name: 'Sign in' });

  before(async () => {
    instance = await startInstance('sqlite', { consoleDir: consoleBuild() });
    browser = await launch(executable);
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    page = await context.newPage();
    watchPage(page, failures);
  });
  after(async () => {
    await browser?.close();
    await instance?.stop();
  });

  it('a 401 from the API signs out with the notice; signing in again shows the same page', async () => {
    const since = nowMicros();
    // A page that asks nothing (an unknown address): the token is first used after it expired,
    // by the patient list the Patients page loads when it opens.
    await page.goto(`${instance.url}/console/#nowhere`);
    await signIn();
    await expireTokensSince(since);
    await page.getByRole('navigation').getByRole('link', { name: 'Patients' }).click();
    await page.getByRole('alert').filter({ hasText: NOTICE }).waitFor();
    await signInForm().waitFor();
    assert.equal(await page.getByText('Signed in as client').count(), 0, 'the frame is gone');
    assert.equal(hashOf(), '#patients', 'the address is kept');
    assert.deepEqual(await audit(page), [], 'the notice passes the accessibility audit (docs/console.md, "Accessibility")');
    await signIn();
    await page.getByRole('heading', { name: 'Patients', exact: true }).waitFor();
    assert.equal(hashOf(), '#patients');
    assert.equal(await page.getByText(NOTICE).count(), 0, 'the notice goes once signed in');
    // The new token works.
    await page.getByRole('button', { name: 'Search' }).click();
    await page.getByRole('status').filter({ hasText: 'No patient matches.' }).waitFor();
  });

  it('a 4401 close of the log stream signs out with the notice; signing in again shows the live logs', async () => {
    // The token of the last sign-in has been used: sign in afresh so the stream is its first use.
    await page.getByRole('button', { name: 'Sign out' }).click();
    await signInForm().waitFor();
    assert.equal(await page.getByText(NOTICE).count(), 0, 'signing out is no expiry: no notice');
    // Signed in on a page that asks nothing (the Patients page loads its list at once).
    await page.evaluate(() => (location.hash = '#nowhere'));
    const since = nowMicros();
    await signIn();
    await expireTokensSince(since);
    await page.getByRole('link', { name: 'Live logs' }).click();
    await page.getByRole('alert').filter({ hasText: NOTICE }).waitFor();
    assert.equal(hashOf(), '#logs');
    await signIn();
    await page.locator('#log-status', { hasText: /^Live$/ }).waitFor();
    assert.equal(hashOf(), '#logs');
    assert.deepEqual(failures, [], 'no script error');
  });
});
