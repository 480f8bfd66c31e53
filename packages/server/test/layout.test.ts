// The shape of the server (docs/architecture.md, "Code layout"): the HTTP layer imports no feature,
// each feature with routes takes its wire schemas from @charta/api (no feature declares its own)
// and registers as one Fastify plugin, and handlers read typed requests (the TypeBox type
// provider) rather than casting them.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';

const src = path.resolve(import.meta.dirname, '..', 'src');
/** The layers below the features (what every feature may use); every other folder is a feature. */
const BELOW = ['http', 'lib', 'storage', 'signals', 'inspection'];
const FEATURES = fs
  .readdirSync(src, { withFileTypes: true })
  .filter((d) => d.isDirectory() && !BELOW.includes(d.name))
  .map((d) => d.name);

const filesOf = (dir: string): string[] =>
  fs
    .readdirSync(path.join(src, dir), { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.ts'))
    .map((f) => path.join(dir, f));
const importsOf = (file: string) => [...fs.readFileSync(path.join(src, file), 'utf8').matchAll(/\b(?:from|import)\s*\(?\s*'([^']+)'/g)].map((m) => m[1]!);

/** The folder of src/ a file is in; undefined for the files at its root (app.ts, context.ts…: they assemble the folders). */
const folderOf = (file: string): string | undefined => (file.includes(path.sep) ? file.split(path.sep)[0] : undefined);

/** Folder → the folders its files import (`import type` and `export … from` included). */
function folderGraph(): Map<string, Set<string>> {
  const folders = fs
    .readdirSync(src, { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => d.name);
  const graph = new Map(folders.map((f) => [f, new Set<string>()]));
  for (const folder of folders) {
    for (const file of filesOf(folder)) {
      for (const specifier of importsOf(file)) {
        if (!specifier.startsWith('.')) continue;
        const target = folderOf(path.relative(src, path.resolve(path.join(src, path.dirname(file)), specifier)));
        if (target !== undefined && target !== folder) graph.get(folder)!.add(target);
      }
    }
  }
  return graph;
}

/** The folders that reach each other through imports: each group of more than one is a cycle (Tarjan's strongly connected components). */
function cycles(graph: Map<string, Set<string>>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const found: string[][] = [];
  const visit = (v: string) => {
    index.set(v, index.size);
    low.set(v, index.get(v)!);
    stack.push(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (stack.includes(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const group: string[] = [];
      for (let w = stack.pop()!; ; w = stack.pop()!) {
        group.push(w);
        if (w === v) break;
      }
      if (group.length > 1) found.push(group.sort());
    }
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return found;
}

describe('server layout', () => {
  it('no two folders import each other, directly or around a loop (type imports count)', () => {
    const graph = folderGraph();
    assert.ok(graph.size >= 15, [...graph.keys()].join());
    const named = (group: string[]) => group.map((a) => `${a} → ${[...graph.get(a)!].filter((b) => group.includes(b)).join(', ')}`).join('; ');
    assert.deepEqual(cycles(graph).map(named), []);
  });

  it('finds a loop when there is one (the check itself)', () => {
    const graph = new Map([
      ['a', new Set(['b'])],
      ['b', new Set(['c'])],
      ['c', new Set(['a'])],
      ['d', new Set(['a'])],
    ]);
    assert.deepEqual(cycles(graph), [['a', 'b', 'c']]);
  });

  it('http/ imports no feature folder', () => {
    for (const file of filesOf('http')) {
      for (const specifier of importsOf(file)) {
        if (!specifier.startsWith('.')) continue;
        const target = path.relative(src, path.resolve(path.join(src, path.dirname(file)), specifier)).split(path.sep)[0]!;
        assert.ok(!FEATURES.includes(target), `${file} imports ${specifier}`);
      }
    }
  });

  it('the low layers import only lower ones: lib/ nothing, storage/ lib/, signals/ lib/ and storage/', () => {
    const allowed: Record<string, string[]> = { lib: ['lib'], storage: ['storage', 'lib'], signals: ['signals', 'lib', 'storage'] };
    for (const [layer, targets] of Object.entries(allowed)) {
      for (const file of filesOf(layer)) {
        for (const specifier of importsOf(file)) {
          if (!specifier.startsWith('.')) continue;
          const target = path.relative(src, path.resolve(path.join(src, path.dirname(file)), specifier)).split(path.sep)[0]!;
          assert.ok(targets.includes(target), `${file} imports ${specifier}`);
        }
      }
    }
  });

  it('autocomplete/ imports no feature folder: the features register their option providers with it', () => {
    for (const file of filesOf('autocomplete')) {
      for (const specifier of importsOf(file)) {
        if (!specifier.startsWith('.')) continue;
        const target = path.relative(src, path.resolve(path.join(src, path.dirname(file)), specifier)).split(path.sep)[0]!;
        assert.ok(target === 'autocomplete' || !FEATURES.includes(target), `${file} imports ${specifier}`);
      }
    }
  });

  it('finds the features in the tree', () => {
    for (const feature of ['commands', 'notes', 'patients', 'plugins', 'runtime', 'autocomplete', 'reference']) assert.ok(FEATURES.includes(feature), feature);
  });

  it('every feature with routes takes its schemas from @charta/api and is registered with app.register', () => {
    const app = fs.readFileSync(path.join(src, 'app.ts'), 'utf8');
    const withRoutes = fs.readdirSync(src).filter((d) => fs.existsSync(path.join(src, d, 'routes.ts')));
    assert.ok(withRoutes.length >= 8, withRoutes.join());
    for (const feature of withRoutes) {
      assert.ok(!fs.existsSync(path.join(src, feature, 'schemas.ts')), `${feature}/schemas.ts: wire shapes live in @charta/api`);
      const plugin = /export async function (\w+Routes)\(/.exec(fs.readFileSync(path.join(src, feature, 'routes.ts'), 'utf8'))?.[1];
      assert.ok(plugin !== undefined, `${feature}/routes.ts exports its plugin`);
      assert.match(app, new RegExp(`await app\\.register\\(${plugin}\\b`), `app.ts registers ${plugin}`);
    }
  });

  it('route handlers read typed requests, never `request.… as`', () => {
    for (const file of fs.readdirSync(src).flatMap((d) => (fs.statSync(path.join(src, d)).isDirectory() ? filesOf(d) : []))) {
      const text = fs.readFileSync(path.join(src, file), 'utf8');
      assert.doesNotMatch(text, /request\.(params|query|body|headers)\s+as\b/, file);
    }
  });
});
