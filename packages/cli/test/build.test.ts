// Building a plugin project (charta plugin build, and what plugin install does with a directory):
// the generated project builds as generated into a reproducible dist/<slug>-<version>.tar.gz whose
// bundled handler runs on its own; the generated project typechecks (its tests run in the
// sandbox: plugin-test.test.ts); hidden files, node_modules, dist and links stay out; every broken
// project is a failure line listing its reasons, and no package is written.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import * as tar from 'tar';
import { createEvent, originateCommand, recordingLogger, runHandler, type HandlerClass } from '@charta/plugin-sdk';
import { buildProject } from '../src/packaging/index.ts';
import { BuildFailure } from '../src/packaging/project.ts';
import { charta, single, tempDir } from './support/cli.ts';

const REPO = path.resolve(import.meta.dirname, '../../..');

async function newProject(name = 'Build Me', extra: string[] = []): Promise<string> {
  const out = tempDir('charta-build-');
  const line = single(await charta(['plugin', 'init', '--no-input', '-o', out, '--project-name', name, ...extra], {}), 0);
  return String(line.project_dir);
}

async function entriesOf(file: string): Promise<Array<{ path: string; type: string; mode: number; mtime: number; size: number }>> {
  const out: Array<{ path: string; type: string; mode: number; mtime: number; size: number }> = [];
  await tar.list({
    file,
    onReadEntry: (e) => void out.push({ path: e.path, type: e.type, mode: e.mode ?? -1, mtime: e.mtime?.getTime() ?? -1, size: e.size ?? -1 }),
  });
  return out;
}

const sha256 = (file: string) => createHash('sha256').update(fs.readFileSync(file)).digest('hex');
const distFiles = (dir: string) => (fs.existsSync(path.join(dir, 'dist')) ? fs.readdirSync(path.join(dir, 'dist')) : []);

async function failure(dir: string): Promise<BuildFailure> {
  try {
    await buildProject(dir);
  } catch (err) {
    assert.ok(err instanceof BuildFailure, `a BuildFailure, got ${(err as Error).stack}`);
    assert.deepEqual(distFiles(dir), [], 'no package written');
    return err;
  }
  assert.fail('the build should have failed');
}

const reasons = (err: BuildFailure) => err.extra.errors as string[];

function editManifest(dir: string, change: (m: Record<string, any>) => void): void {
  const file = path.join(dir, 'CHARTA_MANIFEST.json');
  const manifest = JSON.parse(fs.readFileSync(file, 'utf8'));
  change(manifest);
  fs.writeFileSync(file, JSON.stringify(manifest));
}

describe('building a plugin project', () => {
  it('the generated project builds as generated: a reproducible tar.gz whose bundled handler runs on its own', async () => {
    const dir = await newProject();
    const line = single(await charta(['plugin', 'build', dir], {}), 0);
    const file = path.join(dir, 'dist', 'build-me-0.1.0.tar.gz');
    assert.deepEqual(line, { success: true, message: `Built ${file}`, package: file, name: 'build-me', version: '0.1.0' });

    const entries = await entriesOf(file);
    assert.deepEqual(
      entries.map((e) => e.path),
      ['CHARTA_MANIFEST.json', 'README.md', 'build_me/handlers.js', 'package.json', 'src/build_me/handlers.ts', 'test/handlers.test.ts', 'tsconfig.json'],
    );
    for (const e of entries) {
      assert.equal(e.type, 'File');
      assert.equal(e.mode & 0o777, 0o644);
      assert.equal(e.mtime, Date.UTC(1980, 0, 1));
    }

    // Same project, same bytes.
    const first = sha256(file);
    await buildProject(dir);
    assert.equal(sha256(file), first);

    // The bundle needs nothing from node_modules: the SDK is inlined.
    const unpacked = tempDir('charta-unpacked-');
    await tar.extract({ file, cwd: unpacked });
    const bundle = fs.readFileSync(path.join(unpacked, 'build_me/handlers.js'), 'utf8');
    assert.doesNotMatch(bundle, /from ["']@charta\/plugin-sdk["']/);
    const module = (await import(pathToFileURL(path.join(unpacked, 'build_me/handlers.js')).href)) as { PlanCommittedHandler: HandlerClass };
    const log = recordingLogger();
    const event = createEvent('PLAN_COMMAND__POST_COMMIT', { target: 'c-1', fields: { narrative: 'Recheck in 2 weeks' }, note: 'n-1', actor: 's-1' });
    const effects = await runHandler(module.PlanCommittedHandler, event, { log });
    assert.deepEqual(effects, [originateCommand('instruct', 'n-1', { comment: 'Follow up on: Recheck in 2 weeks' })]);
    assert.deepEqual(log.lines, [{ level: 'info', message: 'plan c-1 committed by s-1: Recheck in 2 weeks' }]);
  });

  it('the generated project typechecks once its dependencies are installed; its npm test is charta plugin test (plugin-test.test.ts runs it)', () => {
    const dir = tempDir('charta-gen-');
    execFileSync(process.execPath, [path.join(REPO, 'packages/cli/bin/charta.js'), 'plugin', 'init', '--no-input', '-o', dir]);
    const project = path.join(dir, 'plugin-boilerplate');
    // What `npm install` would give it, linked from this checkout.
    const modules = path.join(project, 'node_modules');
    fs.mkdirSync(path.join(modules, '@charta'), { recursive: true });
    fs.mkdirSync(path.join(modules, '@types'), { recursive: true });
    fs.symlinkSync(path.join(REPO, 'packages/plugin-sdk'), path.join(modules, '@charta/plugin-sdk'));
    for (const name of ['tsx', 'typescript', '@types/node']) fs.symlinkSync(path.join(REPO, 'node_modules', name), path.join(modules, name));
    assert.equal(JSON.parse(fs.readFileSync(path.join(project, 'package.json'), 'utf8')).scripts.test, 'charta plugin test .');
    execFileSync(process.execPath, [path.join(modules, 'typescript/bin/tsc'), '-p', '.'], { cwd: project, encoding: 'utf8' });
  });

  it('hidden files, node_modules, the top-level dist and symbolic links are left out; nested dist is kept', async () => {
    const dir = await newProject('Leave Out');
    const put = (rel: string, text = 'x') => {
      fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
      fs.writeFileSync(path.join(dir, rel), text);
    };
    put('.env', 'SECRET=1');
    put('.git/config');
    put('src/.cache/x');
    put('node_modules/left-pad/index.js');
    put('src/node_modules/x.js');
    put('dist/old-0.0.1.tar.gz');
    put('assets/dist/logo.txt');
    fs.symlinkSync('/etc/passwd', path.join(dir, 'assets/passwd'));
    const built = await buildProject(dir);
    const names = (await entriesOf(built.file)).map((e) => e.path);
    assert.ok(names.includes('assets/dist/logo.txt'));
    for (const name of names) assert.doesNotMatch(name, /(^|\/)\.|node_modules|^dist\/|passwd/, name);
  });

  it('a project without a manifest (through plugin install) is a failure line, exit 1', async () => {
    const dir = tempDir('charta-empty-');
    const r = await charta(['plugin', 'install', dir, '--host', 'http://127.0.0.1:1', '--api-key', 'k'], {});
    const line = single(r, 1);
    assert.equal(line.message, `Not a plugin project: no CHARTA_MANIFEST.json in ${dir}`);
    assert.deepEqual(line.errors, [`no CHARTA_MANIFEST.json in ${dir}`]);
  });

  it('an invalid manifest: every schema reason, nothing built', async () => {
    const dir = await newProject('Bad Manifest');
    editManifest(dir, (m) => {
      m.plugin_version = 3;
      m.components.handlers[0].events = [];
      m.extra = true;
    });
    const err = await failure(dir);
    assert.deepEqual(reasons(err).sort(), [
      "CHARTA_MANIFEST.json: / must NOT have the property 'extra'",
      'CHARTA_MANIFEST.json: /components/handlers/0/events must NOT have fewer than 1 items',
      'CHARTA_MANIFEST.json: /plugin_version must be string',
    ]);
    assert.match(err.message, /^Invalid manifest: /);
    fs.writeFileSync(path.join(dir, 'CHARTA_MANIFEST.json'), '{"name": ');
    assert.match(reasons(await failure(dir))[0]!, /^CHARTA_MANIFEST\.json: not valid JSON/);
    fs.writeFileSync(path.join(dir, 'CHARTA_MANIFEST.json'), `{"description": "${'x'.repeat(70_000)}"}`);
    assert.deepEqual(reasons(await failure(dir)), ['CHARTA_MANIFEST.json is larger than 64 KiB']);
  });

  it('a missing source, a class the source does not export, a clash with a shipped file', async () => {
    const dir = await newProject('Sources');
    editManifest(dir, (m) => {
      m.components.handlers.push({ entry: 'other/missing.js', class: 'Missing', events: ['PLAN_COMMAND__POST_UPDATE'], description: '' });
      m.components.handlers.push({ class: 'NoEntry', events: ['PLAN_COMMAND__POST_UPDATE'], description: '' });
    });
    assert.deepEqual(reasons(await failure(dir)), [
      'handler 2: give an "entry", the bundled .js file the build writes (such as my_plugin/handlers.js)',
      'entry other/missing.js: no source found (looked for src/other/missing.ts, src/other/missing.mts, src/other/missing.js, src/other/missing.mjs)',
    ]);

    editManifest(dir, (m) => {
      m.components.handlers = [{ ...m.components.handlers[0], class: 'NotThere' }];
    });
    assert.deepEqual(reasons(await failure(dir)), ["src/sources/handlers.ts does not export NotThere (the manifest's class for sources/handlers.js)"]);

    editManifest(dir, (m) => {
      m.components.handlers[0].class = 'PlanCommittedHandler';
    });
    fs.mkdirSync(path.join(dir, 'sources'));
    fs.writeFileSync(path.join(dir, 'sources/handlers.js'), 'export {};');
    assert.deepEqual(reasons(await failure(dir)), [
      'entry sources/handlers.js: both src/sources/handlers.ts and a file sources/handlers.js exist; the bundle of src/sources/handlers.ts would replace it',
    ]);
  });

  it('a ready-made JavaScript entry without a source is shipped as is', async () => {
    const dir = await newProject('Plain JS');
    fs.rmSync(path.join(dir, 'src'), { recursive: true });
    fs.mkdirSync(path.join(dir, 'plain_js'));
    fs.writeFileSync(path.join(dir, 'plain_js/handlers.js'), 'export class PlanCommittedHandler {}\n');
    const built = await buildProject(dir);
    const unpacked = tempDir('charta-unpacked-');
    await tar.extract({ file: built.file, cwd: unpacked });
    assert.equal(fs.readFileSync(path.join(unpacked, 'plain_js/handlers.js'), 'utf8'), 'export class PlanCommittedHandler {}\n');
  });

  it('compile errors and unresolved imports are reported with file:line:column', async () => {
    const dir = await newProject('Broken Code');
    const source = path.join(dir, 'src/broken_code/handlers.ts');
    fs.writeFileSync(source, "import { nothing } from 'no-such-package';\nexport class PlanCommittedHandler {\n  x = ;\n}\n");
    const r = await charta(['plugin', 'build', dir], {});
    const line = single(r, 1);
    assert.match(String(line.message), /^The build failed: /);
    const errors = line.errors as string[];
    assert.ok(
      errors.some((e) => /^src\/broken_code\/handlers\.ts:3:\d+: Unexpected ";"/.test(e)),
      errors.join('\n'),
    );
    fs.writeFileSync(source, "import { nothing } from 'no-such-package';\nexport class PlanCommittedHandler { x = nothing; }\n");
    assert.deepEqual(reasons(await failure(dir)), ['src/broken_code/handlers.ts:1:25: Could not resolve "no-such-package"']);
  });
});
