// The console's live logs page in headless Chromium (docs/console.md, "Live logs"), against a real
// instance on port 0 serving the real build: the stream authenticated in its first message (the
// key never in the URL), a plugin installed through the API showing its lifecycle line, the
// filters, pause with its count and resume, a dropped-lines notice, copy as JSON, the connection
// cut server-side (its TCP socket destroyed) and the page reconnecting (with the lines it missed), 1,000 lines/s and a burst
// past the buffer with a bounded DOM, the phone width, the stream closed on sign-out, and the
// stream authenticated by an OAuth client's token.
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
  const emit = (event: string, extra: { level?: 'debug' | 'info' | 'warning' | 'error'; plugin?: string; success?: boolean } = {}) =>
    instance.app.logs.emit({ level: 'info', event, ...extra });
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
