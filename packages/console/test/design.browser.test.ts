// The console's design system in headless Chromium (docs/console.md, "Design system"; issue 22
// item 11, "It looks unfinished"), against a real instance on port 0 with the demo data and a
// plugin installed: navigation links that are not underlined and carry an icon, icons on the main
// buttons, a page title larger than its section titles, a danger button lighter than the primary
// action except in its confirmation, no bordered panel inside another, a favicon (SVG, and
// /favicon.ico without credentials), a dark scheme under `prefers-color-scheme: dark` that axe
// finds clean, a refused commit's reason shown once with the field's label, and the whole
// console's JavaScript under 150 KB compressed.
import { after, before, it } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { startInstance, type Instance } from '../../server/test/support/harness.ts';
import { installPlugin } from '../../server/test/support/plugins.ts';
import { describeInChromium, consoleBuild, launch, outputDir, signInWithClient, watchPage } from './support/browser.ts';
import { audit } from './support/axe.ts';

/** Relative luminance (WCAG) of a computed `rgb()`/`rgba()` colour; undefined when it is not opaque. */
function luminance(css: string): number | undefined {
  const m = /rgba?\(([\d.]+),\s*([\d.]+),\s*([\d.]+)(?:,\s*([\d.]+))?\)/.exec(css);
  if (!m || (m[4] !== undefined && Number(m[4]) < 1)) return undefined;
  const [r, g, b] = [m[1], m[2], m[3]].map((v) => {
    const c = Number(v) / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * r! + 0.7152 * g! + 0.0722 * b!;
}

/** Whether a computed background colour paints anything (not transparent). */
const filled = (css: string) => !/^rgba\(\d+,\s*\d+,\s*\d+,\s*0\)$/.test(css) && css !== 'transparent';

/**
 * The bordered boxes (a border on all four sides) shown inside another under `main`: what
 * "panels nested in panels" means. Form controls, inline badges and popups (a listbox) are not
 * panels. A string, evaluated in the page as is (tsx would wrap named functions in a helper the
 * page does not have).
 */
const NESTED_PANELS = `(() => {
  const isPanel = (el) => {
    if (['INPUT', 'SELECT', 'TEXTAREA', 'BUTTON', 'SUMMARY', 'OPTION'].includes(el.tagName) || el.getAttribute('role') === 'listbox') return false;
    const s = getComputedStyle(el);
    if (s.display === 'none' || s.display.startsWith('inline') || s.visibility === 'hidden') return false;
    return ['top', 'right', 'bottom', 'left'].every((side) => parseFloat(s.getPropertyValue('border-' + side + '-width')) >= 1 && s.getPropertyValue('border-' + side + '-style') !== 'none');
  };
  const name = (el) => el.tagName.toLowerCase() + (el.id ? '#' + el.id : '') + (typeof el.className === 'string' && el.className.trim() ? '.' + el.className.trim().split(/\\s+/).join('.') : '');
  const found = [];
  for (const el of document.querySelectorAll('main *')) {
    if (!isPanel(el)) continue;
    for (let up = el.parentElement; up !== null && up.tagName !== 'MAIN'; up = up.parentElement) {
      if (isPanel(up)) {
        found.push(name(el) + ' inside ' + name(up));
        break;
      }
    }
  }
  return found;
})()`;

describeInChromium('console in Chromium: the design system', (executable) => {
  let instance: Instance;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  const failures: string[] = [];
  const shots = outputDir();

  const signIn = async (p: Page, hash: string) => {
    await p.goto(`${instance.url}/console/${hash}`);
    await signInWithClient(p);
  };
  const style = (selector: string, property: string) =>
    page
      .locator(selector)
      .first()
      .evaluate((el, p) => getComputedStyle(el).getPropertyValue(p), property);

  /**
   * The bordered boxes (a border on all four sides) shown inside another: what "panels nested in
   * panels" means. Form controls, inline badges and popups (a listbox) are not panels.
   */
  const nestedPanels = () => page.evaluate(NESTED_PANELS) as Promise<string[]>;

  before(async () => {
    instance = await startInstance('sqlite', { consoleDir: consoleBuild(), demo: true });
    await installPlugin(instance.url, 'design-demo', [{ className: 'Quiet', events: ['PLAN_COMMAND__POST_COMMIT'], compute: '    return [];' }], {
      description: 'A plugin for the design test',
    });
    browser = await launch(executable);
    context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    page = await context.newPage();
    watchPage(page, failures);
    await signIn(page, '#plugins');
  });
  after(async () => {
    await browser?.close();
    await instance?.stop();
  });

  it('navigation links are not underlined, and each carries an icon; so do the main buttons', async () => {
    await page.locator('li[data-plugin="design-demo"]').waitFor();
    const nav = page.getByRole('navigation', { name: 'Pages' }).getByRole('link');
    assert.deepEqual(await nav.allTextContents(), ['Plugins', 'Live logs', 'Patients', 'Audit']);
    for (const link of await nav.all()) {
      const name = await link.textContent();
      assert.equal(await link.evaluate((el) => getComputedStyle(el).textDecorationLine), 'none', `${name} is not underlined`);
      assert.equal(await link.locator('svg').count(), 1, `${name} has an icon`);
      assert.equal(await link.locator('svg').getAttribute('aria-hidden'), 'true', `${name}'s icon is hidden from screen readers`);
    }
    const card = page.locator('li[data-plugin="design-demo"]');
    for (const button of [
      page.getByRole('button', { name: 'Sign out' }),
      card.getByRole('button', { name: /^(Enable|Disable)$/ }),
      card.getByRole('button', { name: 'Download package' }),
      card.getByRole('button', { name: 'Delete' }),
    ]) {
      assert.equal(await button.locator('svg').count(), 1, `${await button.textContent()} has an icon`);
    }
    await page.getByRole('link', { name: 'Patients' }).click();
    await page.getByRole('button', { name: 'Search' }).waitFor();
    assert.equal(await page.getByRole('button', { name: 'Search' }).locator('svg').count(), 1, 'Search has an icon');
  });

  it('a page title is larger than its section titles', async () => {
    await page.getByRole('link', { name: 'Plugins' }).click();
    await page.locator('#installed-title').waitFor();
    const title = parseFloat(await style('main > h2', 'font-size'));
    for (const section of ['#upload-title', '#installed-title']) {
      const size = parseFloat(await style(section, 'font-size'));
      assert.ok(title > size, `the page title (${title} px) is larger than ${section} (${size} px)`);
    }
    await page.getByRole('link', { name: 'Live logs' }).click();
    await page.locator('#logs-title').waitFor();
    assert.equal(await style('#logs-title', 'font-size'), `${title}px`, 'every page title has one size');
  });

  it('a danger button is lighter than the primary action, except in its confirmation', async () => {
    await page.getByRole('link', { name: 'Plugins' }).click();
    const card = page.locator('li[data-plugin="design-demo"]');
    const primary = card.getByRole('button', { name: /^(Enable|Disable)$/ });
    const danger = card.getByRole('button', { name: 'Delete' });
    const bg = (l: typeof primary) => l.evaluate((el) => getComputedStyle(el).backgroundColor);
    const cardBg = await card.evaluate((el) => getComputedStyle(el).backgroundColor);
    assert.ok(filled(await bg(primary)), 'the primary action is filled');
    assert.notEqual(await bg(danger), await bg(primary));
    assert.ok(!filled(await bg(danger)) || (await bg(danger)) === cardBg, `Delete is not filled (${await bg(danger)} on ${cardBg})`);
    // Its colour says what it does: its text is the danger colour, not the body text's.
    assert.notEqual(await danger.evaluate((el) => getComputedStyle(el).color), await card.evaluate((el) => getComputedStyle(el).color));
    await danger.click();
    const confirm = page.getByRole('dialog').getByRole('button', { name: 'Delete design-demo' });
    await confirm.waitFor();
    assert.ok(filled(await bg(confirm)), 'the confirmation is filled');
    assert.equal(await bg(confirm), await danger.evaluate((el) => getComputedStyle(el).color), 'filled with the danger colour');
    await page.screenshot({ path: path.join(shots, 'design-delete-confirm-1280.png') });
    await page.getByRole('dialog').getByRole('button', { name: 'Cancel' }).click();
  });

  it('no bordered panel is inside another, on the plugins page, the live logs, a patient and a note with the editor open', async () => {
    const card = page.locator('li[data-plugin="design-demo"]');
    await card.getByRole('button', { name: 'Secrets and logs' }).click();
    await card.getByText('Recent log lines').waitFor();
    const found: string[] = (await nestedPanels()).map((f) => `plugins: ${f}`);
    await page.getByRole('link', { name: 'Live logs' }).click();
    await page.locator('#log-status', { hasText: /^Live$/ }).waitFor();
    instance.app.logs.emit({ level: 'error', event: 'handler failed', plugin: 'design-demo', success: false });
    await page.locator('#log-lines .vlist-row').filter({ hasText: 'handler failed' }).click();
    await page.getByRole('button', { name: 'Copy as JSON' }).waitFor();
    found.push(...(await nestedPanels()).map((f) => `logs: ${f}`));
    await page.getByRole('link', { name: 'Patients' }).click();
    await page.getByRole('link', { name: 'Ada Demo' }).first().click();
    await page.locator('ul.notes > li').first().waitFor();
    found.push(...(await nestedPanels()).map((f) => `patient: ${f}`));
    await page.getByRole('link', { name: 'Office visit (demo)' }).click();
    await page.getByLabel('Add a command of kind').selectOption('plan');
    await page.getByRole('button', { name: 'Add command' }).click();
    await page.locator('form.editor').getByLabel('Narrative').waitFor();
    found.push(...(await nestedPanels()).map((f) => `note: ${f}`));
    assert.deepEqual(found, []);
  });

  it("a refused commit shows its reason once, with the field's label", async () => {
    const editor = page.locator('form.editor');
    await editor.getByRole('button', { name: 'Commit' }).click();
    await editor.getByRole('alert').first().waitFor();
    const narrative = editor.getByLabel('Narrative');
    await page.waitForFunction(() => document.querySelector('form.editor [aria-invalid="true"]') !== null);
    const text = await editor.innerText();
    // Once, besides the labels' own mark "(required to commit)".
    assert.equal(text.match(/required to commit(?!\))/gi)?.length, 1, `the reason once: ${text}`);
    const describedBy = (await narrative.getAttribute('aria-describedby'))!.split(' ')[0]!;
    assert.equal(await page.locator(`[id="${describedBy}"]`).innerText(), 'Narrative is required to commit.', "next to the field, with the field's label");
    assert.doesNotMatch(text, /'narrative'|narrative is required/, 'the raw field name is not shown');
    await page.screenshot({ path: path.join(shots, 'design-refusal-1280.png'), fullPage: true });
  });

  it('a favicon: an SVG linked from the page, and /favicon.ico answered without credentials', async () => {
    const href = await page.locator('link[rel="icon"]').getAttribute('href');
    assert.ok(href, 'index.html links an icon');
    const svg = await fetch(new URL(href, `${instance.url}/console/`));
    assert.equal(svg.status, 200);
    assert.equal(svg.headers.get('content-type'), 'image/svg+xml');
    const ico = await fetch(`${instance.url}/favicon.ico`);
    assert.equal(ico.status, 200);
    assert.match(ico.headers.get('content-type') ?? '', /^image\//);
    const bytes = Buffer.from(await ico.arrayBuffer());
    assert.deepEqual([...bytes.subarray(0, 4)], [0, 0, 1, 0], 'an ICO file');
    // A page load asks for nothing that is not there.
    const missing: string[] = [];
    const fresh = await context.newPage();
    fresh.on('response', (r) => void (r.status() === 404 && missing.push(r.url())));
    await fresh.goto(`${instance.url}/console/`);
    await fresh.getByRole('button', { name: 'Sign in' }).waitFor();
    await fresh.waitForLoadState('networkidle');
    await fresh.close();
    assert.deepEqual(missing, []);
  });

  it('a dark scheme under prefers-color-scheme: dark, which axe finds clean', async () => {
    const dark = await browser.newContext({ viewport: { width: 1280, height: 900 }, colorScheme: 'dark' });
    const p = await dark.newPage();
    watchPage(p, failures);
    await p.goto(`${instance.url}/console/`);
    await p.getByRole('button', { name: 'Sign in' }).waitFor();
    const body = await p.evaluate(() => getComputedStyle(document.body).backgroundColor);
    const l = luminance(body);
    assert.ok(l !== undefined && l < 0.05, `the body is dark: ${body}`);
    const fg = luminance(await p.evaluate(() => getComputedStyle(document.body).color));
    assert.ok(fg !== undefined && fg > 0.6, 'its text is light');
    assert.deepEqual(await audit(p), [], 'the sign-in form');
    await signIn(p, '#plugins');
    await p.locator('li[data-plugin="design-demo"]').waitFor();
    assert.deepEqual(await audit(p), [], 'the plugins page');
    await p.screenshot({ path: path.join(shots, 'design-plugins-dark-1280.png'), fullPage: true });
    await dark.close();
  });

  it('the whole console is under 150 KB of compressed JavaScript', async () => {
    const html = await (await fetch(`${instance.url}/console/`)).text();
    const scripts = [...html.matchAll(/<script[^>]+src="([^"]+)"/g)].map((m) => m[1]!);
    assert.ok(scripts.length > 0);
    let bytes = 0;
    for (const src of scripts) {
      const res = await fetch(new URL(src, instance.url), { headers: { 'accept-encoding': 'gzip' } });
      assert.equal(res.headers.get('content-encoding'), 'gzip');
      // fetch decodes the body: the bytes on the wire are the server's gzipped copy, measured here by recompressing.
      bytes += gzipSync(Buffer.from(await res.arrayBuffer()), { level: 9 }).length;
    }
    assert.ok(bytes < 150 * 1024, `${bytes} bytes of compressed JavaScript`);
    assert.deepEqual(failures, [], 'no script error, no CSP violation');
  });
});
