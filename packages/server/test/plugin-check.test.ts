// The install check (docs/plugins.md, "The install check"): packages built with the real CLI
// packaging from project directories written here, read by runnable.ts and loaded in a real
// runner child process by check.ts; then the same check behind plugins/package.ts.
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buildProject } from '../../cli/src/packaging/index.ts';
import { packProject } from '../../cli/src/packaging/pack.ts';
import type { ChartaManifest } from '@charta/plugin-sdk/manifest';
import { ConfigError, loadConfig } from '../src/config.ts';
import { Problem } from '../src/http/problem.ts';
import { checkPackage as checkUpload } from '../src/plugins/package.ts';
import { checkPackage, checkPackageSurface } from '../src/runtime/check.ts';
import { PluginRunner } from '../src/runtime/runner/client.ts';
import { MAX_SOURCE_BYTES, runnablePlugin, type InstanceLimits } from '../src/runtime/runnable.ts';
import type { PackageToCheck } from '../src/runtime/types.ts';
import { tarFromDir } from './support/archives.ts';
import { bundle } from './support/sandbox.ts';

const LIMITS: InstanceLimits = { maxMemoryMb: 128, maxTimeoutMs: 5000, maxEffectsPerAnswer: 1000 };
const ENTRY = 'check_me/handlers.js';
const EVENT = 'PLAN_COMMAND__POST_COMMIT';

const runner = new PluginRunner();
const dirs: string[] = [];
after(async () => {
  await runner.close();
  for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
});

type Handler = ChartaManifest['components']['handlers'][number];

function manifest(overrides: Partial<ChartaManifest> = {}, handlers: Partial<Handler>[] = [{}]): ChartaManifest {
  return {
    sdk_version: '0.1.0',
    plugin_version: '1.0.0',
    name: 'check-me',
    description: 'A plugin the install check reads.',
    components: { handlers: handlers.map((h) => ({ entry: ENTRY, class: 'Good', events: [EVENT], description: 'a handler', ...h })) },
    ...overrides,
  };
}

function handlerClass(name: string, events: string[] = [EVENT], compute = 'return [];'): string {
  return `export class ${name} extends BaseHandler {
  static RESPONDS_TO = ${JSON.stringify(events)};
  compute() { ${compute} }
}
`;
}

const GOOD = `import { BaseHandler } from '@charta/plugin-sdk';\n${handlerClass('Good')}`;

/** A project directory with the manifest and files (paths relative to the project). */
function project(m: ChartaManifest, files: Record<string, string>): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'charta-check-'));
  dirs.push(dir);
  fs.writeFileSync(path.join(dir, 'CHARTA_MANIFEST.json'), JSON.stringify(m, null, 2));
  for (const [name, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    fs.writeFileSync(path.join(dir, name), text);
  }
  return dir;
}

/** The package `charta plugin build` makes of the project. */
async function built(m: ChartaManifest, files: Record<string, string>): Promise<PackageToCheck> {
  const { file } = await buildProject(project(m, files));
  return { name: 'check-me', format: 'tar.gz', source: 'manifest', bytes: fs.readFileSync(file) };
}

/** A module shipped ready-made (as a bundle the build does not touch nor check): for exports the build would refuse. */
async function shipped(m: ChartaManifest, sources: Record<string, string>): Promise<PackageToCheck> {
  const files: Record<string, string> = {};
  for (const [entry, source] of Object.entries(sources)) files[entry] = await bundle(source);
  return built(m, files);
}

const src = (source: string) => ({ 'src/check_me/handlers.ts': source });

describe('the install check', () => {
  it('passes a good package: its modules load and every manifest handler is an exported class responding to its events', async () => {
    const pkg = await built(manifest(), src(GOOD));
    assert.deepEqual(await checkPackage(runner, pkg, LIMITS), []);
    const runnable = await runnablePlugin(pkg, LIMITS);
    assert.equal(runnable.kind, 'runnable');
    const plugin = (runnable as Extract<typeof runnable, { kind: 'runnable' }>).plugin;
    assert.equal(plugin.name, 'check-me');
    assert.deepEqual(
      plugin.modules.map((m) => m.entry),
      [ENTRY],
    );
    assert.match(plugin.modules[0]!.source, /var Good = class extends BaseHandler/);
    assert.deepEqual(plugin.limits, { memoryBytes: 32 * 1024 * 1024, deadlineMs: 1000 }, 'the sandbox defaults when the manifest says nothing');
  });

  it("takes the manifest's limits when within the instance's maximums", async () => {
    const runnable = await runnablePlugin(await built(manifest({ limits: { memory_mb: 64, timeout_ms: 250 } }), src(GOOD)), LIMITS);
    assert.equal(runnable.kind, 'runnable');
    assert.deepEqual((runnable as Extract<typeof runnable, { kind: 'runnable' }>).plugin.limits, { memoryBytes: 64 * 1024 * 1024, deadlineMs: 250 });
    const low = await runnablePlugin(await built(manifest(), src(GOOD)), { maxMemoryMb: 16, maxTimeoutMs: 500, maxEffectsPerAnswer: 1000 });
    assert.deepEqual(
      (low as Extract<typeof low, { kind: 'runnable' }>).plugin.limits,
      { memoryBytes: 16 * 1024 * 1024, deadlineMs: 500 },
      'defaults capped by the maximums',
    );
  });

  it('refuses a module that throws while it is evaluated', async () => {
    const reasons = await checkPackage(runner, await built(manifest(), src(`${GOOD}\nthrow new Error('boom at load');`)), LIMITS);
    assert.equal(reasons.length, 1, reasons.join('\n'));
    assert.match(reasons[0]!, /^check_me\/handlers\.js: evaluating the module failed: Error: boom at load$/);
  });

  it('refuses a manifest class the entry does not export, or exports as something other than a handler class', async () => {
    const m = manifest({}, [{ class: 'Absent' }, { class: 'NotAHandler' }, { class: 'Good' }]);
    const reasons = await checkPackage(runner, await shipped(m, { [ENTRY]: `${GOOD}\nexport const NotAHandler = 42;` }), LIMITS);
    assert.deepEqual(reasons, [
      `CHARTA_MANIFEST.json: /components/handlers/0/class "Absent" is not a handler class that "${ENTRY}" exports (an exported class with RESPONDS_TO and compute())`,
      `CHARTA_MANIFEST.json: /components/handlers/1/class "NotAHandler" is not a handler class that "${ENTRY}" exports (an exported class with RESPONDS_TO and compute())`,
    ]);
  });

  it("refuses a handler whose class's RESPONDS_TO lacks an event the manifest lists for it", async () => {
    const m = manifest({}, [{ events: [EVENT, 'PLAN_COMMAND__PRE_COMMIT'] }]);
    const reasons = await checkPackage(runner, await built(m, src(GOOD)), LIMITS);
    assert.deepEqual(reasons, [
      'CHARTA_MANIFEST.json: /components/handlers/0: Good.RESPONDS_TO does not list PLAN_COMMAND__PRE_COMMIT, so it could never run for it',
    ]);
  });

  it('refuses an event name Charta does not know', async () => {
    const m = manifest({}, [{ events: ['PLAN_COMMAND__POST_LAUNCH'] }]);
    const source = `import { BaseHandler } from '@charta/plugin-sdk';\n${handlerClass('Good', ['PLAN_COMMAND__POST_LAUNCH'])}`;
    const reasons = await checkPackage(runner, await built(m, src(source)), LIMITS);
    assert.deepEqual(reasons, ['CHARTA_MANIFEST.json: /components/handlers/0/events/0 "PLAN_COMMAND__POST_LAUNCH" is not an event name Charta knows']);
  });

  it('refuses a bundle that imports node:fs', async () => {
    const source = `import fs from 'node:fs';\nimport { BaseHandler } from '@charta/plugin-sdk';\n${handlerClass('Good', [EVENT], 'return [{ type: String(fs.existsSync("/")) }];')}`;
    const reasons = await checkPackage(runner, await built(manifest(), src(source)), LIMITS);
    assert.equal(reasons.length, 1, reasons.join('\n'));
    assert.match(reasons[0]!, /^check_me\/handlers\.js: .*the bundle imports "node:fs"/);
  });

  it('refuses a module that loops forever at its top level (the deadline of its load)', async () => {
    const reasons = await checkPackage(runner, await built(manifest({ limits: { timeout_ms: 50 } }), src(`${GOOD}\nfor (;;) {}`)), LIMITS);
    assert.deepEqual(reasons, ['check_me/handlers.js: evaluating the module took longer than 50 ms']);
  });

  it("refuses memory over the instance's maximum, and a module that allocates past its own limit at load", async () => {
    const over = await checkPackage(runner, await built(manifest({ limits: { memory_mb: 256 } }), src(GOOD)), LIMITS);
    assert.deepEqual(over, ["CHARTA_MANIFEST.json: /limits/memory_mb 256 is over this instance's maximum of 128"]);
    const hungry = await checkPackage(
      runner,
      await built(manifest({ limits: { memory_mb: 4 } }), src(`${GOOD}\nexport const big = new Uint8Array(1 << 23);`)),
      LIMITS,
    );
    assert.equal(hungry.length, 1, hungry.join('\n'));
    assert.match(hungry[0]!, /^check_me\/handlers\.js: evaluating the module ran out of memory/);
    const slow = await checkPackage(runner, await built(manifest({ limits: { timeout_ms: 6000 } }), src(GOOD)), LIMITS);
    assert.deepEqual(slow, ["CHARTA_MANIFEST.json: /limits/timeout_ms 6000 is over this instance's maximum of 5000"]);
  });

  it('refuses a handler entry that is not in the package', async () => {
    const m = manifest({}, [{ entry: 'check_me/missing.js' }]);
    const dir = project(m, { 'README.md': 'no code' });
    const file = await packProject({ dir, slug: 'check-me', manifest: m, entries: [] }, new Map());
    const reasons = await checkPackage(runner, { name: 'check-me', format: 'tar.gz', source: 'manifest', bytes: fs.readFileSync(file) }, LIMITS);
    assert.deepEqual(reasons, ['CHARTA_MANIFEST.json: /components/handlers/0/entry "check_me/missing.js" is not a file in the package']);
  });

  it('refuses handler modules over the size cap', async () => {
    // Random text: it does not compress, so only the cap on module text can refuse it.
    const filler = crypto.randomBytes(Math.ceil((MAX_SOURCE_BYTES * 3) / 4) + 1024).toString('base64');
    const pkg = await shipped(manifest(), { [ENTRY]: `${GOOD}\nexport const filler = ${JSON.stringify(filler)};` });
    const reasons = await checkPackage(runner, pkg, LIMITS);
    assert.deepEqual(reasons, ['the handler modules are larger than 5 MiB in all (the limit)']);
  });

  it('lists every reason together when there are several', async () => {
    const m = manifest({ limits: { memory_mb: 512 } }, [
      { entry: 'check_me/handlers.js', class: 'Good', events: [EVENT, 'NOT_AN_EVENT'] },
      { entry: 'check_me/broken.js', class: 'Broken' },
      { entry: 'check_me/handlers.js', class: 'Absent' },
      { entry: 'check_me/handlers.js', class: 'Good', events: ['NOTE_COMMAND__POST_COMMIT'] },
    ]);
    const pkg = await built(m, {
      'src/check_me/handlers.ts': `import { BaseHandler } from '@charta/plugin-sdk';\n${handlerClass('Good', [EVENT, 'NOT_AN_EVENT'])}\nexport class Absent {}`,
      'src/check_me/broken.ts': `import { BaseHandler } from '@charta/plugin-sdk';\n${handlerClass('Broken')}\nnull.boom;`,
    });
    const reasons = await checkPackage(runner, pkg, LIMITS);
    assert.deepEqual(reasons.slice(0, 3), [
      'CHARTA_MANIFEST.json: /components/handlers/0/events/1 "NOT_AN_EVENT" is not an event name Charta knows',
      'CHARTA_MANIFEST.json: /components/handlers/3/events/0 "NOTE_COMMAND__POST_COMMIT" is not an event name Charta knows',
      "CHARTA_MANIFEST.json: /limits/memory_mb 512 is over this instance's maximum of 128",
    ]);
    assert.equal(reasons.length, 4, reasons.join('\n'));
    assert.match(reasons[3]!, /^check_me\/broken\.js: evaluating the module failed: TypeError: /);
  });

  it('lists the handler-class reasons together with the manifest reasons when the modules load', async () => {
    const m = manifest({ limits: { timeout_ms: 9000 } }, [{ class: 'Absent' }, { events: ['PLAN_COMMAND__PRE_COMMIT', 'SOMETHING_ELSE'] }]);
    const reasons = await checkPackage(runner, await shipped(m, { [ENTRY]: GOOD }), LIMITS);
    assert.deepEqual(reasons, [
      'CHARTA_MANIFEST.json: /components/handlers/1/events/1 "SOMETHING_ELSE" is not an event name Charta knows',
      "CHARTA_MANIFEST.json: /limits/timeout_ms 9000 is over this instance's maximum of 5000",
      `CHARTA_MANIFEST.json: /components/handlers/0/class "Absent" is not a handler class that "${ENTRY}" exports (an exported class with RESPONDS_TO and compute())`,
      'CHARTA_MANIFEST.json: /components/handlers/1: Good.RESPONDS_TO does not list PLAN_COMMAND__PRE_COMMIT, so it could never run for it',
      'CHARTA_MANIFEST.json: /components/handlers/1: Good.RESPONDS_TO does not list SOMETHING_ELSE, so it could never run for it',
    ]);
  });

  it('accepts a Python package of the original tool: nothing to run, no reason', async () => {
    const bytes = await tarFromDir({ 'vitals-1.0.0/PKG-INFO': 'Metadata-Version: 2.1\nName: vitals\nVersion: 1.0.0\nSummary: Python\n' }, ['vitals-1.0.0']);
    const pkg: PackageToCheck = { name: 'vitals', format: 'tar.gz', source: 'pkg-info', bytes };
    assert.deepEqual(await checkPackage(runner, pkg, LIMITS), []);
    const runnable = await runnablePlugin(pkg, LIMITS);
    assert.equal(runnable.kind, 'nothing-to-run');
    assert.equal(
      (runnable as { message: string }).message,
      'plugin vitals is a Python package for the original tool (its metadata is PKG-INFO); it has nothing Charta can run',
    );
  });

  it('install and update (plugins/package.ts with a runtime) refuse with 400 plugin_package_invalid listing every reason; extract-metadata (no runtime) does not load', async () => {
    const m = manifest({}, [{ class: 'Absent' }]);
    const pkg = await shipped(m, { [ENTRY]: GOOD });
    const runtime = { checkPackage: (p: PackageToCheck) => checkPackageSurface(runner, p, LIMITS) };
    const file = { bytes: pkg.bytes, fileName: 'check-me-1.0.0.tar.gz' };
    await assert.rejects(checkUpload(file, runtime), (err: unknown) => {
      assert.ok(err instanceof Problem);
      assert.equal(err.status, 400);
      assert.equal(err.code, 'plugin_package_invalid');
      assert.deepEqual(err.errors, [
        {
          field: 'package',
          message: `CHARTA_MANIFEST.json: /components/handlers/0/class "Absent" is not a handler class that "${ENTRY}" exports (an exported class with RESPONDS_TO and compute())`,
        },
      ]);
      assert.match(err.detail, /^The package was refused: .*"Absent"/);
      return true;
    });
    const accepted = await checkUpload(file);
    assert.equal(accepted.metadata.name, 'check-me');
    const good = await built(manifest(), src(GOOD));
    assert.equal((await checkUpload({ bytes: good.bytes, fileName: 'check-me-1.0.0.tar.gz' }, runtime)).metadata.name, 'check-me');
  });
});

describe('the instance maximums of plugin limits', () => {
  it("default to 128 MiB and 5000 ms (and 2048 MiB for the runner's plugins together), and refuse values out of range", () => {
    const base = { CHARTA_DATABASE_URL: 'sqlite::memory:' };
    const config = loadConfig(base);
    assert.equal(config.pluginMaxMemoryMb, 128);
    assert.equal(config.pluginMaxTimeoutMs, 5000);
    assert.equal(config.pluginRunnerMaxMemoryMb, 2048);
    const set = loadConfig({ ...base, CHARTA_PLUGIN_MAX_MEMORY_MB: '256', CHARTA_PLUGIN_MAX_TIMEOUT_MS: '20000', CHARTA_PLUGIN_RUNNER_MAX_MEMORY_MB: '512' });
    assert.deepEqual([set.pluginMaxMemoryMb, set.pluginMaxTimeoutMs, set.pluginRunnerMaxMemoryMb], [256, 20000, 512]);
    for (const [name, value] of [
      ['CHARTA_PLUGIN_MAX_MEMORY_MB', '0'],
      ['CHARTA_PLUGIN_MAX_MEMORY_MB', '2048'],
      ['CHARTA_PLUGIN_MAX_MEMORY_MB', '1.5'],
      ['CHARTA_PLUGIN_MAX_TIMEOUT_MS', '5'],
      ['CHARTA_PLUGIN_MAX_TIMEOUT_MS', 'soon'],
      ['CHARTA_PLUGIN_RUNNER_MAX_MEMORY_MB', '0'],
      ['CHARTA_PLUGIN_RUNNER_MAX_MEMORY_MB', 'lots'],
    ] as const) {
      assert.throws(
        () => loadConfig({ ...base, [name]: value }),
        (err: unknown) => err instanceof ConfigError && err.message.startsWith(`${name} must be`),
        `${name}=${value}`,
      );
    }
  });
});
