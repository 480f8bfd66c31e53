// The console's live logs page in headless Chromium (docs/console.md, "Live logs"), against a real
// instance on port 0 serving the real build: the stream authenticated in its first message (the
// key never in the URL), a plugin installed through the API showing its lifecycle line, the
// filters, pause with its count and resume, a dropped-lines notice, copy as JSON, the connection
// cut server-side (its TCP socket destroyed) and the page reconnecting (with the lines it missed), 1,000 lines/s and a burst
// past the buffer with a bounded DOM, the phone width, the stream closed on sign-out, and the
// stream authenticated by an OAuth client's token. The page's layout (issue 22, item 10): the list
// reaches the bottom of the viewport and the page does not scroll by itself; a picked line is
// expanded in place and shown with all its fields in a panel beside the list; a filter matching
// nothing says so with a button that clears the filters; the plugin filter in the address
// (`#logs?plugin=NAME`); at 375 px a line wraps instead of cutting an id with an ellipsis; the
// list keeps its height whether it follows the newest line or not (the jump button floats over it).
// One browser, one page.
import { after, before, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Duplex } from 'node:stream';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { startInstance, TEST_API_KEY, TEST_CLIENT_ID, TEST_CLIENT_SECRET, type Instance } from '../../server/test/support/harness.ts';
import { manifestJson, tarFromDir, VITALS_HANDLER_JS } from '../../server/test/support/archives.ts';
import { describeInChromium, consoleBuild, launch, outputDir, watchPage } from './support/browser.ts';
import { until } from '../../server/test/support/until.ts';

/** The buffer's size (packages/console/src/logs/buffer.ts, CAPACITY). */
const CAPACITY = 10_000;

describeInChromium('console in Chromium: live logs', (executable) => {
  let instance: Instance;
  let browser: Browser;
  let page: Page;
  const failures: string[] = [];
  /** The log stream's connections as the server's HTTP layer handed them over (open ones). */
  const streams = new Set<Duplex>();
  const shots = outputDir();
  const rows = () => page.locator('#log-lines .vlist-row');
  const row = (text: string) => rows().filter({ hasText: text });
  const emit = (
    event: string,
    extra: Omit<Parameters<Instance['app']['logs']['emit']>[0], 'event' | 'level'> & { level?: 'debug' | 'info' | 'warning' | 'error' } = {},
  ) => instance.app.logs.emit({ level: 'info', event, ...extra });
  /** Whether an element's text is all visible: nothing cut by its width or height. */
  const whole = (selector: string) =>
    page.locator(selector).evaluate((el) => ({
      clipped: el.scrollWidth > el.clientWidth + 1 || el.scrollHeight > el.clientHeight + 1,
      ellipsis: getComputedStyle(el).textOverflow === 'ellipsis' && el.scrollWidth > el.clientWidth + 1,
    }));
  /** Follows the newest line again (End, in the list), with no line picked. */
  const following = async () => {
    await page.locator('#log-lines').focus();
    await page.keyboard.press('End');
    await page.getByRole('button', { name: 'Close' }).click();
    await page.getByRole('button', { name: 'Jump to the newest line' }).waitFor({ state: 'detached' });
  };
  /** The command created in the filters' test (its line is looked at again at 375 px). */
  let command: { uuid: string; noteKey: string };
  const choose = async (label: string, value: string) => page.getByLabel(label, { exact: true }).selectOption(value);

  before(async () => {
    instance = await startInstance('sqlite', { consoleDir: consoleBuild() });
    // Beside the WebSocket server's own listener: each stream's TCP socket, to count and to cut.
    instance.app.server.on('upgrade', (request: { url?: string }, socket: Duplex) => {
      if (!request.url?.startsWith('/core/api/v1/logging/')) return;
      streams.add(socket);
      socket.on('close', () => streams.delete(socket));
    });
    browser = await launch(executable);
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: instance.url });
    page = await context.newPage();
    watchPage(page, failures);
  });
  after(async () => {
    await browser?.close();
    await instance?.stop();
  });

  it('signs in and opens the live logs page: live, with the key in no URL', async () => {
    const upgrades: string[] = [];
    page.on('websocket', (ws) => upgrades.push(ws.url()));
    await page.goto(`${instance.url}/console/`);
    await page.getByLabel('API key', { exact: true }).fill(TEST_API_KEY);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByText('No plugin is installed yet.').waitFor();
    await page.getByRole('link', { name: 'Live logs' }).click();
    await page.locator('#log-status', { hasText: /^Live$/ }).waitFor();
    assert.equal(await page.getByRole('link', { name: 'Live logs' }).getAttribute('aria-current'), 'page');
    assert.equal(page.url(), `${instance.url}/console/#logs`);
    assert.equal(upgrades.length, 1);
    assert.match(upgrades[0]!, /^ws:\/\/127\.0\.0\.1:\d+\/core\/api\/v1\/logging\/\?since=5m$/);
    assert.ok(!upgrades[0]!.includes(TEST_API_KEY));
    assert.equal(streams.size, 1, 'one stream, authenticated in its first message');
  });

  it('fills the height of the viewport under the controls, at 900 and 1,200 px high', async () => {
    for (let i = 1; i <= 40; i++) emit(`filling line ${i}`);
    await row('filling line 40').waitFor();
    // A few frames for anything that would move the page.
    await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(resolve, 100)))));
    assert.equal(await page.evaluate(() => scrollY), 0, 'the page is not scrolled');
    const box = (await page.locator('#log-lines').boundingBox())!;
    const bottom = box.y + box.height;
    assert.ok(bottom <= 900 && bottom >= 900 - 32, `the list ends at ${bottom} px in a 900 px viewport`);
    assert.ok(box.height >= 560, `the list is ${box.height} px high`);
    // Taller windows, a longer list.
    await page.setViewportSize({ width: 1280, height: 1200 });
    await until(
      'the list to grow',
      async () => {
        const b = (await page.locator('#log-lines').boundingBox())!;
        return b.y + b.height >= 1200 - 32 && b.y + b.height <= 1200;
      },
      5_000,
    );
    await page.setViewportSize({ width: 1280, height: 900 });
  });

  it('keeps the list as high when it stops following: "Jump to the newest line" floats over it', async () => {
    const list = page.locator('#log-lines');
    const jump = page.getByRole('button', { name: 'Jump to the newest line' });
    const followingBox = (await list.boundingBox())!;
    await list.evaluate((el) => (el.scrollTop = 0));
    await jump.waitFor();
    assert.deepEqual(await list.boundingBox(), followingBox, 'scrolled up, the list has the height it had while following');
    // Over the list's bottom right, inside it: reaching the bottom takes it away and moves no row.
    const button = (await jump.boundingBox())!;
    assert.ok(button.y + button.height <= followingBox.y + followingBox.height && button.y > followingBox.y, 'the button is over the list');
    assert.ok(button.x + button.width <= followingBox.x + followingBox.width, 'the button is inside the list');
    await list.evaluate((el) => (el.scrollTop = el.scrollHeight));
    await jump.waitFor({ state: 'detached' });
    assert.deepEqual(await list.boundingBox(), followingBox, 'following again, the list has not grown');
  });

  it('does not scroll the page by itself when opened from the nav, on a short window or a phone', async () => {
    for (const viewport of [
      { width: 1280, height: 700 },
      { width: 375, height: 667 },
    ]) {
      await page.setViewportSize(viewport);
      await page.getByRole('link', { name: 'Plugins' }).click();
      await page.getByText('No plugin is installed yet.').waitFor();
      // At the top of the page, where the nav is.
      await page.evaluate(() => scrollTo(0, 0));
      await page.getByRole('link', { name: 'Live logs' }).click();
      await page.locator('#log-status', { hasText: /^Live$/ }).waitFor();
      emit(`opened at ${viewport.width}`);
      await row(`opened at ${viewport.width}`).waitFor();
      await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(resolve, 200)))));
      assert.equal(await page.evaluate(() => scrollY), 0, `the page is not scrolled at ${viewport.width} × ${viewport.height}`);
      // The content has the focus all the same (app.tsx), for a screen reader.
      assert.equal(await page.evaluate(() => document.activeElement?.id), 'main');
    }
    await page.setViewportSize({ width: 1280, height: 900 });
  });

  it('shows the lifecycle line of a plugin installed through the API', async () => {
    const pkg = await tarFromDir(
      { 'CHARTA_MANIFEST.json': manifestJson({ plugin_version: '1.0.0', name: 'Vitals Alert' }), 'dist/index.js': VITALS_HANDLER_JS },
      ['.'],
    );
    const form = new FormData();
    form.set('package', new Blob([new Uint8Array(pkg)]), 'plugin.tar.gz');
    const res = await fetch(`${instance.url}/core/api/v1/plugins/`, { method: 'POST', body: form, headers: { authorization: TEST_API_KEY } });
    assert.equal(res.status, 201, await res.text());
    await row('plugin vitals-alert 1.0.0 installed (enabled)').waitFor();
    assert.match((await row('plugin vitals-alert 1.0.0 installed').textContent()) ?? '', /^\d\d:\d\d:\d\d\.\d{3} info vitals-alert plugin vitals-alert/);
  });

  it('narrows the rows by plugin, minimum level, failures and text', async () => {
    const c = await instance.command('plan');
    command = c;
    emit('handler crashed: boom', { level: 'error', plugin: 'vitals-alert', success: false });
    emit('a warning of the server', { level: 'warning' });
    await row('handler crashed').waitFor();
    await row(`command ${c.uuid}`).waitFor();

    await choose('Plugin', 'vitals-alert');
    await row(`command ${c.uuid}`).waitFor({ state: 'detached' });
    for (const text of await rows().allTextContents()) assert.match(text, /vitals-alert/);
    await choose('Plugin', '');

    await choose('Minimum level', 'warning');
    await row('plugin vitals-alert 1.0.0 installed').waitFor({ state: 'detached' });
    assert.deepEqual(
      (await rows().allTextContents()).map((t) => t.replace(/^\S+ /, '')),
      ['error vitals-alert handler crashed: boom', 'warning a warning of the server'],
    );
    await choose('Minimum level', 'debug');

    await page.getByLabel('Failures only').check();
    await row('a warning of the server').waitFor({ state: 'detached' });
    assert.equal(await rows().count(), 1);
    await page.getByLabel('Failures only').uncheck();

    await page.getByLabel('Text', { exact: true }).fill(c.uuid.toUpperCase());
    await row('plugin vitals-alert').first().waitFor({ state: 'detached' });
    assert.deepEqual(
      (await rows().allTextContents()).map((t) => t.replace(/^\S+ /, '')),
      [`info command ${c.uuid} (plan) created in note ${c.noteKey}`],
    );
    await page.getByLabel('Text', { exact: true }).fill('');
    await row('plugin vitals-alert 1.0.0 installed').waitFor();
  });

  it('says "No lines match — clear filters" when the filters match nothing, with a button that clears them', async () => {
    await choose('Plugin', 'vitals-alert');
    await page.getByLabel('Text', { exact: true }).fill('no line says this');
    await rows().first().waitFor({ state: 'detached' });
    await page.locator('#log-empty', { hasText: 'No lines match — clear filters' }).waitFor();
    await page.getByRole('button', { name: 'clear filters' }).click();
    await row('plugin vitals-alert 1.0.0 installed').waitFor();
    await row(`command ${command.uuid}`).waitFor();
    assert.equal(await page.getByLabel('Plugin', { exact: true }).inputValue(), '');
    assert.equal(await page.getByLabel('Text', { exact: true }).inputValue(), '');
    assert.equal(await page.locator('#log-empty').count(), 0);
  });

  it('takes the plugin filter from the address (#logs?plugin=NAME), and keeps the address in step', async () => {
    await page.getByRole('link', { name: 'Plugins' }).click();
    await page.locator('#log-lines').waitFor({ state: 'detached' });
    await page.evaluate(() => (location.hash = '#logs?plugin=vitals-alert'));
    await page.locator('#log-status', { hasText: /^Live/ }).waitFor();
    await row('plugin vitals-alert 1.0.0 installed').waitFor();
    assert.equal(await page.getByLabel('Plugin', { exact: true }).inputValue(), 'vitals-alert');
    assert.equal(await page.getByRole('link', { name: 'Live logs' }).getAttribute('aria-current'), 'page');
    for (const text of await rows().allTextContents()) assert.match(text, /vitals-alert/);
    await choose('Plugin', '');
    await row(`command ${command.uuid}`).waitFor();
    assert.equal(page.url(), `${instance.url}/console/#logs`);
    await choose('Plugin', 'vitals-alert');
    assert.equal(page.url(), `${instance.url}/console/#logs?plugin=vitals-alert`);
    // Back to every line by the address, the page staying open.
    await page.evaluate(() => (location.hash = '#logs'));
    await row(`command ${command.uuid}`).waitFor();
    assert.equal(await page.getByLabel('Plugin', { exact: true }).inputValue(), '');
  });

  it('expands a picked line in place, whole, and shows all its fields beside the list', async () => {
    const message = `handler threw: TypeError: Cannot read properties of undefined (reading 'dose') ${'while checking the vitals of the note '.repeat(6)}END-OF-MESSAGE`;
    emit(message, {
      level: 'error',
      plugin: 'vitals-alert',
      success: false,
      fault: 'threw',
      handler: 'dist/index.js:onPlanCommit',
      event_type: 'PLAN_COMMAND__POST_COMMIT',
      request_id: 'req-1234',
    });
    emit('the line after the long one');
    await row('END-OF-MESSAGE').waitFor();
    await row('the line after the long one').waitFor();
    await row('END-OF-MESSAGE').click();
    const picked = '#log-lines .vlist-row.active';
    await page.locator(picked, { hasText: 'END-OF-MESSAGE' }).waitFor();
    // In place: the whole text wraps inside the row, and the next row is below it, not under it.
    assert.deepEqual(await whole(picked), { clipped: false, ellipsis: false });
    const at = (await page.locator(picked).boundingBox())!;
    assert.ok(at.height > 28 * 2, `the picked row is ${at.height} px high`);
    const next = (await row('the line after the long one').boundingBox())!;
    assert.ok(next.y >= at.y + at.height - 1, 'the next row starts below the expanded one');
    // The panel: beside the list at 1280 px, at its top, with every member of the entry.
    const list = (await page.locator('#log-lines').boundingBox())!;
    const shown = (await page.locator(picked).boundingBox())!;
    assert.ok(shown.y >= list.y - 1 && shown.y + shown.height <= list.y + list.height + 1, 'the expanded row is scrolled into view whole');
    const panel = (await page.locator('#log-detail').boundingBox())!;
    assert.ok(panel.x >= list.x + list.width, 'the panel is beside the list');
    assert.ok(Math.abs(panel.y - list.y) < 4, 'the panel starts at the top of the list');
    assert.equal(await page.locator('#log-detail-message').textContent(), message);
    const fields = await page
      .locator('#log-detail dl > div')
      .evaluateAll((divs) => divs.map((d) => `${d.querySelector('dt')!.textContent}: ${d.querySelector('dd')!.textContent}`));
    assert.deepEqual(
      fields.map((f) => f.replace(/^Time \(UTC\): .*/, 'Time (UTC)')),
      [
        'Level: error',
        'Time (UTC)',
        'Source: server',
        'Plugin: vitals-alert',
        'Handler: dist/index.js:onPlanCommit',
        'Event type: PLAN_COMMAND__POST_COMMIT',
        'Request id: req-1234',
        'Success: false',
        'Fault: threw',
      ],
    );
    assert.match(fields[1]!, /^Time \(UTC\): \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
    await page.screenshot({ path: path.join(shots, 'logs-picked-1280.png') });
    // Picking the next line folds the long one; the next one stays under the pointer.
    await row('the line after the long one').click();
    await page.locator(picked, { hasText: 'the line after the long one' }).waitFor();
    const folded = (await row('END-OF-MESSAGE').boundingBox())!;
    assert.equal(folded.height, 28);
    await page.getByRole('button', { name: 'Close' }).click();
    await following();
  });

  it('holds the rows still while a pointer is pressed on one: a line arriving then does not move another under it', async () => {
    for (let i = 0; i < 40; i++) emit(`filler line ${i} before the pressed one`);
    emit('the line to be pressed');
    await row('the line to be pressed').waitFor();
    await page.getByRole('button', { name: 'Jump to the newest line' }).waitFor({ state: 'detached' });
    const pressedAt = (await row('the line to be pressed').boundingBox())!;
    await page.mouse.move(pressedAt.x + 40, pressedAt.y + pressedAt.height / 2);
    await page.mouse.down();
    for (let i = 0; i < 3; i++) emit(`arrived while pressed ${i}`);
    await row('arrived while pressed 2').waitFor({ state: 'attached' });
    assert.deepEqual(await row('the line to be pressed').boundingBox(), pressedAt, 'the pressed row stayed under the pointer');
    await page.mouse.up();
    await page.locator('#log-lines .vlist-row.active', { hasText: 'the line to be pressed' }).waitFor();
    await following();
    // Released, the list follows the newest line again.
    emit('after the release');
    await row('after the release').waitFor();
  });

  it('wraps a line at 375 px: no id cut with an ellipsis', async () => {
    await page.setViewportSize({ width: 375, height: 800 });
    await page.getByLabel('Text', { exact: true }).fill(command.uuid);
    const line = row(`command ${command.uuid}`);
    await line.waitFor();
    await page.screenshot({ path: path.join(shots, 'logs-wrapped-375.png'), fullPage: true });
    assert.deepEqual(await whole(`#log-lines .vlist-row:has-text("${command.uuid}")`), { clipped: false, ellipsis: false });
    // Picked, the line's panel is under the list on a phone.
    await line.click();
    await page.locator('#log-detail').waitFor();
    const list = (await page.locator('#log-lines').boundingBox())!;
    const panel = (await page.locator('#log-detail').boundingBox())!;
    assert.ok(panel.y >= list.y + list.height, 'the panel is under the list');
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    assert.equal(overflow, 0, 'no horizontal scrolling');
    await page.getByRole('button', { name: 'Close' }).click();
    await page.getByLabel('Text', { exact: true }).fill('');
    await page.setViewportSize({ width: 1280, height: 900 });
    await following();
  });

  it('pause holds lines back with a count; resume shows them', async () => {
    await page.getByRole('button', { name: 'Pause' }).click();
    for (let i = 1; i <= 3; i++) emit(`held line ${i}`);
    await page.locator('#log-held', { hasText: 'Paused: 3 lines held back' }).waitFor();
    assert.equal(await row('held line').count(), 0);
    await page.getByRole('button', { name: 'Resume' }).click();
    await row('held line 3').waitFor();
    assert.equal(await row('held line').count(), 3);
    assert.equal(await page.locator('#log-held').count(), 0);
  });

  it("shows the server's dropped-lines notice, whatever the filters", async () => {
    await choose('Plugin', 'vitals-alert');
    // What the server sends a slow consumer once it catches up (logs/consumer.ts), here through the bus.
    emit('12 log lines dropped (slow consumer)', { level: 'warning' });
    await page.locator('#log-lines .log-dropped', { hasText: '⚠ Server: 12 log lines dropped (slow consumer)' }).waitFor();
    assert.match((await page.locator('#log-dropped').textContent()) ?? '', /the server dropped 12/);
    await choose('Plugin', '');
  });

  it('copies a line as JSON, picked by the keyboard', async () => {
    emit('the line to copy', { plugin: 'vitals-alert' });
    await row('the line to copy').waitFor();
    emit('one more line');
    await row('one more line').waitFor();
    // The list is a listbox: End picks the newest line, ArrowUp the one before.
    await page.locator('#log-lines').focus();
    await page.keyboard.press('End');
    await page.keyboard.press('ArrowUp');
    const active = await page.locator('#log-lines').getAttribute('aria-activedescendant');
    assert.match((await page.locator(`#${active}`).textContent()) ?? '', /the line to copy/);
    await page.getByRole('button', { name: 'Copy as JSON' }).click();
    await page.getByText('Copied to the clipboard.').waitFor();
    const copied = JSON.parse(await page.evaluate(() => navigator.clipboard.readText())) as Record<string, unknown>;
    assert.equal(copied.event, 'the line to copy');
    assert.equal(copied.plugin, 'vitals-alert');
    assert.equal(copied.level, 'info');
    assert.equal(copied.source, 'server');
    assert.match(String(copied.timestamp), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
    await page.getByRole('button', { name: 'Close' }).click();
    // Picking a line stopped following the newest; the button says so and follows again.
    await page.getByRole('button', { name: 'Jump to the newest line' }).click();
    await page.getByRole('button', { name: 'Jump to the newest line' }).waitFor({ state: 'detached' });
  });

  it('says when the connection is cut, reconnects by itself and replays what it missed', async () => {
    // Cut server-side: the TCP connection goes, no close frame (the browser sees 1006).
    for (const socket of streams) socket.destroy();
    await page.locator('#log-status', { hasText: /Connection lost.*Reconnecting in/ }).waitFor();
    emit('while disconnected');
    await page.locator('#log-status', { hasText: 'Live: reconnected (1 time so far)' }).waitFor();
    await row('while disconnected').waitFor();
    emit('after reconnecting');
    await row('after reconnecting').waitFor();
    assert.equal(await row('while disconnected').count(), 1);
    // The replay starts at the last line received before the cut: it is not shown twice.
    assert.equal(await row('one more line').count(), 1, 'the replay skips lines already shown');
  });

  it('keeps the DOM bounded at 1,000 lines/s and past the buffer', async () => {
    const paced = (perTick: number, ticks: number, tag: string) =>
      new Promise<void>((resolve) => {
        let n = 0;
        const timer = setInterval(() => {
          for (let i = 0; i < perTick; i++) emit(`${tag} ${n * perTick + i}`);
          if (++n === ticks) {
            clearInterval(timer);
            resolve();
          }
        }, 10);
      });
    await paced(10, 300, 'rate'); // 3,000 lines over about 3 s
    emit('rate done');
    await row('rate done').waitFor();
    const inDom = await rows().count();
    assert.ok(inDom > 10 && inDom <= 60, `${inDom} rows in the DOM`);
    await page.screenshot({ path: path.join(shots, 'logs-1280.png'), fullPage: true });
    // Past the buffer: the oldest go, the count stops at the capacity, the DOM stays the same size.
    await paced(100, 120, 'burst'); // 12,000 lines at about 10,000 a second
    emit('burst done');
    await row('burst done').waitFor({ timeout: 30_000 });
    await page.locator('#log-kept', { hasText: CAPACITY.toLocaleString('en-US') }).waitFor();
    assert.ok((await rows().count()) <= 60);
    // The first lines have been evicted: filtered for one, only the server's dropped-lines notices (if any) are left.
    await page.getByLabel('Text', { exact: true }).fill('vitals-alert 1.0.0 installed');
    await page.locator('#log-lines .vlist-row:not(.log-dropped)').first().waitFor({ state: 'detached' });
    await page.getByLabel('Text', { exact: true }).fill('');
  });

  it('works at 375 px wide', async () => {
    await page.setViewportSize({ width: 375, height: 800 });
    await page.screenshot({ path: path.join(shots, 'logs-375.png'), fullPage: true });
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    assert.equal(overflow, 0, 'no horizontal scrolling');
    await page.setViewportSize({ width: 1280, height: 900 });
  });

  it('closes the stream on sign-out; signed in with the OAuth client, the stream takes its token', async () => {
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByLabel('API key', { exact: true }).waitFor();
    await until('the stream to close', () => streams.size === 0, 10_000);
    await page.getByLabel('OAuth client credentials').check();
    await page.getByLabel('Client id').fill(TEST_CLIENT_ID);
    await page.getByLabel('Client secret').fill(TEST_CLIENT_SECRET);
    await page.getByRole('button', { name: 'Sign in' }).click();
    // Still at #logs: the page opens with a new stream, authenticated by the bearer token.
    await page.locator('#log-status', { hasText: /^Live$/ }).waitFor();
    await row('burst done').waitFor();
    assert.equal(streams.size, 1);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await until('the stream to close', () => streams.size === 0, 10_000);
    assert.deepEqual(failures, [], 'no script error, no CSP violation');
  });
});
