// /openapi.json and /docs: public, OpenAPI 3.1, every served route documented, and every
// documented 4xx answer described by the Problem schema.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startInstance, type Instance } from './support/harness.ts';

/** Routes the API must document at least, as OpenAPI writes them (method, path). */
const ROUTES: Array<[string, string]> = [
  ['post', '/auth/token/'],
  ['post', '/core/api/v1/patients/'],
  ['get', '/core/api/v1/patients'],
  ['get', '/core/api/v1/patients/{key}'],
  ['post', '/core/api/v1/notes/'],
  ['get', '/core/api/v1/notes'],
  ['get', '/core/api/v1/notes/{uuid}'],
  ['post', '/core/api/v1/notes/{uuid}/lock/'],
  ['post', '/core/api/v1/notes/{uuid}/unlock/'],
  ['delete', '/core/api/v1/notes/{uuid}/'],
  // The nine Commands API endpoints.
  ['get', '/core/api/v1/commands'],
  ['post', '/core/api/v1/commands/'],
  ['get', '/core/api/v1/commands/{uuid}'],
  ['patch', '/core/api/v1/commands/{uuid}/'],
  ['delete', '/core/api/v1/commands/{uuid}/'],
  ['post', '/core/api/v1/commands/{uuid}/commit/'],
  ['post', '/core/api/v1/commands/{uuid}/enter-in-error/'],
  ['get', '/core/api/v1/commands/{uuid}/fields/'],
  ['get', '/core/api/v1/commands/{uuid}/fields/{field}/autocomplete/'],
  // The log stream's recent entries over HTTP (the console reads them).
  ['get', '/core/api/v1/logging/recent/'],
];

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];
const PROBLEM_REF = '#/components/schemas/Problem';

interface ResponseObject {
  $ref?: string;
  content?: Record<string, { schema?: { $ref?: string } }>;
}
interface Operation {
  responses?: Record<string, ResponseObject>;
  security?: unknown;
}

function operations(doc: any): Array<{ method: string; path: string; op: Operation }> {
  const out: Array<{ method: string; path: string; op: Operation }> = [];
  for (const [path, item] of Object.entries<Record<string, Operation>>(doc.paths ?? {})) {
    for (const [method, op] of Object.entries(item)) if (METHODS.includes(method)) out.push({ method, path, op });
  }
  return out;
}

/** The schema refs of a response, one per media type (a response $ref is resolved first). */
function responseRefs(doc: any, response: ResponseObject): Array<string | undefined> {
  let r = response;
  if (r.$ref?.startsWith('#/components/responses/')) r = doc.components.responses[r.$ref.slice('#/components/responses/'.length)];
  const content = r.content ?? {};
  return Object.values(content).map((media) => media.schema?.$ref);
}

/** `method path` of every route the running app serves, from Fastify's route tree. */
function servedRoutes(tree: string): string[] {
  const out: string[] = [];
  const stack: string[] = [];
  for (const line of tree.split('\n')) {
    const m = /^((?:│ {3}| {4})*)[├└]── (\S+) \(([^)]+)\)$/.exec(line);
    if (!m) continue;
    const depth = m[1]!.length / 4;
    stack[depth] = m[2]!;
    stack.length = depth + 1;
    const path = stack.join('');
    for (const method of m[3]!.split(',').map((x) => x.trim().toLowerCase())) out.push(`${method} ${path}`);
  }
  return out;
}

/** Comparable form: OpenAPI `{x}` and Fastify `:x` parameters alike, no trailing slash. */
const normalise = (route: string) => route.replace(/\{[^}]+\}|:[^/]+/g, '{}').replace(/(.)\/$/, '$1');

async function getFollowing(url: string): Promise<Response> {
  let current = url;
  for (let hops = 0; hops < 5; hops++) {
    const res = await fetch(current, { redirect: 'manual' });
    const location = res.headers.get('location');
    if (res.status < 300 || res.status > 399 || location === null) return res;
    await res.arrayBuffer();
    current = new URL(location, current).toString();
  }
  throw new Error(`too many redirects from ${url}`);
}

describe('OpenAPI document and API reference', () => {
  let instance: Instance;
  let doc: any;

  before(async () => {
    instance = await startInstance('sqlite');
  });
  after(async () => {
    await instance?.stop();
  });

  it('serves /openapi.json without credentials', async () => {
    const res = await fetch(`${instance.url}/openapi.json`);
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /json/);
    doc = await res.json();
    assert.equal(typeof doc.openapi, 'string');
    assert.ok(doc.openapi.startsWith('3.1'), `openapi is ${doc.openapi}`);
    assert.equal(typeof doc.info?.title, 'string');
  });

  it('documents every route the app serves, with Problem for errors', async () => {
    doc ??= await (await fetch(`${instance.url}/openapi.json`)).json();
    for (const [method, path] of ROUTES) {
      const op: Operation | undefined = doc.paths?.[path]?.[method];
      assert.ok(op, `${method.toUpperCase()} ${path} is documented`);
      const codes = Object.keys(op.responses ?? {});
      assert.ok(
        codes.some((c) => c.startsWith('2')),
        `${method.toUpperCase()} ${path} documents its success`,
      );
      const errorCodes = codes.filter((c) => c.startsWith('4'));
      assert.ok(errorCodes.length > 0, `${method.toUpperCase()} ${path} documents its errors`);
      for (const code of errorCodes) {
        const refs = responseRefs(doc, op.responses![code]!);
        assert.ok(
          refs.length > 0 && refs.every((r) => r === PROBLEM_REF),
          `${method.toUpperCase()} ${path} ${code} references Problem: ${JSON.stringify(op.responses![code])}`,
        );
      }
    }
    // What the app really serves (HEAD aside, and the reference pages and the console's static files and icon) is exactly what is documented.
    const served = servedRoutes(instance.app.printRoutes({ commonPrefix: false }))
      .filter((r) => !r.startsWith('head ') && !/^get \/(docs|openapi\.json|console|favicon\.ico)\b/.test(r))
      .map(normalise);
    const documented = operations(doc).map(({ method, path }) => normalise(`${method} ${path}`));
    assert.ok(served.length >= ROUTES.length, `parsed the route tree: ${served.join(', ')}`);
    // /plugin-io/plugins/… serves the operations of /core/api/v1/plugins/…, every one of them, and is
    // documented once, as those (docs/api.md, "The original tool's paths"): not in the document.
    const alias = / \/plugin-io\/plugins\b/;
    const aliased = served.filter((r) => alias.test(r)).map((r) => r.replace(alias, ' /core/api/v1/plugins'));
    const pluginOperations = documented.filter((r) => / \/core\/api\/v1\/plugins\b/.test(r));
    assert.deepEqual([...new Set(aliased)].sort(), [...new Set(pluginOperations)].sort(), 'every plugin operation, and only those, under /plugin-io/plugins/');
    assert.ok(!operations(doc).some(({ path }) => path.startsWith('/plugin-io/plugins/')), 'the alias is not in the document');
    // /plugin-io/api/{plugin}/… serves the routes plugins declare, each plugin's in its own
    // document (/plugin-io/api/{plugin}/openapi.json: docs/plugins.md, "HTTP routes"): not in this one.
    const pluginRoutes = / \/plugin-io\/api\//;
    assert.deepEqual(
      [...new Set(served.filter((r) => pluginRoutes.test(r)))].sort(),
      ['delete', 'get', 'options', 'patch', 'post', 'put']
        .map((m) => `${m} /plugin-io/api/{}`) // and its wildcard below, which the tree prints as one
        .concat('get /plugin-io/api/{}/openapi.json')
        .sort(),
      'every method a plugin route may take, and the plugin documents',
    );
    assert.ok(!operations(doc).some(({ path }) => path.startsWith('/plugin-io/api/')), 'plugin routes are not in the document');
    assert.deepEqual([...new Set(served.filter((r) => !alias.test(r) && !pluginRoutes.test(r)))].sort(), [...new Set(documented)].sort());
    // Every route but the token endpoint declares that it takes credentials.
    for (const { method, path, op } of operations(doc)) {
      if (path === '/auth/token/') continue;
      assert.ok(Array.isArray(op.security) && op.security.length > 0, `${method.toUpperCase()} ${path} declares its security`);
    }
  });

  it('has component schemas for the resources', async () => {
    doc ??= await (await fetch(`${instance.url}/openapi.json`)).json();
    const schemas = doc.components?.schemas ?? {};
    for (const name of ['Command', 'Problem', 'Fields', 'AutocompleteOption', 'Patient', 'Note', 'CommandPage', 'NotePage']) {
      assert.ok(schemas[name], `components.schemas.${name}`);
    }
    assert.deepEqual(
      [...schemas.Command.required].sort(),
      [
        'uuid',
        'state',
        'created_at',
        'updated_at',
        'schema_key',
        'patient_key',
        'note_key',
        'originated_by',
        'edited_by',
        'committed_by',
        'entered_in_error_by',
        'data',
      ].sort(),
    );
    assert.deepEqual([...schemas.Problem.required].sort(), ['code', 'detail', 'status', 'title', 'type']);
  });

  it('uses the Problem schema for every documented 4xx answer', async () => {
    doc ??= await (await fetch(`${instance.url}/openapi.json`)).json();
    const offenders: string[] = [];
    let checked = 0;
    for (const { method, path, op } of operations(doc)) {
      for (const [code, response] of Object.entries(op.responses ?? {})) {
        if (!/^4(\d\d|XX)$/i.test(code)) continue;
        checked++;
        const refs = responseRefs(doc, response);
        if (refs.length === 0 || refs.some((r) => r !== PROBLEM_REF)) offenders.push(`${method.toUpperCase()} ${path} ${code}`);
      }
    }
    assert.ok(checked > 0, 'some 4xx answers are documented');
    assert.deepEqual(offenders, []);
  });

  it('documents the database faults (503, and 507 for writes) of every operation that uses the database', async () => {
    doc ??= await (await fetch(`${instance.url}/openapi.json`)).json();
    const missing: string[] = [];
    let checked = 0;
    for (const { method, path, op } of operations(doc)) {
      if (path === '/healthz') {
        assert.equal(op.responses?.['503'], undefined, 'liveness never touches the database');
        continue;
      }
      checked++;
      const codes = method === 'get' || method === 'head' ? ['503'] : ['503', '507'];
      for (const code of codes) {
        const response = op.responses?.[code];
        if (response === undefined || responseRefs(doc, response).some((r) => r !== PROBLEM_REF)) missing.push(`${method.toUpperCase()} ${path} ${code}`);
      }
    }
    assert.ok(checked > 30, `only ${checked} operations checked`);
    assert.deepEqual(missing, []);
  });

  it('serves the API reference at /docs without credentials', async () => {
    const res = await getFollowing(`${instance.url}/docs`);
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /text\/html/);
    assert.match(await res.text(), /<html/i);
  });

  it('serves /docs/json without credentials', async () => {
    const res = await getFollowing(`${instance.url}/docs/json`);
    assert.equal(res.status, 200);
    const json = await res.json();
    assert.ok(String(json.openapi).startsWith('3.1'));
    assert.ok(json.paths['/core/api/v1/commands/']);
  });
});
