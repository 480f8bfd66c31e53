// @charta/client declares what it imports: every package its source names is a dependency in
// its package.json, the server's wire types come through the server's `./schemas` export, and
// only as types (nothing of the server runs in a client).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { builtinModules } from 'node:module';

const root = path.resolve(import.meta.dirname, '..');
const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as { dependencies?: Record<string, string> };

/** Every `import … from 'x'` and `export … from 'x'` of the client's source, with whether it is type-only. */
function imports(): Array<{ file: string; specifier: string; typeOnly: boolean }> {
  const out: Array<{ file: string; specifier: string; typeOnly: boolean }> = [];
  const dir = path.join(root, 'src');
  for (const file of fs.readdirSync(dir, { recursive: true, encoding: 'utf8' })) {
    if (!file.endsWith('.ts')) continue;
    const text = fs.readFileSync(path.join(dir, file), 'utf8');
    for (const m of text.matchAll(/^(import|export)\s+(type\s+)?[^;]*?\sfrom\s+'([^']+)'/gms)) {
      out.push({ file, specifier: m[3]!, typeOnly: m[2] !== undefined });
    }
  }
  return out;
}

const packageName = (specifier: string) =>
  specifier
    .split('/')
    .slice(0, specifier.startsWith('@') ? 2 : 1)
    .join('/');
const bare = (specifier: string) => !specifier.startsWith('.') && !specifier.startsWith('node:') && !builtinModules.includes(specifier);

describe('@charta/client package', () => {
  it('declares every package its source imports', () => {
    const used = imports().filter((i) => bare(i.specifier));
    assert.ok(
      used.some((i) => i.specifier === '@charta/api'),
      'the client takes its types from the contract package',
    );
    assert.ok(!used.some((i) => packageName(i.specifier) === '@charta/server'), 'the client needs nothing of the server');
    for (const { file, specifier } of used) {
      assert.ok(pkg.dependencies?.[packageName(specifier)] !== undefined, `${file} imports ${specifier}, which package.json does not declare`);
    }
  });

  it('loads nothing of the schema library nor of Node: types from @charta/api, values from its constants only (the console bundles it)', () => {
    const all = imports();
    assert.ok(all.length > 0);
    for (const { file, specifier, typeOnly } of all) {
      if (specifier === '@charta/api') assert.ok(typeOnly, `${file}: import type from @charta/api (values come from @charta/api/constants)`);
      assert.ok(!specifier.startsWith('node:') && !builtinModules.includes(specifier), `${file} imports ${specifier}: the client runs in a browser too`);
      assert.notEqual(specifier, 'ws', `${file} imports ws: a Node caller passes its WebSocket in`);
    }
  });
});
