// The user documentation stays in step with the code: every error code of the catalog is in
// docs/errors.md with its status (and nothing else is), docs/command-kinds.md is what
// scripts/gen-kinds-doc.ts renders, every served route is in docs/api.md, and every setting
// and subcommand is in docs/configuration.md.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { catalog } from '../src/http/problem.ts';
import { render } from '../../../scripts/gen-kinds-doc.ts';
import { startInstance, type Instance } from './support/harness.ts';

const read = (relative: string) => fs.readFileSync(new URL(relative, import.meta.url), 'utf8');
const docs = (name: string) => read(`../../../docs/${name}`);

const METHODS = ['get', 'put', 'post', 'delete', 'patch'];

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * `METHOD /path` as a pattern: OpenAPI's `{param}` segments match a parameter written any way
 * (`{uuid}`, `:uuid`, `<uuid>`, a real value), and the path must end where the text's path ends.
 */
function routePattern(method: string, path: string): RegExp {
  const body = path
    .split(/(\{[^}]+\})/)
    .map((part) => (part.startsWith('{') ? '[^/\\s`]+' : escape(part)))
    .join('');
  return new RegExp(`\\b${method.toUpperCase()}\\s+${body}(?![\\w/{}:-])`);
}

describe('docs/errors.md', () => {
  const rows = new Map<string, string[]>();
  const duplicates: string[] = [];
  for (const line of docs('errors.md').split('\n')) {
    const m = /^\| `([^`]+)` \|(.*)\|\s*$/.exec(line);
    if (!m) continue;
    if (rows.has(m[1]!)) duplicates.push(m[1]!);
    rows.set(
      m[1]!,
      m[2]!.split(' | ').map((c) => c.trim()),
    );
  }

  it('documents every catalog code once, with its status, title and default detail', () => {
    assert.deepEqual(duplicates, [], 'codes documented twice');
    for (const [code, entry] of Object.entries(catalog)) {
      const cells = rows.get(code);
      assert.ok(cells, `${code} is documented in docs/errors.md`);
      assert.equal(cells[0], String(entry.status), `${code} status`);
      assert.equal(cells[1], entry.title, `${code} title`);
      assert.equal(cells[2], entry.detail, `${code} default detail`);
      assert.ok((cells[3] ?? '').length > 0, `${code} says when it happens`);
    }
  });

  it('documents no code the catalog does not have', () => {
    const extra = [...rows.keys()].filter((code) => !Object.hasOwn(catalog, code));
    assert.deepEqual(extra, []);
  });
});

describe('docs/command-kinds.md', () => {
  it('is what scripts/gen-kinds-doc.ts renders (regenerate it if this fails)', () => {
    assert.equal(docs('command-kinds.md'), render(), 'run: node --import tsx scripts/gen-kinds-doc.ts > docs/command-kinds.md');
  });
});

describe('docs/configuration.md', () => {
  const text = docs('configuration.md');

  it('names every environment variable config.ts reads', () => {
    const variables = new Set(read('../src/config.ts').match(/CHARTA_[A-Z_]+/g) ?? []);
    assert.ok(variables.size >= 10, `found ${[...variables].join(', ')}`);
    for (const name of variables) assert.ok(text.includes(`\`${name}\``), `${name} is documented`);
  });

  it('names every charta-server subcommand and flag', () => {
    const main = read('../src/main.ts');
    const commands = [...main.matchAll(/\.command\('([a-z-]+)'/g)].map((m) => m[1]!);
    const flags = [...main.matchAll(/\.option\('(--[a-z-]+)/g)].map((m) => m[1]!);
    assert.ok(commands.length >= 5 && flags.length >= 6, `found ${commands.join(', ')} / ${flags.join(', ')}`);
    for (const name of commands) assert.ok(text.includes(`\`${name}\``), `subcommand ${name} is documented`);
    for (const flag of flags) assert.ok(text.includes(`\`${flag}`), `flag ${flag} is documented`);
  });
});

describe('docs/api.md', () => {
  let instance: Instance;
  const text = docs('api.md');

  before(async () => {
    instance = await startInstance('sqlite');
  });
  after(async () => {
    await instance?.stop();
  });

  it('mentions every route of /openapi.json, with its method', async () => {
    const res = await fetch(`${instance.url}/openapi.json`);
    assert.equal(res.status, 200);
    const doc = (await res.json()) as { paths?: Record<string, Record<string, unknown>> };
    const routes = Object.entries(doc.paths ?? {}).flatMap(([path, item]) =>
      Object.keys(item)
        .filter((method) => METHODS.includes(method))
        .map((method) => ({ method, path })),
    );
    assert.ok(routes.length >= 18, `expected the documented routes, got ${routes.length}`);
    const missing = routes.filter(({ method, path }) => !routePattern(method, path).test(text)).map(({ method, path }) => `${method.toUpperCase()} ${path}`);
    assert.deepEqual(missing, [], 'routes missing from docs/api.md');
  });

  it('mentions the reference endpoints and every catalog code it relies on exists', () => {
    assert.ok(text.includes('/openapi.json') && text.includes('/docs'));
    const cited = new Set([...text.matchAll(/\b\d{3} `([a-z_]+)`/g)].map((m) => m[1]!));
    const unknown = [...cited].filter((code) => !Object.hasOwn(catalog, code));
    assert.deepEqual(unknown, [], 'api.md cites codes the catalog does not have');
  });
});

describe('routePattern', () => {
  it('matches a route with its parameters written any way, and nothing longer', () => {
    const p = routePattern('post', '/core/api/v1/commands/{uuid}/commit/');
    assert.ok(p.test('`POST /core/api/v1/commands/{uuid}/commit/`'));
    assert.ok(p.test('POST /core/api/v1/commands/:id/commit/'));
    assert.ok(p.test('POST /core/api/v1/commands/31f52f33-092e-4cc9-abad-40622c5d5535/commit/ —'));
    assert.ok(!p.test('GET /core/api/v1/commands/{uuid}/commit/'));
    assert.ok(!routePattern('get', '/core/api/v1/notes').test('GET /core/api/v1/notes/{uuid}'));
    assert.ok(routePattern('get', '/core/api/v1/notes').test('GET /core/api/v1/notes?patient_key=…'));
  });
});
