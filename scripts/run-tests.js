#!/usr/bin/env node
// Runs every *.test.ts of the workspaces with node's test runner (Node 20 neither expands
// globs nor finds .ts files itself) and fails if no test ran at all. First it rebuilds the
// bundles of the entry points whose sources changed, so the processes tests start run the code
// being tested without tsx's start-up cost (docs/architecture.md, "Bundled entry points"), and
// the console's build if its source changed (scripts/console-build.js).
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { buildStaleBundles } from './build-bundles.js';
import { buildConsole, consoleBuildState } from './console-build.js';

const root = path.resolve(import.meta.dirname, '..');
const files = [];
const walk = (dir) => {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory() && entry.name !== 'node_modules') walk(full);
    else if (entry.isFile() && entry.name.endsWith('.test.ts')) files.push(path.relative(root, full));
  }
};
// Only packages/*/test: the example plugins' own tests (examples/*/test) run in the sandbox under
// `charta plugin test`, never here directly; packages/cli/test/examples.test.ts runs them that way.
for (const pkg of fs.readdirSync(path.join(root, 'packages'))) {
  const dir = path.join(root, 'packages', pkg, 'test');
  if (fs.existsSync(dir)) walk(dir);
}
const only = process.argv.slice(2);
const selected = only.length ? files.filter((f) => only.some((o) => f.includes(o))) : files;
if (selected.length === 0) {
  console.error('run-tests: no test files found');
  process.exit(1);
}
const rebuilt = await buildStaleBundles();
if (rebuilt.length > 0) console.error(`run-tests: rebuilt the bundles of ${rebuilt.join(', ')}`);
if (consoleBuildState() !== null) {
  buildConsole();
  console.error('run-tests: rebuilt the console (packages/console/dist)');
}
const child = spawn(process.execPath, ['--import', 'tsx', '--test', '--test-concurrency=2', '--test-reporter=spec', ...selected], {
  cwd: root,
  stdio: ['ignore', 'pipe', 'inherit'],
});
let tail = '';
child.stdout.on('data', (chunk) => {
  process.stdout.write(chunk);
  tail = (tail + chunk.toString()).slice(-4000);
});
child.on('close', (code) => {
  const tests = /ℹ tests (\d+)/.exec(tail);
  if (code === 0 && (!tests || Number(tests[1]) === 0)) {
    console.error('run-tests: the runner reported no tests');
    process.exit(1);
  }
  process.exit(code ?? 1);
});
