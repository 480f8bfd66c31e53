// Browser tests' support (docs/console.md, "Browser tests"): finds Debian's Chromium, launches it
// headless through playwright-core, serves the real console build, and names where screenshots go.
// Without Chromium a test file reports one skip line naming the executable it looked for; with
// CI=true that is a failure instead: browser tests are never silently skipped in CI.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { TEST_CLIENT_ID, TEST_CLIENT_SECRET } from '../../../server/test/support/harness.ts';
import { buildConsole, consoleBuildState, CONSOLE_DIST } from '../../../../scripts/console-build.js';

const CANDIDATES = ['/usr/bin/chromium', '/usr/bin/chromium-browser'];

/** The Chromium to drive: CHARTA_CHROMIUM, else Debian's. */
export function findChromium(): { path: string } | { missing: string } {
  const wanted = process.env.CHARTA_CHROMIUM;
  if (wanted !== undefined && wanted !== '') return fs.existsSync(wanted) ? { path: wanted } : { missing: wanted };
  const found = CANDIDATES.find((p) => fs.existsSync(p));
  return found !== undefined ? { path: found } : { missing: CANDIDATES.join(' or ') };
}

export const inCi = process.env.CI === 'true';

/**
 * What a browser test file does about Chromium: `skip` is the one skip line's message when it is
 * absent outside CI (false otherwise); `failure` is the message to fail with when it is absent in CI.
 */
export function chromiumStatus(): { executable: string | undefined; skip: string | false; failure: string | undefined } {
  const found = findChromium();
  if ('path' in found) return { executable: found.path, skip: false, failure: undefined };
  const message = `Chromium not found at ${found.missing}: install Debian's chromium (apt-get install -y chromium) or set CHARTA_CHROMIUM`;
  return inCi
    ? { executable: undefined, skip: false, failure: `${message} (CI=true: browser tests may not be skipped)` }
    : { executable: undefined, skip: message, failure: undefined };
}

/**
 * The frame of every browser test file: `body` declares its tests (given Chromium's path) inside
 * `describe(name)`; without Chromium, one line instead: a skip naming the executable, or (CI=true)
 * a failure, never a silent pass.
 */
export function describeInChromium(name: string, body: (executable: string) => void): void {
  const status = chromiumStatus();
  if (status.executable === undefined) it(name, { skip: status.skip }, () => assert.fail(status.failure));
  else describe(name, () => body(status.executable!));
}

/** Launch arguments: quiet, offline apart from the instance under test, no sandbox (containers run as root). */
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** A headless Chromium with a fresh profile (playwright-core makes a new user-data dir for each launch). */
export function launch(executablePath: string): Promise<Browser> {
  return chromium.launch({ executablePath, headless: true, args: CHROMIUM_ARGS, timeout: 60_000 });
}

/**
 * Watches a page for what must never happen: a script error, or a Content-Security-Policy
 * refusal (the console runs under its real policy); each is pushed to `failures`, which the
 * tests check. Also sets the page's default timeout.
 */
export function watchPage(page: Page, failures: string[]): Page {
  page.setDefaultTimeout(10_000);
  page.on('pageerror', (err) => failures.push(err.message));
  page.on('console', (m) => {
    if (m.type() === 'error' && /Content.Security.Policy/i.test(m.text())) failures.push(m.text());
  });
  return page;
}

const CONSOLE_PACKAGE = path.resolve(import.meta.dirname, '../..');

/**
 * The real console build (packages/console/dist), built first if `npm ci`'s prepare has not. A
 * build older than a file of the page's source is refused rather than rebuilt: the browser test
 * files run side by side, and one rebuilding would empty the directory another instance serves
 * (the test runner, scripts/run-tests.js, rebuilds a stale one before any test starts).
 */
export function consoleBuild(): string {
  if (consoleBuildState() === 'missing') buildConsole();
  const newer = consoleBuildState();
  if (newer !== null) throw new Error(`the console build in ${CONSOLE_DIST} is older than ${newer}: run \`npm run build -w @charta/console\` first`);
  return CONSOLE_DIST;
}

/**
 * Where screenshots go: CHARTA_TEST_OUTPUT, else test-results/console/ at the repository root
 * (gitignored). Created if missing.
 */
export function outputDir(): string {
  const dir = process.env.CHARTA_TEST_OUTPUT ?? path.resolve(CONSOLE_PACKAGE, '../../test-results/console');
  fs.mkdirSync(dir, { recursive: true });
  return dir;
}

/** Fills the sign-in form shown on `p` with the test instance's OAuth client, and waits until signed in. */
export async function signInWithClient(p: Page): Promise<void> {
  await p.getByLabel('OAuth client credentials').check();
  await p.getByLabel('Client id').fill(TEST_CLIENT_ID);
  await p.getByLabel('Client secret').fill(TEST_CLIENT_SECRET);
  await p.getByRole('button', { name: 'Sign in' }).click();
  await p.getByText(`Signed in as client ${TEST_CLIENT_ID}`).waitFor();
}

/** A fresh temporary directory. */
export function tempDir(prefix: string): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

/** On a note page: adds a command of `kind` with "Add command"; answers its uuid once its editor shows (the one open before closes then). */
export async function addCommand(page: Page, kind: string): Promise<string> {
  await page.getByLabel('Add a command of kind').selectOption(kind);
  const created = page.waitForResponse((r) => r.request().method() === 'POST' && r.url().endsWith('/core/api/v1/commands/'));
  await page.getByRole('button', { name: 'Add command' }).click();
  const { uuid } = (await (await created).json()) as { uuid: string };
  await page.locator(`form.editor[data-command="${uuid}"]`).waitFor();
  return uuid;
}
