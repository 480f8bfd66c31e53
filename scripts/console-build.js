// Whether the console's build (packages/console/dist) is there and newer than every file of its
// source, src/ and public/ (docs/console.md, "How it is built and served"). The test runner rebuilds a stale one
// before any test starts; the browser tests refuse one (they run side by side, and a rebuild
// empties the directory another test's instance serves).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const CONSOLE_PACKAGE = path.resolve(import.meta.dirname, '../packages/console');
export const CONSOLE_DIST = path.join(CONSOLE_PACKAGE, 'dist');

/** 'missing' with no build; else the first source file newer than the build, or null when it is fresh. */
export function consoleBuildState() {
  const index = path.join(CONSOLE_DIST, 'index.html');
  if (!fs.existsSync(index)) return 'missing';
  const built = fs.statSync(index).mtimeMs;
  // src/ and public/ (the favicon, copied to the build as it is).
  const sources = ['src', 'public'].flatMap((dir) =>
    fs.readdirSync(path.join(CONSOLE_PACKAGE, dir), { recursive: true, withFileTypes: true }).filter((e) => e.isFile()),
  );
  const newer = sources.find((e) => fs.statSync(path.join(e.parentPath, e.name)).mtimeMs > built);
  return newer === undefined ? null : path.join(newer.parentPath, newer.name);
}

/** Builds the console with its own Vite (what `npm run build -w @charta/console` runs). */
export function buildConsole() {
  const vite = path.resolve(CONSOLE_PACKAGE, '../../node_modules/vite/bin/vite.js');
  execFileSync(process.execPath, [vite, 'build', '--logLevel', 'warn'], { cwd: CONSOLE_PACKAGE, stdio: 'inherit' });
}
