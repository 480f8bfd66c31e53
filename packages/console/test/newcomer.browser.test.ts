// The newcomer's whole day in the console (issue 22, "Done when"), in headless Chromium against a
// real instance on port 0 with the demo data, with nothing but the pages to go by: sign in, install
// a plugin built by the charta tool (one with a bug), find the demo patient, write and commit a
// diagnosis, find why the plugin is failing, upload its fixed version, write and commit a
// prescription and a GAD-7, and see the fixed plugin's command appear in the note by itself.
import { after, before, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import type { Browser, Locator, Page } from 'playwright-core';
import { startInstance, TEST_API_KEY, type Instance } from '../../server/test/support/harness.ts';
import { createProject } from '../../cli/src/scaffold/project.ts';
import { buildProject } from '../../cli/src/packaging/index.ts';
import { addCommand, describeInChromium, consoleBuild, launch, outputDir, signInWithClient, tempDir, watchPage } from './support/browser.ts';

const C = '/core/api/v1/commands';

/** The handler: after a diagnosis is committed, an instruction to follow it up. `field` is where it reads the diagnosis. */
const handlerSource = (field: string) => `import { BaseHandler, originateCommand, type Effect, type EventName } from '@charta/plugin-sdk';

export class DiagnosisFollowUp extends BaseHandler<'DIAGNOSE_COMMAND__POST_COMMIT'> {
  static override readonly RESPONDS_TO: readonly EventName[] = ['DIAGNOSE_COMMAND__POST_COMMIT'];

  compute(): Effect[] {
    const { command, note } = this.event.context;
    const picked = command.data['${field}'] as { text: string };
    return [originateCommand('instruct', note.uuid, { comment: \`Follow up on: \${picked.text}\` })];
  }
}
`;

describeInChromium("console in Chromium: a newcomer's day, without the docs", (executable) => {
  let instance: Instance;
  let browser: Browser;
  let page: Page;
  let project: string;
  let slug: string;
  const failures: string[] = [];
  const shots = outputDir();

  /** Builds the project with the handler reading `field`, as version `version`: the package's bytes. */
  const build = async (field: string, version: string) => {
    const source = fs.readdirSync(path.join(project, 'src'))[0]!;
    fs.writeFileSync(path.join(project, 'src', source, 'handlers.ts'), handlerSource(field));
    const manifestFile = path.join(project, 'CHARTA_MANIFEST.json');
    const manifest = JSON.parse(fs.readFileSync(manifestFile, 'utf8'));
    manifest.plugin_version = version;
    manifest.components.handlers = [
      { entry: `${source}/handlers.js`, class: 'DiagnosisFollowUp', events: ['DIAGNOSE_COMMAND__POST_COMMIT'], description: 'Follows a diagnosis up' },
    ];
    fs.writeFileSync(manifestFile, JSON.stringify(manifest, null, 2));
    const built = await buildProject(project);
    slug = built.name;
    return { name: `${built.name}.tar.gz`, mimeType: 'application/gzip', buffer: fs.readFileSync(built.file) };
  };

  const editor = () => page.locator('form.editor');
  const add = (kind: string) => addCommand(page, kind);
  /** In a picker: types `term` (or nothing, for its default list), moves to the option with `text` by keyboard, picks it, waits for the save. */
  const pick = async (field: string, term: string, text: RegExp) => {
    const box = editor().locator(`[data-field="${field}"] input[role="combobox"]`);
    await box.focus();
    if (term !== '') await page.keyboard.type(term);
    const options = editor().locator(`[data-field="${field}"] ul.options:not(.stale)`);
    const option = options.getByRole('option').filter({ hasText: text }).first();
    await option.waitFor();
    const saved = page.waitForResponse((r) => r.request().method() === 'PATCH');
    await option.click();
    await saved;
    await editor().locator(`[data-field="${field}"] .picked`).waitFor();
  };
  const commit = async () => {
    await editor().getByRole('button', { name: 'Commit' }).click();
    await editor().locator('p.ok').filter({ hasText: 'Committed.' }).waitFor();
  };
  const card = (): Locator => page.locator(`li.plugin[data-plugin="${slug}"]`);

  before(async () => {
    instance = await startInstance('sqlite', { consoleDir: consoleBuild(), demo: true });
    project = createProject(tempDir('charta-newcomer-day-'), {
      full_name: 'New Comer',
      email: 'new@example.org',
      version: '0.1.0',
      project_name: 'Diagnosis Follow Up',
      project_slug: 'diagnosis-follow-up',
      project_package_name: 'diagnosis_follow_up',
      project_short_description: 'Adds a follow-up instruction to each diagnosis',
    });
    browser = await launch(executable);
    page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
    watchPage(page, failures);
  });
  after(async () => {
    await browser?.close();
    await instance?.stop();
  });

  it('installs a plugin (with a bug), commits a diagnosis, finds why the plugin fails, uploads the fix, commits a prescription and a GAD-7, and sees the plugin add its command', async () => {
    // The plugin as first written: it reads the diagnosis from a field diagnose does not have.
    const buggy = await build('condition', '0.1.0');
    await page.goto(`${instance.url}/console/`);
    await signInWithClient(page);
    await page.getByRole('navigation').getByRole('link', { name: 'Plugins' }).click();
    await page.getByLabel('Package file').setInputFiles(buggy);
    await page
      .getByRole('status')
      .filter({ hasText: `${slug} 0.1.0 installed and enabled` })
      .waitFor();

    // The demo patient, the demo encounter, a diagnosis committed.
    await page.getByRole('navigation').getByRole('link', { name: 'Patients' }).click();
    await page.getByRole('link', { name: 'Ada Demo' }).first().click();
    await page.getByRole('link', { name: 'Office visit (demo)' }).click();
    await page.getByRole('heading', { name: 'Office visit (demo)' }).waitFor();
    const noteHash = new URL(page.url()).hash;
    await add('diagnose');
    await pick('diagnose', 'essential hypertension', /Essential \(primary\) hypertension/);
    await commit();

    // Why the plugin fails: its card says so, with the error, its handler and event.
    await page.getByRole('navigation').getByRole('link', { name: 'Plugins' }).click();
    await card().locator('dd.health').filter({ hasText: 'Enabled · failing' }).waitFor();
    const lastError = (await card().locator('dd.faults').textContent()) ?? '';
    assert.match(lastError, /undefined/, `the error says what went wrong: ${lastError}`);
    assert.match(lastError, /DiagnosisFollowUp/);
    assert.match(lastError, /DIAGNOSE_COMMAND__POST_COMMIT/);
    await page.screenshot({ path: path.join(shots, 'newcomer-failing-1280.png'), fullPage: true });

    // Fixed (the diagnosis is in `diagnose`), uploaded on its card; 0.1.0 → 0.1.1.
    const fixed = await build('diagnose', '0.1.1');
    await card().getByLabel(`Upload a new version of ${slug}`).setInputFiles(fixed);
    const outcome = card().locator('.update-outcome.ok');
    await outcome.waitFor();
    assert.equal(await outcome.locator('.before .release-version').textContent(), '0.1.0');
    assert.equal(await outcome.locator('.after .release-version').textContent(), '0.1.1');

    // Back to the note: a prescription and a GAD-7.
    await page.goto(`${instance.url}/console/${noteHash}`);
    await page.getByRole('heading', { name: 'Office visit (demo)' }).waitFor();
    await add('prescribe');
    await pick('prescribe', 'amlodipine', /amlodipine/i);
    await editor().getByLabel(/^Sig/).fill('One tablet by mouth daily');
    await editor()
      .getByLabel(/^Quantity to dispense/)
      .fill('30');
    await pick('type_to_dispense', '', /./);
    await editor()
      .getByLabel(/^Refills/)
      .fill('2');
    await editor()
      .getByLabel(/^Substitutions/)
      .selectOption('allowed');
    await pick('prescriber', '', /./);
    await commit();

    await add('questionnaire');
    await pick('questionnaire', 'GAD', /GAD-7/);
    const questions = editor().locator('fieldset.question');
    await questions.first().waitFor();
    assert.equal(await questions.count(), 7);
    for (let i = 0; i < 7; i++) await questions.nth(i).getByLabel('Several days').check();
    await editor().locator('.score').filter({ hasText: 'Total score: 7 of 21 · 7 of 7 scored questions answered' }).waitFor();
    await commit();

    // Another diagnosis: the fixed plugin adds its instruction, which appears by itself, marked.
    await add('diagnose');
    await pick('diagnose', 'type 2 diabetes', /Type 2 diabetes/);
    await commit();
    await page
      .getByRole('status')
      .filter({ hasText: `New command by plugin ${slug}` })
      .waitFor();
    const nudge = page.locator('li[data-kind="instruct"].fresh');
    await nudge.waitFor();
    assert.match((await nudge.locator('.summary').textContent()) ?? '', /^Follow up on: Type 2 diabetes/);
    assert.equal(await nudge.locator('.badge.plugin-author').textContent(), `plugin ${slug}`);
    await page.screenshot({ path: path.join(shots, 'newcomer-note-1280.png'), fullPage: true });

    // All of it stored as the pages said.
    const listed = (await instance.call('GET', `${C}?note_key=${noteHash.slice('#notes/'.length)}&limit=100`)).json.results as Array<{
      schema_key: string;
      state: string;
    }>;
    const committed = listed.filter((c) => c.state === 'committed').map((c) => c.schema_key);
    for (const kind of ['diagnose', 'prescribe', 'questionnaire']) assert.ok(committed.includes(kind), `a committed ${kind}`);
    assert.equal((await instance.call('GET', `/core/api/v1/plugins/${slug}/`, { authorization: TEST_API_KEY })).json.version, '0.1.1');
    assert.deepEqual(failures, [], 'no script error, no CSP violation');
  });
});
