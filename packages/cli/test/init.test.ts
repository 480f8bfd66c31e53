// charta plugin init: the seven questions (asked in order on a terminal, with the spec's
// defaults, skipped when their flag is given), --no-input, checked answers, and an existing
// directory refused without touching it. Through the real binary where no prompt is needed.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { validateManifest } from '@charta/plugin-sdk/manifest';
import { parse, run } from '../src/commands/plugin/init.ts';
import { charta, fakeIO, single, tempDir } from './support/cli.ts';

const read = (dir: string, file: string) => fs.readFileSync(path.join(dir, file), 'utf8');
const json = (dir: string, file: string) => JSON.parse(read(dir, file)) as Record<string, any>;

function listFiles(dir: string, prefix = ''): string[] {
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .flatMap((d) => (d.isDirectory() ? listFiles(path.join(dir, d.name), `${prefix}${d.name}/`) : [`${prefix}${d.name}`]))
    .sort();
}

describe('charta plugin init', () => {
  it('--no-input: the defaults of the spec, a complete TypeScript project, the original success line', async () => {
    const out = tempDir('charta-init-');
    const r = await charta(['plugin', 'init', '--no-input', '--output-dir', out], {});
    const dir = path.join(out, 'plugin-boilerplate');
    assert.deepEqual(single(r, 0), { success: true, message: `Project created in ${dir}`, project_dir: dir });
    assert.deepEqual(listFiles(dir), [
      '.gitignore',
      'CHARTA_MANIFEST.json',
      'README.md',
      'package.json',
      'src/plugin_boilerplate/handlers.ts',
      'test/handlers.test.ts',
      'tsconfig.json',
    ]);
    const manifest = json(dir, 'CHARTA_MANIFEST.json');
    assert.ok(validateManifest(manifest).ok);
    assert.equal(manifest.name, 'plugin-boilerplate');
    assert.equal(manifest.plugin_version, '0.1.0');
    assert.equal(manifest.description, 'A plugin to interact with a Charta instance');
    assert.deepEqual(manifest.components.handlers[0], {
      entry: 'plugin_boilerplate/handlers.js',
      class: 'PlanCommittedHandler',
      events: ['PLAN_COMMAND__POST_COMMIT'],
      description: 'Logs each committed plan and adds a follow-up instruction to its note.',
    });
    assert.deepEqual(manifest.secrets, []);
    const pkg = json(dir, 'package.json');
    assert.equal(pkg.author, 'Plugin Developer <developer@email.com>');
    assert.match(pkg.devDependencies['@charta/plugin-sdk'], /^file:.+plugin-sdk$/);
    assert.ok(fs.existsSync(path.join(pkg.devDependencies['@charta/plugin-sdk'].slice(5), 'package.json')));
    const readme = read(dir, 'README.md');
    assert.match(readme, /^# Plugin Boilerplate\n\nA plugin to interact with a Charta instance\n/);
    assert.match(readme, /Plugin Developer <developer@email\.com>/);
    assert.match(readme, /dist\/plugin-boilerplate-0\.1\.0\.tar\.gz/);
    assert.match(read(dir, 'test/handlers.test.ts'), /from '\.\.\/src\/plugin_boilerplate\/handlers\.ts'/);
    assert.doesNotMatch(
      listFiles(dir)
        .map((f) => read(dir, f))
        .join('\n'),
      /\{\{\w+\}\}/,
      'every placeholder filled',
    );
  });

  it('one flag per question; --version is the plugin version, not the tool version', async () => {
    const out = tempDir('charta-init-');
    const r = await charta(
      [
        'plugin',
        'init',
        '--no-input',
        '-o',
        out,
        '--full-name',
        'Ada Lovelace',
        '--email',
        'ada@example.org',
        '--version',
        '2.0.0-beta.1',
        '--project-name',
        'Vitals Alert',
        '--project-slug',
        'vitals',
        '--project-package-name',
        'vitals_core',
        '--project-short-description',
        'Warns about "odd" vitals',
      ],
      {},
    );
    const dir = path.join(out, 'vitals');
    assert.equal(single(r, 0).project_dir, dir);
    const manifest = json(dir, 'CHARTA_MANIFEST.json');
    assert.equal(manifest.name, 'vitals');
    assert.equal(manifest.plugin_version, '2.0.0-beta.1');
    assert.equal(manifest.description, 'Warns about "odd" vitals');
    assert.equal(manifest.components.handlers[0].entry, 'vitals_core/handlers.js');
    assert.ok(fs.existsSync(path.join(dir, 'src/vitals_core/handlers.ts')));
    assert.equal(json(dir, 'package.json').author, 'Ada Lovelace <ada@example.org>');
    assert.match(read(dir, 'README.md'), /^# Vitals Alert\n/);
  });

  it('without a terminal and without --no-input, the defaults are used (nothing is prompted)', async () => {
    const out = tempDir('charta-init-');
    const io = fakeIO({}, {}, false);
    assert.equal(await run(io, parse({ args: [], flags: { input: true, outputDir: out, projectName: 'Quiet One' } })), 0);
    assert.deepEqual(io.asked, []);
    assert.equal(json(path.join(out, 'quiet-one'), 'CHARTA_MANIFEST.json').name, 'quiet-one');
  });

  it('on a terminal: asks the seven questions in order; the slug and package name default from earlier answers', async () => {
    const out = tempDir('charta-init-');
    // '' is Enter: the default.
    const io = fakeIO({}, { input: ['Grace Hopper', '', '1.0.0', 'Cobol Helper', '', '', 'Helps'] });
    assert.equal(await run(io, parse({ args: [], flags: { input: true, outputDir: out } })), 0);
    assert.deepEqual(io.asked, [
      'input: Your full name',
      'input: Your email address',
      "input: The plugin's first version",
      'input: Project name',
      'input: Project slug (the directory, and the plugin name on the instance)',
      'input: Package name (the folder of your handlers under src/)',
      'input: A short description',
    ]);
    const dir = path.join(out, 'cobol-helper');
    assert.deepEqual(io.out(), [{ success: true, message: `Project created in ${dir}`, project_dir: dir }]);
    assert.equal(json(dir, 'package.json').author, 'Grace Hopper <developer@email.com>');
    assert.ok(fs.existsSync(path.join(dir, 'src/cobol_helper/handlers.ts')));
  });

  it('on a terminal, a question answered by its flag is not asked', async () => {
    const out = tempDir('charta-init-');
    const io = fakeIO({}, { input: ['', '', '', '', ''] });
    await run(io, parse({ args: [], flags: { input: true, outputDir: out, fullName: 'Flag Name', projectSlug: 'flagged' } }));
    assert.equal(io.asked.length, 5);
    assert.ok(!io.asked.some((q) => /full name|slug/.test(q)));
    assert.ok(fs.existsSync(path.join(out, 'flagged/src/flagged/handlers.ts')));
  });

  it('an existing directory is an error (exit 2) and is left untouched', async () => {
    const out = tempDir('charta-init-');
    const dir = path.join(out, 'plugin-boilerplate');
    fs.mkdirSync(dir);
    fs.writeFileSync(path.join(dir, 'mine.txt'), 'keep me');
    const line = single(await charta(['plugin', 'init', '--no-input', '-o', out], {}), 2);
    assert.equal(line.success, false);
    assert.equal(line.message, `${dir} already exists; choose another slug or --output-dir`);
    assert.deepEqual(fs.readdirSync(dir), ['mine.txt']);
    assert.equal(fs.readFileSync(path.join(dir, 'mine.txt'), 'utf8'), 'keep me');
  });

  it('bad answers are usage errors and create nothing', async () => {
    const out = tempDir('charta-init-');
    const cases: Array<[string[], RegExp]> = [
      [['--project-slug', 'Not A Slug'], /^The project slug "Not A Slug" must be lower-case letters/],
      [['--project-slug', '../escape'], /^The project slug "\.\.\/escape" must be/],
      [['--project-package-name', '9lives'], /^The package name "9lives" must be/],
      [['--version', 'v1'], /^The version "v1" must be a version such as 1\.0\.0/],
      [['--email', 'nobody'], /^The email address "nobody" must be an address/],
      [['--full-name', 'a\u0007b'], /^The full name contains control characters$/],
      [['--project-name', '!!!'], /^The project slug "" must be|^The project slug is empty$/],
      [['--project-short-description', 'x'.repeat(501)], /^The description is longer than 500 characters$/],
    ];
    for (const [flags, message] of cases) {
      const line = single(await charta(['plugin', 'init', '--no-input', '-o', out, ...flags], {}), 2);
      assert.match(String(line.message), message, flags.join(' '));
    }
    assert.deepEqual(fs.readdirSync(out), []);
  });
});
