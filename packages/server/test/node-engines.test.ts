// The supported Node range (package.json `engines`) is what every installed package supports:
// `npm ci` on any Node the project claims to support prints no engine warning (docs: README).
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import semver from 'semver';

const root = path.resolve(import.meta.dirname, '../../..');
const manifest = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as { engines: { node: string } };
const lock = JSON.parse(fs.readFileSync(path.join(root, 'package-lock.json'), 'utf8')) as {
  packages: Record<string, { engines?: { node?: string } | string[] }>;
};

/** Every locked package that names the Node versions it supports. */
const constrained = Object.entries(lock.packages).flatMap(([name, entry]) => {
  const engines = entry.engines;
  return engines !== undefined && !Array.isArray(engines) && typeof engines.node === 'string' ? [{ name, range: engines.node }] : [];
});

test('the lock file has packages that declare a Node range (the check below sees them)', () => {
  assert.ok(constrained.length > 50, `only ${constrained.length} packages declare engines.node`);
});

test('every installed package supports the oldest Node the project claims to support', () => {
  const oldest = semver.minVersion(manifest.engines.node);
  assert.ok(oldest, `engines.node ${manifest.engines.node} is not a range`);
  const refused = constrained.filter((p) => !semver.satisfies(oldest, p.range));
  assert.deepEqual(refused, [], `these packages refuse Node ${oldest.version}`);
});

test('every installed package supports the Node running the tests, which the project claims to support', () => {
  assert.ok(semver.satisfies(process.version, manifest.engines.node), `${process.version} is outside engines.node ${manifest.engines.node}`);
  const refused = constrained.filter((p) => !semver.satisfies(process.version, p.range));
  assert.deepEqual(refused, [], `these packages refuse ${process.version}`);
});
