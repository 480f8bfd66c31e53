// The process entry points that run from a bundle when one is up to date, and the one module
// loaded on demand the same way (docs/architecture.md, "Bundled entry points"): which source each
// bundle is built from, and whether a bundle may be run. A bundle may run only while every source file it was built from still has the content it
// was built from (the digest its sources file records); otherwise the entry point runs the
// TypeScript sources through tsx, so an edit is never silently ignored.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

export const ROOT = path.resolve(import.meta.dirname, '..');

/** Each entry point: its TypeScript source and its bundle, relative to the repository root. */
export const ENTRIES = {
  charta: { source: 'packages/cli/src/main.ts', bundle: 'packages/cli/dist/charta.mjs' },
  'charta-server': { source: 'packages/server/src/main.ts', bundle: 'packages/server/dist/charta-server.mjs' },
  'runner-child': { source: 'packages/server/src/runtime/runner/child.ts', bundle: 'packages/server/dist/runner-child.mjs' },
  // Not a process: the module `charta plugin test` and `charta plugin run` load when they run (importEntry).
  'local-runtime': { source: 'packages/server/src/runtime/local.ts', bundle: 'packages/server/dist/local-runtime.mjs' },
  // Not a process either: the server as a module (startServer), which the benchmark loads to measure the code as it ships (bench/lib/charta-server.ts).
  server: { source: 'packages/server/src/server.ts', bundle: 'packages/server/dist/server.mjs' },
};

/** The file beside a bundle listing the source files it was built from and their digest. */
export const sourcesFile = (bundle) => bundle.replace(/\.mjs$/, '.sources.json');

/** One digest of the files, in the order given, with `read` giving each one's text; null when one has none (it is gone). */
export function digestOf(files, read) {
  const hash = crypto.createHash('sha256');
  for (const file of files) {
    const text = read(file);
    if (typeof text !== 'string') return null;
    hash.update(`${file}\0${text.length}\0`).update(text);
  }
  return hash.digest('hex');
}

function readOrNull(file) {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    return null;
  }
}

/** 'fresh' when the bundle exists and its sources are unchanged, 'stale' when one changed or is gone, 'missing' with no bundle. */
export function bundleState(root, bundle) {
  let recorded;
  try {
    recorded = JSON.parse(fs.readFileSync(path.join(root, sourcesFile(bundle)), 'utf8'));
  } catch {
    return 'missing';
  }
  if (!fs.existsSync(path.join(root, bundle))) return 'missing';
  return digestOf(recorded.files, (file) => readOrNull(path.join(root, file))) === recorded.digest ? 'fresh' : 'stale';
}

/** What the entry point runs: its bundle when it is fresh, else its source (which needs tsx). */
export function entryFor(name) {
  const { source, bundle } = ENTRIES[name];
  const fresh = bundleState(ROOT, bundle) === 'fresh';
  return { url: pathToFileURL(path.join(ROOT, fresh ? bundle : source)).href, needsTsx: !fresh };
}

let tsxRegistered = false;

/** The entry point's module: its bundle, or its source through tsx's loader (registered once per process). */
export async function importEntry(name) {
  const entry = entryFor(name);
  if (entry.needsTsx && !tsxRegistered) {
    (await import('tsx/esm/api')).register();
    tsxRegistered = true;
  }
  return import(entry.url);
}

/** Runs the entry point: its bundle, or its source through tsx's loader. */
export async function launch(name) {
  await importEntry(name);
}
