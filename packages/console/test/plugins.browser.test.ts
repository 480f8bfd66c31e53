// The console's sign-in and plugins page in headless Chromium (docs/console.md), against a real
// instance on port 0 serving the real build: a wrong and a right API key, OAuth client
// credentials, an invalid package dropped (its reasons listed), a package built by the charta
// tool's packaging picked and installed, disable and enable, its grants as badges, write-only
// secrets, recent log lines, download, a plugin's dead letters (counted, listed, one discarded, one
// replayed once the plugin is fixed), where each plugin stands in the runtime and its recent
// faults, a plugin that throws on every commit shown failing (the last error's handler and event),
// a new version uploaded from its card (a refused one leaving the old live) and from the install
// zone, delete after a confirmation, the phone width, and signing out. One browser, one page.
import { after, before, it } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { startInstance, TEST_API_KEY, TEST_CLIENT_ID, TEST_CLIENT_SECRET, type Instance } from '../../server/test/support/harness.ts';
import { tgz } from '../../server/test/support/archives.ts';
import { pluginPackage, runtimeWatch } from '../../server/test/support/plugins.ts';
import { originalToolPackage } from '../../server/test/support/original-tool.ts';
import { until } from '../../server/test/support/until.ts';
import { appendAudit } from '../../server/src/storage/audit-repository.ts';
import { nowMicros } from '../../server/src/lib/time.ts';
import { createProject } from '../../cli/src/scaffold/project.ts';
import { buildProject } from '../../cli/src/packaging/index.ts';
import { describeInChromium, consoleBuild, launch, outputDir, tempDir, watchPage } from './support/browser.ts';
import { audit } from './support/axe.ts';

const SECRET_VALUE = 'sk-live-never-shown-back-0123';

/** A package of the plugin `console-demo` declaring the secret API_TOKEN, scaffolded and built as `charta plugin init` and `plugin build` do. */
async function builtPackage(): Promise<{ file: string; bytes: Buffer; name: string }> {
  const dir = createProject(tempDir('charta-console-plugin-'), {
    full_name: 'Test Developer',
    email: 'dev@example.org',
    version: '0.1.0',
    project_name: 'Console Demo',
    project_slug: 'console-demo',
    project_package_name: 'console_demo',
    project_short_description: 'A plugin the console installs',
  });
  const manifestFile = path.join(dir, 'CHARTA_MANIFEST.json');
  const manifest = JSON.parse(fs.readFileSync(manifestFile, 'utf8'));
  manifest.secrets = ['API_TOKEN'];
  fs.writeFileSync(manifestFile, JSON.stringify(manifest, null, 2));
  const built = await buildProject(dir);
  return { file: built.file, bytes: fs.readFileSync(built.file), name: built.name };
}

describeInChromium('console in Chromium: sign-in and plugins', (executable) => {
  let instance: Instance;
  let browser: Browser;
  let page: Page;
  let pkg: { file: string; bytes: Buffer; name: string };
  const shots = outputDir();
  const card = () => page.locator(`li.plugin[data-plugin="${pkg.name}"]`);

  before(async () => {
    // One attempt: a handler that times out leaves its dead letter at once.
    instance = await startInstance('sqlite', { consoleDir: consoleBuild(), pluginDeliveryAttempts: 1, pluginRunnerMaxMemoryMb: 100 });
    pkg = await builtPackage();
    browser = await launch(executable);
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, acceptDownloads: true });
    page = await context.newPage();
    const failures: string[] = [];
    watchPage(page, failures);
    (page as Page & { failures?: string[] }).failures = failures;
  });
  after(async () => {
    await browser?.close();
    await instance?.stop();
  });

  const failures = () => (page as Page & { failures?: string[] }).failures ?? [];
  const runtime = runtimeWatch(() => instance);

  it('refuses a wrong API key with the server message, keeping nothing', async () => {
    await page.goto(`${instance.url}/console/`);
    await page.getByLabel('API key', { exact: true }).fill('not-a-key-0123456789abcdef');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('alert').filter({ hasText: 'The credentials are not valid or have expired' }).waitFor();
    assert.deepEqual(failures(), [], 'no script error, no CSP violation');
  });

  it('signs in with the API key from the keyboard: nothing in storage, cookies or the URL', async () => {
    // Keyboard only: from the top of the page, Tab reaches the mode choice, then the key; Enter submits.
    await page.reload();
    await page.getByLabel('API key', { exact: true }).waitFor();
    await page.keyboard.press('Tab');
    await page.keyboard.press('Tab');
    assert.equal(await page.evaluate(() => document.activeElement?.id), 'api-key');
    await page.keyboard.type(TEST_API_KEY);
    await page.keyboard.press('Enter');
    await page.getByText('No plugin is installed yet.').waitFor();
    // Focus is visible: the next Tab lands on a control drawn with the 3 px focus ring.
    await page.keyboard.press('Tab');
    const ring = await page.evaluate(() => {
      const s = getComputedStyle(document.activeElement!);
      return `${s.outlineStyle} ${s.outlineWidth}`;
    });
    assert.equal(ring, 'solid 3px');
    const kept = await page.evaluate(() => ({ local: localStorage.length, session: sessionStorage.length, cookie: document.cookie, url: location.href }));
    assert.deepEqual(kept, { local: 0, session: 0, cookie: '', url: `${instance.url}/console/` });
    assert.ok(!(await page.content()).includes(TEST_API_KEY), 'the key is not in the page');
  });

  it("lists a dropped invalid package's reasons", async () => {
    const broken = tgz([{ path: 'CHARTA_MANIFEST.json', body: '{"sdk_version": "0.1.0"}' }]);
    const transfer = await page.evaluateHandle(
      (bytes) => {
        const dt = new DataTransfer();
        dt.items.add(new File([new Uint8Array(bytes)], 'broken.tar.gz', { type: 'application/gzip' }));
        return dt;
      },
      [...broken],
    );
    await page.locator('.drop').dispatchEvent('drop', { dataTransfer: transfer });
    const reasons = page.locator('#upload-refusal li');
    await reasons.first().waitFor();
    assert.match((await page.locator('#upload-refusal').textContent()) ?? '', /broken\.tar\.gz: The package was refused/);
    assert.ok((await reasons.count()) >= 1);
    const listed = await instance.call('GET', '/core/api/v1/plugins/', { authorization: TEST_API_KEY });
    assert.equal(listed.json.count, 0, 'nothing installed');
  });

  it('installs a package picked with the file input: name, version, checksum, enabled', async () => {
    await page.getByLabel('Package file').setInputFiles(pkg.file);
    await page
      .getByRole('status')
      .filter({ hasText: `${pkg.name} 0.1.0 installed and enabled.` })
      .waitFor();
    await card().waitFor();
    assert.equal(await card().locator('.version').textContent(), '0.1.0');
    assert.equal(await card().locator('.checksum').textContent(), crypto.createHash('sha256').update(pkg.bytes).digest('hex'));
    assert.equal(await card().locator('dd.enabled').textContent(), 'Enabled');
    assert.equal(await page.locator('#upload-refusal').count(), 0, 'the earlier refusal is gone');
    await page.screenshot({ path: path.join(shots, 'plugins-1280.png'), fullPage: true });
  });

  it('disables and enables it', async () => {
    await card().getByRole('button', { name: 'Disable' }).click();
    await card().locator('dd.disabled').waitFor();
    let r = await instance.call('GET', `/core/api/v1/plugins/${pkg.name}/`, { authorization: TEST_API_KEY });
    assert.equal(r.json.is_enabled, false);
    await card().getByRole('button', { name: 'Enable' }).click();
    await card().locator('dd.enabled').waitFor();
    r = await instance.call('GET', `/core/api/v1/plugins/${pkg.name}/`, { authorization: TEST_API_KEY });
    assert.equal(r.json.is_enabled, true);
  });

  it('shows the grants an administrator gave it as a list of badges, and what it reads of the record', async () => {
    assert.equal(await card().locator('.no-grants').textContent(), 'None');
    assert.equal(await card().locator('.data-access').textContent(), 'Nothing of the record', 'its manifest declares no data');
    const given = await instance.call('PATCH', `/core/api/v1/plugins/${pkg.name}/`, {
      authorization: TEST_API_KEY,
      raw: { contentType: 'application/x-www-form-urlencoded', data: 'grant=effects:instance&grant=effects:any-command' },
    });
    assert.equal(given.status, 200, given.text);
    // The page reads the plugins again after each action: disabling and enabling shows the grants given meanwhile.
    await card().getByRole('button', { name: 'Disable' }).click();
    await card().locator('dd.disabled').waitFor();
    const badges = card()
      .getByRole('list', { name: `Grants of ${pkg.name}` })
      .getByRole('listitem');
    await badges.first().waitFor();
    assert.deepEqual(await badges.allTextContents(), ['effects:any-command', 'effects:instance']);
    await card().getByRole('button', { name: 'Enable' }).click();
    await card().locator('dd.enabled').waitFor();
    await page.screenshot({ path: path.join(shots, 'plugins-grants-1280.png'), fullPage: true });
    assert.deepEqual(failures(), [], 'no script error, no CSP violation');
  });

  it('sets a secret without ever showing it back, and shows recent log lines', async () => {
    await card().getByRole('button', { name: 'Secrets and logs' }).click();
    const input = card().getByLabel(/API_TOKEN/);
    await card().getByText('(not set)').waitFor();
    await input.fill(SECRET_VALUE);
    await card().getByRole('button', { name: 'Save secrets' }).click();
    await card().getByText('(set)').waitFor();
    assert.equal(await input.inputValue(), '', 'the input is emptied');
    assert.equal(await input.getAttribute('type'), 'password');
    const listing = await instance.call('GET', `/core/api/v1/plugins/${pkg.name}/secrets/`, { authorization: TEST_API_KEY });
    assert.equal(listing.json.results[0].is_set, true);
    await card().getByRole('button', { name: 'Refresh log lines' }).click();
    // The refreshed list, not the one shown before the click: it has the line of the secret just set.
    await card()
      .locator('.lines li')
      .filter({ hasText: `plugin ${pkg.name} secrets set: API_TOKEN` })
      .first()
      .waitFor();
    const lines = (await card().locator('.lines').textContent()) ?? '';
    assert.match(lines, /installed/);
    assert.match(lines, /disabled/);
    assert.match(lines, /secrets set: API_TOKEN/);
    assert.ok(!(await page.content()).includes(SECRET_VALUE), 'the value is nowhere in the page');
  });

  it('downloads the package as stored', async () => {
    const [download] = await Promise.all([page.waitForEvent('download'), card().getByRole('button', { name: 'Download package' }).click()]);
    assert.equal(download.suggestedFilename(), `${pkg.name}-0.1.0.tar.gz`);
    const saved = await download.path();
    assert.deepEqual(fs.readFileSync(saved), pkg.bytes);
  });

  /** A plugin whose handler does nothing, at `version`. */
  const quiet = (name: string, version: string) =>
    pluginPackage(name, [{ className: 'Quiet', events: ['PLAN_COMMAND__POST_COMMIT'], compute: '    return [];' }], { plugin_version: version });
  const sha256 = (bytes: Buffer) => crypto.createHash('sha256').update(bytes).digest('hex');
  /** axe's WCAG A and AA rules at 1280 and 375 px (no violation), nothing scrolling sideways at 375, and a screenshot there (`<shot>-375.png`). */
  const auditBothWidths = async (shot: string) => {
    const found: string[] = [];
    for (const width of [1280, 375]) {
      await page.setViewportSize({ width, height: width === 375 ? 800 : 900 });
      for (const v of await audit(page)) found.push(`${width} px: ${v}`);
    }
    await page.screenshot({ path: path.join(shots, `${shot}-375.png`), fullPage: true });
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    await page.setViewportSize({ width: 1280, height: 900 });
    assert.deepEqual(found, []);
    assert.equal(overflow, 0, 'no horizontal scrolling at 375 px');
  };
  /** The plugins page read again (it reads the plugins each time it is shown). */
  const reshow = async () => {
    await page.getByRole('link', { name: 'Live logs' }).click();
    await page.getByRole('link', { name: 'Plugins' }).click();
  };

  it("shows a plugin that throws on every commit as 'Enabled · failing': its faults, the last error's time, handler and event, a link to the live logs", async () => {
    await runtime.install('thrower', [{ className: 'Broken', events: ['PLAN_COMMAND__POST_COMMIT'], compute: "    throw new Error('broken on purpose');" }]);
    const plan = await instance.command('plan', { narrative: 'thrown at' });
    assert.equal((await instance.call('POST', `/core/api/v1/commands/${plan.uuid}/commit/`)).status, 200);
    await until('a fault of thrower', () => runtime.failures('thrower').some((e) => e.fault === 'threw'));
    const faults = (await instance.call('GET', '/core/api/v1/plugins/thrower/', { authorization: TEST_API_KEY })).json.faults;
    assert.equal(faults.last_error.handler, 'dist/handlers.js:Broken');
    await reshow();
    const thrower = page.locator('li.plugin[data-plugin="thrower"]');
    const health = thrower.locator('dd.health');
    await health.waitFor();
    assert.equal(await health.textContent(), 'Enabled · failing');
    assert.equal(await health.evaluate((e) => getComputedStyle(e).color), 'rgb(122, 65, 0)', 'the warning colour, not the green of a healthy plugin');
    assert.equal(await card().locator('dd.health').textContent(), 'Enabled', 'a healthy plugin stays green');
    assert.match((await thrower.locator('.fault-counts').textContent()) ?? '', /^Last hour: 1 failure, 0 timeouts; last day: 1 failure, 0 timeouts$/);
    const last = thrower.locator('.last-fault');
    assert.equal(await last.locator('.fault-handler').textContent(), 'dist/handlers.js:Broken');
    assert.equal(await last.locator('.fault-event').textContent(), 'PLAN_COMMAND__POST_COMMIT');
    assert.match((await last.locator('.fault-message').textContent()) ?? '', /broken on purpose/);
    assert.equal(await last.locator('time').getAttribute('datetime'), faults.last_error.timestamp);
    assert.match((await last.locator('time').getAttribute('title')) ?? '', /\(UTC\)$/);
    await thrower.screenshot({ path: path.join(shots, 'plugins-failing-1280.png') });
    // The live logs, one click away.
    await thrower.getByRole('link', { name: 'Logs of thrower' }).click();
    // Filtered to it (#logs?plugin=thrower): the plugin's own lines only.
    await page.waitForURL(/#logs\?plugin=thrower$/);
    assert.equal(await page.getByLabel('Plugin', { exact: true }).inputValue(), 'thrower');
    await page.getByRole('link', { name: 'Plugins' }).click();
    await health.waitFor();
    assert.deepEqual(failures(), [], 'no script error, no CSP violation');
  });

  it("uploads a new version from the plugin's card: a refused one leaves the previous version live with the reasons; a fixed one shows version and checksum before and after", async () => {
    const thrower = page.locator('li.plugin[data-plugin="thrower"]');
    const before = (await instance.call('GET', '/core/api/v1/plugins/thrower/', { authorization: TEST_API_KEY })).json;
    assert.equal(before.version, '1.0.0');
    // Refused: its module throws as it loads, so the install check refuses it.
    const refusedPackage = await pluginPackage(
      'thrower',
      [{ className: 'Broken', events: ['PLAN_COMMAND__POST_COMMIT'], compute: '    return [];' }],
      { plugin_version: '1.1.0' },
      { prelude: "throw new Error('cannot load');" },
    );
    await thrower.getByLabel('Upload a new version of thrower').setInputFiles({ name: 'thrower.tar.gz', mimeType: 'application/gzip', buffer: refusedPackage });
    const refusal = thrower.locator('.update-outcome.error');
    await refusal.waitFor();
    assert.match((await refusal.locator('p').first().textContent()) ?? '', /^The new version was refused; thrower 1\.0\.0 \([0-9a-f]{12}…\) stays live\.$/);
    assert.ok((await refusal.getByRole('list', { name: 'Reasons' }).getByRole('listitem').count()) >= 1, 'the reasons listed');
    let now = (await instance.call('GET', '/core/api/v1/plugins/thrower/', { authorization: TEST_API_KEY })).json;
    assert.deepEqual([now.version, now.package_checksum, now.is_enabled], ['1.0.0', before.package_checksum, true], 'the previous version stays live');
    assert.equal(await thrower.locator('.version').textContent(), '1.0.0');
    await thrower.screenshot({ path: path.join(shots, 'plugins-update-refused-1280.png') });
    // A failing plugin's health and faults, and the refusal, pass the audit.
    await auditBothWidths('plugins-update-refused');

    // Fixed.
    const fixed = await quiet('thrower', '1.1.0');
    await thrower.getByLabel('Upload a new version of thrower').setInputFiles({ name: 'thrower.tar.gz', mimeType: 'application/gzip', buffer: fixed });
    const done = thrower.locator('.update-outcome.ok');
    await done.waitFor();
    assert.equal(await refusal.count(), 0, 'the refusal is gone');
    assert.equal(await done.locator('.before .release-version').textContent(), '1.0.0');
    assert.equal(await done.locator('.after .release-version').textContent(), '1.1.0');
    assert.equal(await done.locator('.before .release-checksum').getAttribute('title'), `SHA-256 ${before.package_checksum}`);
    assert.equal(await done.locator('.after .release-checksum').getAttribute('title'), `SHA-256 ${sha256(fixed)}`);
    await thrower.locator('.version', { hasText: '1.1.0' }).waitFor();
    assert.equal(await thrower.locator('.checksum').textContent(), sha256(fixed));
    now = (await instance.call('GET', '/core/api/v1/plugins/thrower/', { authorization: TEST_API_KEY })).json;
    assert.deepEqual([now.version, now.package_checksum], ['1.1.0', sha256(fixed)]);
    // Its failure is older than the fixed version: no longer "failing", the faults still counted.
    assert.equal(await thrower.locator('dd.health').textContent(), 'Enabled · failed in the last day');
    assert.match((await thrower.locator('.fault-counts').textContent()) ?? '', /^Last hour: 1 failure/);
    await thrower.screenshot({ path: path.join(shots, 'plugins-updated-1280.png') });
    assert.deepEqual(failures(), [], 'no script error, no CSP violation');
  });

  it('an installed plugin uploaded again in the install zone: one message saying which version is installed, and Update', async () => {
    // Installed from the zone: its green note is on the page.
    await page.getByLabel('Package file').setInputFiles({ name: 'twice.tar.gz', mimeType: 'application/gzip', buffer: await quiet('twice', '1.0.0') });
    await page.locator('.note.ok', { hasText: 'twice 1.0.0 installed and enabled.' }).waitFor();
    await page.getByLabel('Package file').setInputFiles({ name: 'twice.tar.gz', mimeType: 'application/gzip', buffer: await quiet('twice', '1.0.1') });
    const exists = page.locator('#upload-exists');
    await exists.waitFor();
    assert.equal(await exists.locator('p').textContent(), 'twice is already installed (version 1.0.0); twice.tar.gz is version 1.0.1.');
    // Nothing contradicts it: not the earlier install's success, nor a refusal.
    assert.equal(await page.locator('.note').count(), 0, 'no green note beside it');
    assert.equal(await page.locator('#upload-refusal').count(), 0, 'no red refusal');
    await page.screenshot({ path: path.join(shots, 'plugins-exists-1280.png'), fullPage: true });
    await auditBothWidths('plugins-exists');
    await exists.getByRole('button', { name: 'Update twice to 1.0.1' }).click();
    const done = page.locator('section[aria-labelledby="upload-title"] > .update-outcome.ok');
    await done.waitFor();
    assert.match((await done.textContent()) ?? '', /^twice updated: 1\.0\.0 \([0-9a-f]{12}…\) → 1\.0\.1 \([0-9a-f]{12}…\)\.$/);
    assert.equal(await exists.count(), 0);
    await page.locator('li.plugin[data-plugin="twice"] .version', { hasText: '1.0.1' }).waitFor();
    for (const name of ['thrower', 'twice'])
      assert.equal((await instance.call('DELETE', `/core/api/v1/plugins/${name}/?force=true`, { authorization: TEST_API_KEY })).status, 204);
    assert.deepEqual(failures(), [], 'no script error, no CSP violation');
  });

  it("shows a plugin's dead letters: the count, each letter, Discard, and Replay once the plugin is fixed", async () => {
    const late = (compute: string) => [{ className: 'Late', events: ['PLAN_COMMAND__POST_COMMIT'], compute }];
    await runtime.install('late-letters', late('    for (;;) {}'), { limits: { timeout_ms: 50 } });
    const plans = [await instance.command('plan', { narrative: 'one' }), await instance.command('plan', { narrative: 'two' })];
    for (const plan of plans) assert.equal((await instance.call('POST', `/core/api/v1/commands/${plan.uuid}/commit/`)).status, 200);
    const listed = async () => (await instance.call('GET', '/core/api/v1/plugins/late-letters/dead-letters/', { authorization: TEST_API_KEY })).json;
    await until('two dead letters', async () => (await listed()).count === 2);
    const [newer, older] = (await listed()).results as Array<{ id: number; command: string; event_id: string }>;
    // The page reads the plugins again when it is shown again.
    await page.getByRole('link', { name: 'Live logs' }).click();
    await page.getByRole('link', { name: 'Plugins' }).click();
    const letters = page.locator('li.plugin[data-plugin="late-letters"] .dead-letters');
    await letters.locator('.count', { hasText: /^2$/ }).waitFor();
    assert.equal(await card().locator('.dead-letters .count').textContent(), '0', 'the other plugin has none');
    await letters.locator('summary').click();
    const item = (id: number) => letters.locator(`li[data-letter="${id}"]`);
    await item(newer!.id).waitFor();
    assert.deepEqual(
      await letters.locator('li.dead-letter').evaluateAll((els) => els.map((e) => Number(e.getAttribute('data-letter')))),
      [newer!.id, older!.id],
      'newest first',
    );
    const text = (await item(older!.id).textContent()) ?? '';
    for (const part of ['PLAN_COMMAND__POST_COMMIT', older!.command, older!.event_id, 'dist/handlers.js:Late', 'ran longer than its 50 ms deadline']) {
      assert.ok(text.includes(part), `${part} in ${text}`);
    }
    assert.equal(await item(older!.id).locator('.attempts').textContent(), '1');
    await page.screenshot({ path: path.join(shots, 'plugins-dead-letters-1280.png'), fullPage: true });
    await page.setViewportSize({ width: 375, height: 800 });
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    assert.equal(overflow, 0, 'no horizontal scrolling with the letters open');
    await page.setViewportSize({ width: 1280, height: 900 });

    await letters.getByRole('button', { name: `Discard #${older!.id}` }).click();
    await letters
      .getByRole('status')
      .filter({ hasText: `Dead letter ${older!.id} discarded.` })
      .waitFor();
    await letters.locator('.count', { hasText: /^1$/ }).waitFor();
    assert.equal(await item(older!.id).count(), 0);

    // Fixed: the replayed event reaches the handler, which now answers in time.
    await runtime.update('late-letters', late("    this.log.info('on time ' + this.event.id);\n    return [];"));
    await letters.getByRole('button', { name: `Replay #${newer!.id}` }).click();
    await letters
      .getByRole('status')
      .filter({ hasText: `Dead letter ${newer!.id} replayed` })
      .waitFor();
    await letters.locator('.count', { hasText: /^0$/ }).waitFor();
    await letters.getByText('No dead letters').waitFor();
    await until('the replayed event delivered', () => runtime.lines('late-letters').some((e) => e.event === `on time ${newer!.event_id}`));
    await runtime.settled();
    assert.equal((await listed()).count, 0);
    const audit = await instance.storage.db.selectFrom('audit_events').select('action').where('entity_type', '=', 'plugin_dead_letter').orderBy('id').execute();
    assert.deepEqual(
      audit.map((a) => a.action),
      ['plugin.dead_letter_discarded', 'plugin.dead_letter_replayed'],
    );
    assert.equal((await instance.call('DELETE', '/core/api/v1/plugins/late-letters/?force=true', { authorization: TEST_API_KEY })).status, 204);
    assert.deepEqual(failures(), [], 'no script error, no CSP violation');
  });

  it('shows where each plugin stands in the runtime (a failing load with its reason and next try) and its recent faults', async () => {
    // Past the runner's memory maximum of this instance: installed, enabled, and failing to load.
    await runtime.install('flaky-clock', [{ className: 'Slow', events: ['PLAN_COMMAND__POST_COMMIT'], compute: '    for (;;) {}' }], {
      limits: { timeout_ms: 50 },
    });
    const plan = await instance.command('plan', { narrative: 'slow' });
    assert.equal((await instance.call('POST', `/core/api/v1/commands/${plan.uuid}/commit/`)).status, 200);
    await until('a timeout of flaky-clock', () => runtime.failures('flaky-clock').some((e) => e.fault === 'timeout'));
    const form = new FormData();
    form.set('is_enabled', 'True');
    form.set(
      'package',
      new Blob([
        new Uint8Array(
          await pluginPackage('too-big', [{ className: 'Big', events: ['PLAN_COMMAND__POST_COMMIT'], compute: '    return [];' }], {
            limits: { memory_mb: 100 },
          }),
        ),
      ]),
      'too-big.tar.gz',
    );
    const installed = await fetch(`${instance.url}/core/api/v1/plugins/`, { method: 'POST', body: form, headers: { authorization: TEST_API_KEY } });
    assert.equal(installed.status, 201, await installed.text());
    await page.getByRole('link', { name: 'Live logs' }).click();
    await page.getByRole('link', { name: 'Plugins' }).click();
    const big = page.locator('li.plugin[data-plugin="too-big"] .runtime');
    await until('too-big failing on the page', async () => {
      await page.getByRole('link', { name: 'Live logs' }).click();
      await page.getByRole('link', { name: 'Plugins' }).click();
      await big.waitFor();
      return (await big.locator('.runtime-state').textContent()) === 'Failing to load';
    });
    assert.match((await big.locator('.runtime-detail').textContent()) ?? '', /do not fit \(CHARTA_PLUGIN_RUNNER_MAX_MEMORY_MB\)/);
    assert.match((await big.locator('.runtime-retry').textContent()) ?? '', /^Next try at .+ \(\d+ failed loads? in a row\)$/);
    assert.equal(await card().locator('.runtime-state').textContent(), 'Running');
    const faults = page.locator('li.plugin[data-plugin="flaky-clock"] .faults');
    assert.match((await faults.textContent()) ?? '', /Last hour: \d+ failures?, 1 timeout;/);
    assert.match((await faults.locator('.last-fault').textContent()) ?? '', /ran longer than its 50 ms deadline/);
    assert.equal(await card().locator('.faults').textContent(), 'None in the last day');
    await page.screenshot({ path: path.join(shots, 'plugins-runtime-1280.png'), fullPage: true });
    for (const name of ['flaky-clock', 'too-big']) {
      assert.equal((await instance.call('DELETE', `/core/api/v1/plugins/${name}/?force=true`, { authorization: TEST_API_KEY })).status, 204);
    }
    assert.deepEqual(failures(), [], 'no script error, no CSP violation');
  });

  it('shows a "Cannot run" badge, with the reason, on a package of the original tool, and none on a Charta plugin', async () => {
    const form = new FormData();
    form.set('package', new Blob([new Uint8Array(originalToolPackage('directory-twice', 'my-cool-plugin'))]), 'my-cool-plugin.tar.gz');
    const installed = await fetch(`${instance.url}/plugin-io/plugins/`, { method: 'POST', body: form, headers: { authorization: TEST_API_KEY } });
    assert.equal(installed.status, 201, await installed.text());
    await page.getByRole('link', { name: 'Live logs' }).click();
    await page.getByRole('link', { name: 'Plugins' }).click();
    const python = page.locator('li.plugin[data-plugin="my-cool-plugin"]');
    await python.waitFor();
    assert.equal(await python.locator('.badge-not-runnable').textContent(), 'Cannot run');
    assert.equal(
      await python.locator('.runnable-reason').textContent(),
      'a Python package for the original tool (its metadata is CANVAS_MANIFEST.json); it has nothing Charta can run',
    );
    assert.equal(await card().locator('.not-runnable').count(), 0, 'a Charta plugin has no badge');
    await python.screenshot({ path: path.join(shots, 'plugins-not-runnable-1280.png') });
    assert.equal((await instance.call('DELETE', '/core/api/v1/plugins/my-cool-plugin/?force=true', { authorization: TEST_API_KEY })).status, 204);
    assert.deepEqual(failures(), [], 'no script error, no CSP violation');
  });

  it('gives grants with the package: without data:instance a plugin reading any patient is installed disabled, saying why; with it, it runs', async () => {
    const wide = async (name: string) => ({
      name: `${name}.tar.gz`,
      mimeType: 'application/gzip',
      buffer: await pluginPackage(name, [{ className: 'Wide', events: ['PLAN_COMMAND__POST_COMMIT'], compute: '    return [];' }], {
        data: { read: ['patients'], scope: 'instance' },
      }),
    });
    const grant = page.getByRole('checkbox', { name: 'data:instance' });
    assert.equal(await grant.isChecked(), false, 'no grant unless one is ticked');
    await page.getByLabel('Package file').setInputFiles(await wide('wide-without'));
    await page.getByRole('status').filter({ hasText: 'wide-without is disabled: its manifest asks data.scope instance' }).waitFor();
    const without = page.locator('li.plugin[data-plugin="wide-without"]');
    await without.locator('dd.disabled').waitFor();

    await grant.check();
    await page.getByLabel('Package file').setInputFiles(await wide('wide-with'));
    const withGrant = page.locator('li.plugin[data-plugin="wide-with"]');
    await withGrant.locator('dd.enabled').waitFor();
    assert.deepEqual(await withGrant.getByRole('list', { name: 'Grants of wide-with' }).getByRole('listitem').allTextContents(), ['data:instance']);
    assert.equal(await withGrant.locator('.data-access').textContent(), 'patients: any patient');
    await grant.uncheck();
    for (const name of ['wide-without', 'wide-with'])
      assert.equal((await instance.call('DELETE', `/core/api/v1/plugins/${name}/?force=true`, { authorization: TEST_API_KEY })).status, 204);
    assert.deepEqual(failures(), [], 'no script error, no CSP violation');
  });

  it('shows the routes a plugin serves with their authentication, a public one flagged', async () => {
    const compute = "    return [{ type: 'HTTP_RESPONSE', payload: { status: 200, body: {} } }];";
    const routes = [
      { method: 'GET', path: '/form', public: true },
      { method: 'POST', path: '/hook', auth: 'secret', signature_header: 'x-sig' },
    ];
    await page.getByLabel('Package file').setInputFiles({
      name: 'served.tar.gz',
      mimeType: 'application/gzip',
      buffer: await pluginPackage('served', [{ className: 'Served', events: ['SIMPLE_API_REQUEST'], statics: { ROUTES: routes }, compute }]),
    });
    const served = page.locator('li.plugin[data-plugin="served"]');
    await served.locator('dd.enabled').waitFor();
    const items = served.getByRole('list', { name: 'Routes of served' }).getByRole('listitem');
    assert.deepEqual(await items.allTextContents(), ['GET /plugin-io/api/served/form public', 'POST /plugin-io/api/served/hook secret (x-sig)']);
    assert.equal(await served.locator('.badge.public').count(), 1, 'the public route is flagged');
    assert.equal(await served.locator('dd.schedules').textContent(), 'None');
    assert.equal(await card().locator('dd.routes').textContent(), 'None', 'a plugin serving nothing says so');
    assert.equal((await instance.call('DELETE', '/core/api/v1/plugins/served/?force=true', { authorization: TEST_API_KEY })).status, 204);
    assert.deepEqual(failures(), [], 'no script error, no CSP violation');
  });

  it("lists what the plugin read of the record: each read, its patient, its rows, a refusal's reason", async () => {
    // Two rows of the audit trail as the runtime writes them for a plugin's reads (runtime/data-reads.ts).
    const actor = `plugin:${pkg.name}`;
    const row = (action: string, patient: string, after: Record<string, unknown>) =>
      appendAudit(instance.storage.db, {
        occurred_at: nowMicros(),
        actor,
        credential: actor,
        action,
        entity_type: 'patient',
        entity_id: patient,
        before: null,
        after: JSON.stringify({ event_id: 'e1', event_type: 'PLAN_COMMAND__POST_COMMIT', handler: 'h.js:H', keys: [patient], ...after }),
        request_id: null,
      });
    await row('plugin.read', 'a'.repeat(32), { read: 'chart.get', rows: 3 });
    await row('plugin.read_refused', 'b'.repeat(32), { read: 'patients.get', rows: 0, refused: "patient bbbb… is not the event's patient" });
    const reads = card().locator('details.reads');
    await reads.locator('summary').click();
    const rows = reads.getByRole('table', { name: `Reads of ${pkg.name}` }).locator('tbody tr');
    await rows.first().waitFor();
    assert.equal(await reads.locator('summary').textContent(), 'Reads of the record: 2');
    const cells = async (n: number) => (await rows.nth(n).locator('td').allTextContents()).slice(1);
    assert.equal(await rows.count(), 2);
    assert.deepEqual(
      await cells(0),
      ['patients.get', 'b'.repeat(32), '0', "refused: patient bbbb… is not the event's patient"],
      'newest first (the time left out)',
    );
    assert.deepEqual(await cells(1), ['chart.get', 'a'.repeat(32), '3', 'given']);
    // The time as every page shows one (in the browser's zone, the instant in datetime), and the
    // table in a region the keyboard can scroll sideways.
    const stamp = rows.first().locator('td').first().locator('time');
    assert.match((await stamp.getAttribute('datetime')) ?? '', /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d/);
    assert.notEqual(await stamp.textContent(), await stamp.getAttribute('datetime'), 'not the raw ISO text');
    const region = reads.getByRole('region', { name: `Reads of ${pkg.name}, scrolling sideways` });
    assert.equal(await region.getAttribute('tabindex'), '0');
    assert.deepEqual(failures(), [], 'no script error, no CSP violation');
  });

  it('works at 375 px wide', async () => {
    await page.setViewportSize({ width: 375, height: 800 });
    await page.screenshot({ path: path.join(shots, 'plugins-375.png'), fullPage: true });
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    assert.equal(overflow, 0, 'no horizontal scrolling');
    await page.setViewportSize({ width: 1280, height: 900 });
  });

  it('deletes only after the confirmation', async () => {
    await card().getByRole('button', { name: 'Delete' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.waitFor();
    assert.match((await dialog.textContent()) ?? '', /It is enabled: it will be stopped/);
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'hidden' });
    assert.equal(await card().count(), 1, 'still there after Cancel');
    await card().getByRole('button', { name: 'Delete' }).click();
    await page
      .getByRole('dialog')
      .getByRole('button', { name: `Delete ${pkg.name}` })
      .click();
    await page
      .getByRole('status')
      .filter({ hasText: `${pkg.name} deleted.` })
      .waitFor();
    // The list is read again after the status is shown: the card goes once that answer is in.
    await card().waitFor({ state: 'detached', timeout: 10_000 });
    assert.equal(await card().count(), 0);
    const r = await instance.call('GET', `/core/api/v1/plugins/${pkg.name}/`, { authorization: TEST_API_KEY });
    assert.equal(r.status, 404);
  });

  it('signs out, forgetting everything, then signs in with OAuth client credentials', async () => {
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByLabel('API key', { exact: true }).waitFor();
    assert.equal(await page.getByLabel('API key', { exact: true }).inputValue(), '');
    assert.equal(await page.locator('li.plugin, .panel').count(), 0, 'no page is left');
    await page.getByLabel('OAuth client credentials').check();
    await page.getByLabel('Client id').fill(TEST_CLIENT_ID);
    await page.getByLabel('Client secret').fill(TEST_CLIENT_SECRET);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByText(`Signed in as client ${TEST_CLIENT_ID}`).waitFor();
    await page.getByText('No plugin is installed yet.').waitFor();
    const kept = await page.evaluate(() => ({ local: localStorage.length, session: sessionStorage.length, cookie: document.cookie }));
    assert.deepEqual(kept, { local: 0, session: 0, cookie: '' });
    assert.deepEqual(failures(), [], 'no script error, no CSP violation');
  });
});
