// Comments cite the project's own pages (docs/architecture.md, "Code layout"): no source, test,
// bench or script file names a design document outside the repository, and every
// `docs/<page>.md, "<section>"` a file cites is a page of docs/ with a heading of that name.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const SCANNED = [
  'packages/server/src',
  'packages/server/test',
  'packages/client/src',
  'packages/cli/src',
  'packages/cli/test',
  'packages/plugin-sdk/src',
  'bench',
  'scripts',
];
const SKIPPED = new Set(['node_modules', 'dist', 'results', 'data']);

function sourceFiles(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return SKIPPED.has(entry.name) ? [] : sourceFiles(full);
    return /\.(ts|js|mjs)$/.test(entry.name) ? [full] : [];
  });
}

const files = SCANNED.flatMap((dir) => sourceFiles(path.join(ROOT, dir))).map((file) => ({
  name: path.relative(ROOT, file),
  text: fs.readFileSync(file, 'utf8'),
}));

/** The headings of a docs page, without their backticks. */
const headings = (page: string) =>
  fs
    .readFileSync(path.join(ROOT, 'docs', page), 'utf8')
    .split('\n')
    .filter((line) => /^#{1,6} /.test(line))
    .map((line) => line.replace(/^#+ /, '').replaceAll('`', ''));

// Built from pieces so that this file does not cite them itself.
const OUTSIDE = [
  new RegExp(`(?<!docs/)\\b${'product'}\\.md\\b`),
  new RegExp(`(?<!docs/)\\b${'architecture'}\\.md\\b`),
  new RegExp(`\\b${'plugin-protocol'}\\.md\\b`),
  new RegExp(`/work/${'shared'}`),
  new RegExp(`(?<!RFC \\d+ )${'\u00a7'}`),
];

describe('citations in comments', () => {
  it('scans the source, test, bench and script files', () => {
    assert.ok(files.length > 100, `only ${files.length} files found under ${ROOT}`);
  });

  it('no file cites a document outside the repository', () => {
    const found = files.flatMap(({ name, text }) =>
      text.split('\n').flatMap((line, i) => (OUTSIDE.some((pattern) => pattern.test(line)) ? [`${name}:${i + 1}: ${line.trim()}`] : [])),
    );
    assert.deepEqual(found, []);
  });

  it('every docs page and section cited exists', () => {
    const wrong: string[] = [];
    for (const { name, text } of files) {
      for (const match of text.matchAll(/docs\/([a-z-]+\.md)((?:,| and) "[^"]+"(?: and "[^"]+")*)?/g)) {
        const page = match[1]!;
        if (!fs.existsSync(path.join(ROOT, 'docs', page))) {
          wrong.push(`${name}: docs/${page} does not exist`);
          continue;
        }
        const titles = headings(page);
        for (const [, section] of (match[2] ?? '').matchAll(/"([^"]+)"/g)) {
          // A title wrapped over two comment lines reads as one ("Reading the\n// record").
          const wanted = section!.replaceAll('`', '').replace(/\s*\n\s*(?:\/\/|\*)?\s*/g, ' ');
          if (!titles.some((title) => title.includes(wanted))) wrong.push(`${name}: docs/${page} has no section "${section}"`);
        }
      }
    }
    assert.deepEqual(wrong, []);
  });
});
