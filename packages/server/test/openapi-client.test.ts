// /openapi.json tells a generated client the whole truth (docs/api.md, "The OpenAPI document"):
// a client generated from it as an outside team would (openapi-typescript, openapi-fetch) drives
// every operation in a session that type-checks without a cast (openapi-client/session.ts), and
// every response of that session (status, declared headers, body) is validated with Ajv against
// the document. Every operation has an operationId and is driven at least once.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import ts from 'typescript';
import openapiTS, { astToString } from 'openapi-typescript';
import createClient, { type Middleware } from 'openapi-fetch';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { startInstance, TEST_API_KEY, TEST_CLIENT_ID, TEST_CLIENT_SECRET, type Instance } from './support/harness.ts';
import { pluginPackage } from './support/plugins.ts';
import { upsertPatientMetadata } from '../src/storage/patient-metadata-repository.ts';

const require = createRequire(import.meta.url);
const SESSION = path.join(import.meta.dirname, 'openapi-client', 'session.ts');
const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace'];
const DOC_ID = 'https://charta.invalid/openapi.json';

type Json = Record<string, any>;

const pointer = (...parts: string[]) => parts.map((p) => p.replaceAll('~', '~0').replaceAll('/', '~1')).join('/');

/** Checks one response against the document; answers what is wrong, if anything. */
class ResponseChecker {
  readonly ajv = new Ajv2020({ strict: false, allErrors: true, validateSchema: false });
  readonly driven = new Set<string>();
  readonly problems: string[] = [];
  checked = 0;

  constructor(private readonly doc: Json) {
    addFormats.default(this.ajv);
    this.ajv.addFormat('binary', true);
    this.ajv.addSchema(doc, DOC_ID);
  }

  private resolve(object: Json): Json {
    let o = object;
    while (typeof o.$ref === 'string')
      o = o.$ref
        .slice(2)
        .split('/')
        .reduce((at: Json, key: string) => at[key.replaceAll('~1', '/').replaceAll('~0', '~')], this.doc);
    return o;
  }

  private validate(schemaPointer: string, value: unknown): string | undefined {
    const validate = this.ajv.getSchema(`${DOC_ID}#/${schemaPointer}`) ?? this.ajv.compile({ $ref: `${DOC_ID}#/${schemaPointer}` });
    return validate(value) ? undefined : this.ajv.errorsText(validate.errors);
  }

  async check(method: string, schemaPath: string, response: Response): Promise<void> {
    const m = method.toLowerCase();
    const where = `${method} ${schemaPath} ${response.status}`;
    const fail = (what: string): void => {
      this.problems.push(`${where}: ${what}`);
    };
    this.driven.add(`${m} ${schemaPath}`);
    this.checked++;
    const op = this.doc.paths?.[schemaPath]?.[m];
    if (op === undefined) return fail('not in the document');
    const status = String(response.status);
    const declared = op.responses?.[status] ?? op.responses?.[`${status[0]}XX`] ?? op.responses?.default;
    if (declared === undefined) return fail(`status not declared (declared: ${Object.keys(op.responses ?? {}).join(', ')})`);
    const r = this.resolve(declared);
    const statusKey = op.responses[status] !== undefined ? status : op.responses[`${status[0]}XX`] !== undefined ? `${status[0]}XX` : 'default';
    // Declared headers: the required ones present, every one present valid.
    for (const [name, h] of Object.entries<Json>(r.headers ?? {})) {
      const headerObject = this.resolve(h);
      const value = response.headers.get(name);
      if (value === null) {
        if (headerObject.required === true) fail(`required header ${name} missing`);
        continue;
      }
      const schema = headerObject.schema ?? {};
      const typed = schema.type === 'integer' && /^\d+$/.test(value) ? Number(value) : value;
      const v = this.ajv.compile(schema);
      if (!v(typed)) fail(`header ${name}: ${JSON.stringify(value)} ${this.ajv.errorsText(v.errors)}`);
    }
    // The body: a declared media type, valid against its schema.
    const text = await response.clone().text();
    const mediaType = (response.headers.get('content-type') ?? '').split(';', 1)[0]!.trim();
    const content: Json = r.content ?? {};
    if (text === '') {
      const schemas = Object.values<Json>(content).map((c) => c.schema);
      if (schemas.length > 0 && !schemas.some((s) => s?.type === 'null')) fail('empty body, but a body is declared');
      return;
    }
    if (content[mediaType] === undefined) return fail(`media type ${mediaType} not declared (declared: ${Object.keys(content).join(', ')})`);
    if (content[mediaType].schema?.format === 'binary') return;
    // A text body (GET /metrics: the Prometheus format) is checked as the string it is.
    if (mediaType.startsWith('text/') && content[mediaType].schema?.type === 'string') {
      const error = this.validate(pointer('paths', schemaPath, m, 'responses', statusKey, 'content', mediaType, 'schema'), text);
      if (error !== undefined) fail(`body ${text.slice(0, 300)}: ${error}`);
      return;
    }
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      return fail(`body is not JSON: ${text.slice(0, 100)}`);
    }
    const error = this.validate(pointer('paths', schemaPath, m, 'responses', statusKey, 'content', mediaType, 'schema'), body);
    if (error !== undefined) fail(`body ${text.slice(0, 300)}: ${error}`);
  }
}

describe('a client generated from /openapi.json', () => {
  let instance: Instance;
  let doc: Json;
  let dir: string;

  before(async () => {
    instance = await startInstance('sqlite');
    doc = (await (await fetch(`${instance.url}/openapi.json`)).json()) as Json;
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'charta-openapi-client-'));
  });
  after(async () => {
    await instance?.stop();
    if (dir !== undefined) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('names every operation, and declares what a client needs to call it', () => {
    const ids = new Set<string>();
    for (const [p, item] of Object.entries<Json>(doc.paths)) {
      for (const [method, op] of Object.entries<Json>(item)) {
        if (!METHODS.includes(method)) continue;
        assert.match(op.operationId ?? '', /^[a-z][A-Za-z]+$/, `${method} ${p} has an operationId`);
        assert.ok(!ids.has(op.operationId), `${op.operationId} is unique`);
        ids.add(op.operationId);
        assert.ok(
          Object.keys(op.responses ?? {}).some((s) => /^(1|2)\d\d$/.test(s)),
          `${method} ${p} declares its success`,
        );
        assert.ok(Array.isArray(op.security), `${method} ${p} declares its security`);
      }
    }
    assert.deepEqual(doc.paths['/auth/token/'].post.security, []);
    assert.equal(doc.components.securitySchemes.bearer.type, 'oauth2');
    assert.equal(doc.components.securitySchemes.bearer.flows.clientCredentials.tokenUrl, '/auth/token/');
    assert.ok(Array.isArray(doc.servers) && doc.servers.length > 0);
    for (const p of ['/core/api/v1/plugins/', '/core/api/v1/plugins/extract-metadata/']) {
      assert.ok(doc.paths[p].post.requestBody.content['multipart/form-data'], `${p} declares its multipart body`);
    }
  });

  it('type-checks a session without casts, and no response of it breaks the document', async () => {
    // Generate the types as an outside team would: openapi-typescript, with files as Blob.
    const ast = await openapiTS(doc as never, {
      transform(schema) {
        if (schema.format === 'binary') return ts.factory.createTypeReferenceNode('Blob');
        return undefined;
      },
    });
    fs.writeFileSync(path.join(dir, 'schema.ts'), astToString(ast));
    const source = fs.readFileSync(SESSION, 'utf8');
    const code = source.replace(/^\s*\/\/.*$/gm, '');
    assert.doesNotMatch(code, /\bas (?!const\b)[A-Za-z{[(]|<any>|: any\b|@ts-(ignore|expect-error|nocheck)|!\./, 'the session needs no cast');
    fs.writeFileSync(path.join(dir, 'session.ts'), source);
    fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ type: 'module', private: true }));
    const fetchTypes = path.join(path.dirname(require.resolve('openapi-fetch/package.json')), 'dist', 'index.d.mts');
    fs.writeFileSync(
      path.join(dir, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'ES2022',
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          strict: true,
          noEmit: true,
          allowImportingTsExtensions: true,
          skipLibCheck: true,
          verbatimModuleSyntax: true,
          lib: ['ES2023', 'DOM'],
          types: ['node'],
          typeRoots: [path.join(path.dirname(require.resolve('@types/node/package.json')), '..')],
          paths: { 'openapi-fetch': [fetchTypes] },
        },
        files: ['session.ts'],
      }),
    );
    const tsc = require.resolve('typescript/bin/tsc');
    try {
      execFileSync(process.execPath, [tsc, '-p', path.join(dir, 'tsconfig.json')], { encoding: 'utf8', stdio: 'pipe' });
    } catch (err) {
      assert.fail(`the session does not type-check against the generated client:\n${(err as { stdout?: string }).stdout ?? String(err)}`);
    }

    // Run it, every response checked against the document.
    const checker = new ResponseChecker(doc);
    const validating: Middleware = {
      async onResponse({ request, schemaPath, response }) {
        await checker.check(request.method, schemaPath, response);
      },
    };
    const client = (authorization?: string) => {
      const c = createClient<any>({ baseUrl: instance.url, headers: authorization === undefined ? {} : { authorization } });
      c.use(validating);
      return c;
    };
    const bytes = await pluginPackage('openapi-probe', [{ className: 'Probe', events: ['PLAN_COMMAND__POST_COMMIT'], compute: 'return [];' }], {
      secrets: ['TOKEN'],
    });
    const { session } = (await import(path.join(dir, 'session.ts'))) as { session: (input: unknown) => Promise<void> };
    await session({
      clinical: client(`Bearer ${instance.token}`),
      tool: client(TEST_API_KEY),
      anonymous: client(),
      clientId: TEST_CLIENT_ID,
      clientSecret: TEST_CLIENT_SECRET,
      pluginPackage: new Blob([new Uint8Array(bytes)]),
      pluginName: 'openapi-probe',
    });
    // A page with a row in it, which the session cannot write (only a plugin's effect does).
    const { patientKey } = await instance.note();
    await upsertPatientMetadata(instance.storage.db, {
      patient_key: patientKey,
      namespace: 'openapi-probe',
      key: 'follow-up.days',
      value: '14',
      updated_at: 1_700_000_000_000_000,
      updated_by: 'plugin:openapi-probe',
    });
    const page = await client(`Bearer ${instance.token}`).GET('/core/api/v1/patients/{key}/metadata/', { params: { path: { key: patientKey } } });
    assert.equal(page.data?.results?.[0]?.value, '14');
    assert.deepEqual(checker.problems, []);
    const operations = Object.entries<Json>(doc.paths).flatMap(([p, item]) =>
      Object.keys(item)
        .filter((m) => METHODS.includes(m))
        .map((m) => `${m} ${p}`),
    );
    assert.deepEqual(
      operations.filter((o) => !checker.driven.has(o)),
      [],
      'every operation is driven',
    );
    assert.ok(checker.checked >= operations.length);
  });
});
