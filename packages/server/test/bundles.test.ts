// The bundled entry points (docs/architecture.md, "Bundled entry points"): after the build
// (`npm run build:bins`, run by prepare and by scripts/run-tests.js) every bundle is fresh, an
// edited, removed or unrecorded source makes a bin fall back to the sources, and a bundle does
// what its sources do: the same answers, the console build, starter data and migrations found.
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { bundleState, digestOf, entryFor, ENTRIES, ROOT, sourcesFile, type EntryName } from '../../../scripts/bundles.js';
import { createDatabase, TEST_API_KEY } from './support/harness.ts';
import { startServerProcess, stopAll } from './support/processes.ts';

const run = promisify(execFile);
const NAMES = Object.keys(ENTRIES) as EntryName[];

/** stdout of `node <args>` run from the repository root. */
async function node(args: string[]): Promise<string> {
  const { stdout } = await run(process.execPath, args, { cwd: ROOT, env: { ...process.env, NODE_TEST_CONTEXT: undefined } });
  return stdout;
}

describe('bundled entry points', () => {
  for (const name of NAMES) {
    it(`${name}: the bundle is fresh after the build, and the bin runs it`, () => {
      assert.equal(bundleState(ROOT, ENTRIES[name].bundle), 'fresh', 'run: npm run build:bins');
      assert.deepEqual(entryFor(name), { url: new URL(ENTRIES[name].bundle, `file://${ROOT}/`).href, needsTsx: false });
    });
  }

  it('inlines the workspace sources and leaves npm packages to Node', () => {
    const files: string[] = JSON.parse(fs.readFileSync(path.join(ROOT, sourcesFile(ENTRIES.charta.bundle)), 'utf8')).files;
    assert.ok(files.includes('packages/plugin-sdk/src/manifest.ts'), 'the SDK (a workspace package) is in the CLI bundle');
    const sources = files.filter((f) => f.startsWith('packages/'));
    assert.ok(
      sources.every((f) => f.endsWith('.ts')),
      sources.join(', '),
    );
    assert.ok(files.includes('scripts/build-bundles.js'), 'a change to the build makes the bundles stale');
    const server = fs.readFileSync(path.join(ROOT, ENTRIES['charta-server'].bundle), 'utf8');
    for (const pkg of ['better-sqlite3', 'pg', 'fastify']) assert.ok(server.includes(`from "${pkg}"`), `${pkg} stays an import`);
    const child = fs.readFileSync(path.join(ROOT, ENTRIES['runner-child'].bundle), 'utf8');
    assert.ok(child.includes('from "quickjs-emscripten"'), 'quickjs-emscripten (and its WebAssembly) stays an import');
  });

  describe('freshness', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'charta-bundles-'));
    after(() => fs.rmSync(dir, { recursive: true, force: true }));
    const files = ['src/a.ts', 'src/b.ts'];
    const bundle = 'dist/x.mjs';
    const build = () => {
      fs.mkdirSync(path.join(dir, 'dist'), { recursive: true });
      fs.writeFileSync(path.join(dir, bundle), 'export {};\n');
      const digest = digestOf(files, (f) => fs.readFileSync(path.join(dir, f), 'utf8'));
      fs.writeFileSync(path.join(dir, sourcesFile(bundle)), JSON.stringify({ digest, files }));
    };
    fs.mkdirSync(path.join(dir, 'src'));
    for (const f of files) fs.writeFileSync(path.join(dir, f), `export const name = '${f}';\n`);

    it('is missing before a build, fresh after it', () => {
      assert.equal(bundleState(dir, bundle), 'missing');
      build();
      assert.equal(bundleState(dir, bundle), 'fresh');
    });

    it('is stale once a source is edited, even with its old size and modification time', () => {
      build();
      const file = path.join(dir, 'src/b.ts');
      const { atime, mtime } = fs.statSync(file);
      fs.writeFileSync(file, `export const name = 'src/B.ts';\n`);
      fs.utimesSync(file, atime, mtime);
      assert.equal(bundleState(dir, bundle), 'stale');
      build();
      assert.equal(bundleState(dir, bundle), 'fresh');
    });

    it('is stale once a source is removed, missing once the bundle is', () => {
      build();
      fs.renameSync(path.join(dir, 'src/a.ts'), path.join(dir, 'src/a.old'));
      assert.equal(bundleState(dir, bundle), 'stale');
      fs.renameSync(path.join(dir, 'src/a.old'), path.join(dir, 'src/a.ts'));
      assert.equal(bundleState(dir, bundle), 'fresh');
      fs.rmSync(path.join(dir, bundle));
      assert.equal(bundleState(dir, bundle), 'missing');
    });
  });

  describe('behaves like the sources', () => {
    // The bins run the bundles (the freshness tests above): each answers as its sources through tsx do.
    for (const [name, args] of [
      ['charta', ['plugin', '--help']],
      ['charta-server', ['--help']],
    ] as const) {
      it(`${name} ${args.join(' ')}`, async () => {
        const bin = name === 'charta' ? 'packages/cli/bin/charta.js' : 'packages/server/bin/charta-server.js';
        assert.equal(await node([bin, ...args]), await node(['--import', 'tsx', ENTRIES[name].source, ...args]));
      });
    }

    it('charta-server start migrates, loads the starter data and serves the console build', async (t) => {
      const db = await createDatabase('sqlite');
      t.after(async () => {
        await stopAll();
        await db.drop();
      });
      const server = await startServerProcess(db);
      const page = await fetch(`${server.url}/console/`);
      assert.equal(page.status, 200);
      assert.match(await page.text(), /<html/i);
      const units = await fetch(`${server.url}/core/api/v1/admin/dispense-units/`, { headers: { authorization: TEST_API_KEY } });
      assert.equal(units.status, 200, await units.clone().text());
      assert.ok(((await units.json()) as { count: number }).count > 0, 'the starter dispense units are loaded');
    });
  });
});
