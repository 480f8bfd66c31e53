#!/usr/bin/env node
// Builds the bundle of every entry point of scripts/bundles.js
// (docs/architecture.md, "Bundled entry points"): the workspace's TypeScript inlined, every npm
// package left to Node (native modules, WebAssembly files, esbuild itself), and each file's
// import.meta.url and import.meta.dirname pointing at its source file, so paths relative to a
// source (the console's build, templates, starter data) resolve as they do from the sources.
// `npm run build:bins` builds them all; scripts/run-tests.js rebuilds the ones not fresh.
import fs from 'node:fs';
import path from 'node:path';
import * as esbuild from 'esbuild';
import { bundleState, digestOf, ENTRIES, ROOT, sourcesFile } from './bundles.js';

/** Files that decide what a bundle is besides its sources: a change to one makes every bundle stale too. */
const BUILD_FILES = ['scripts/build-bundles.js', 'tsconfig.json'];

/** npm packages stay imports (resolved by Node from the bundle's folder); @charta/* workspaces are sources to inline. */
const npmPackagesExternal = {
  name: 'npm-packages-external',
  setup(build) {
    build.onResolve({ filter: /^[^./]/ }, (args) => (args.path.startsWith('@charta/') ? undefined : { path: args.path, external: true }));
  },
};

/**
 * Rewrites import.meta.url and import.meta.dirname of each source to its own location, relative
 * to the bundle; `read` collects each source's text as read, for the digest of what was built.
 */
function sourceLocations(outDir, read) {
  return {
    name: 'source-locations',
    setup(build) {
      build.onLoad({ filter: /\.ts$/ }, (args) => {
        const text = fs.readFileSync(args.path, 'utf8');
        read.set(path.relative(ROOT, args.path).split(path.sep).join('/'), text);
        const file = JSON.stringify(path.relative(outDir, args.path).split(path.sep).join('/'));
        const contents = text
          .replaceAll('import.meta.url', `new URL(${file}, import.meta.url).href`)
          .replaceAll('import.meta.dirname', `__chartaDirname(new URL(${file}, import.meta.url))`);
        return { contents, loader: 'ts' };
      });
    },
  };
}

/** Writes a file whole or not at all (a test run may be starting the previous bundle meanwhile). */
function writeAtomically(file, contents) {
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, contents);
  fs.renameSync(tmp, file);
}

export async function buildBundle(name) {
  const { source, bundle } = ENTRIES[name];
  const outFile = path.join(ROOT, bundle);
  const read = new Map();
  const result = await esbuild.build({
    absWorkingDir: ROOT,
    entryPoints: [source],
    outfile: outFile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    write: false,
    metafile: true,
    logLevel: 'warning',
    banner: {
      js: "import { fileURLToPath as __chartaFileURLToPath } from 'node:url'; const __chartaDirname = (url) => __chartaFileURLToPath(new URL('.', url));",
    },
    plugins: [npmPackagesExternal, sourceLocations(path.dirname(outFile), read)],
  });
  const inputs = Object.keys(result.metafile.inputs);
  const unread = inputs.filter((file) => !read.has(file));
  if (unread.length > 0) throw new Error(`bundle ${name}: inputs that are not TypeScript sources: ${unread.join(', ')}`);
  for (const file of BUILD_FILES) read.set(file, fs.readFileSync(path.join(ROOT, file), 'utf8'));
  const files = [...inputs, ...BUILD_FILES].sort();
  fs.mkdirSync(path.dirname(outFile), { recursive: true });
  writeAtomically(outFile, result.outputFiles[0].contents);
  writeAtomically(path.join(ROOT, sourcesFile(bundle)), `${JSON.stringify({ digest: digestOf(files, (file) => read.get(file)), files }, null, 2)}\n`);
}

/** Builds the bundles that are missing or stale; returns their names. */
export async function buildStaleBundles() {
  const names = Object.keys(ENTRIES).filter((name) => bundleState(ROOT, ENTRIES[name].bundle) !== 'fresh');
  await Promise.all(names.map(buildBundle));
  return names;
}

if (process.argv[1] === import.meta.filename) {
  await Promise.all(Object.keys(ENTRIES).map(buildBundle));
}
