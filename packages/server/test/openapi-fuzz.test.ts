// No request makes the server answer 5xx (docs/errors.md: bad input is a 4xx problem). Every
// operation of /openapi.json, on both engines, gets schema-driven requests built with fast-check:
// bodies generated from the operation's schema with one value (at any depth) made hostile
// (wrong type, null, huge, deeply nested, control characters, unknown or missing fields), sent
// under the right, a wrong or no content type, or as a body that does not match its content type;
// query parameters and headers from their schemas or hostile; path parameters real (so requests
// reach the handlers) or odd. Plugin and admin routes are called with the API key, clinical ones
// with a bearer token, and now and then with no or bad credentials. Set CHARTA_FC_SEED to replay,
// CHARTA_FUZZ_RUNS to change the number of requests per operation, CHARTA_FUZZ_TRACE to follow.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import zlib from 'node:zlib';
import fc from 'fast-check';
import { ENGINES, startInstance, TEST_API_KEY, type Instance } from './support/harness.ts';
import { installPlugin, ROUTES_OF_EVERY_AUTH, untilRunning } from './support/plugins.ts';

/** Requests per operation and engine: enough to cover every mutation kind, a few seconds per engine in all. */
const RUNS = Number(process.env.CHARTA_FUZZ_RUNS ?? 25);
const SEED = process.env.CHARTA_FC_SEED === undefined ? undefined : Number(process.env.CHARTA_FC_SEED);

type Schema = Record<string, any>;

interface Operation {
  method: string;
  path: string;
  op: Schema;
}

interface Built {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: Buffer;
  label: string;
}

const deep = (levels: number): unknown => {
  let v: unknown = 'bottom';
  for (let i = 0; i < levels; i++) v = i % 2 ? [v] : { a: v };
  return v;
};

const ODD_STRINGS = [
  '',
  ' ',
  '\u0000',
  'a\u0000b',
  '\u0007\u001b[31m',
  '\r\n',
  '\ud800',
  '\u202e',
  '\ufeff',
  '💥',
  '%00',
  '%ZZ',
  '../..',
  "'; DROP TABLE commands; --",
  '{}',
  '[]',
  'null',
  'true',
  '-1',
  '1e999',
  '9007199254740993',
  'NaN',
  '0x10',
  '2026-02-30T25:61:61Z',
  '__proto__',
  'x'.repeat(5000),
];

/** A value that the schema at hand would not expect. */
const hostile: fc.Arbitrary<unknown> = fc.oneof(
  fc.constant(null),
  fc.boolean(),
  fc.integer(),
  fc.double(),
  fc.constantFrom(1e308, -1e308, Number.MAX_SAFE_INTEGER + 2, -0, 0.5, -1),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.constantFrom(...ODD_STRINGS),
  fc.constant('y'.repeat(200_000)),
  fc.constant(deep(70)),
  fc.constant(deep(25)),
  fc.array(fc.anything({ maxDepth: 2 }), { maxLength: 5 }),
  fc.object({ maxDepth: 2 }),
  fc.constant(Array.from({ length: 2000 }, (_, i) => i)),
);

/** Header values fetch can send: printable ASCII. */
const headerText = fc.oneof(
  fc.string({ unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)), maxLength: 60 }),
  fc.constantFrom('*', 'W/"x"', '"abc"', '""', 'x'.repeat(2000), '%00', 'Bearer', 'Bearer ', 'Basic Zm9vOmJhcg=='),
);

/** Percent-encodes the UTF-8 of `text` (a lone surrogate becomes U+FFFD, as a client would send it). */
const pct = (text: string) =>
  [...Buffer.from(text, 'utf8')]
    .map((b) => (/[A-Za-z0-9_.~-]/.test(String.fromCharCode(b)) ? String.fromCharCode(b) : `%${b.toString(16).toUpperCase().padStart(2, '0')}`))
    .join('');

/** Path parameter values: mostly encoded text, some literal oddities that stay in the path as written. */
const oddPathParam = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 30 }).map(pct),
  fc.constantFrom('%00', '%ZZ', '%', '..', '%2e%2e', '%2F', 'a%2Fb', '%E0%A4%A', 'x'.repeat(300), '00000000-0000-0000-0000-000000000000', 'UPPER', '-', '_'),
);

class SchemaArbitraries {
  constructor(private readonly components: Record<string, Schema>) {}

  resolve(schema: Schema | undefined): Schema {
    let s = schema ?? {};
    for (let i = 0; i < 10 && typeof s.$ref === 'string'; i++) s = this.components[s.$ref.split('/').pop()!] ?? {};
    return s;
  }

  /** Values the schema describes (patterns and formats aside), bounded in size and depth. */
  valid(schema: Schema | undefined, depth = 0): fc.Arbitrary<unknown> {
    const s = this.resolve(schema);
    if (s.const !== undefined) return fc.constant(s.const);
    if (Array.isArray(s.enum) && s.enum.length > 0) return fc.constantFrom(...s.enum);
    const alternatives = s.anyOf ?? s.oneOf;
    if (Array.isArray(alternatives) && alternatives.length > 0) return fc.oneof(...alternatives.map((a: Schema) => this.valid(a, depth + 1)));
    const type = Array.isArray(s.type) ? s.type[0] : s.type;
    switch (type) {
      case 'string':
        return fc.string({ minLength: Math.min(s.minLength ?? 0, 40), maxLength: Math.min(s.maxLength ?? 24, 40) });
      case 'integer':
        return fc.integer({ min: s.minimum ?? -5, max: s.maximum ?? 2000 });
      case 'number':
        return fc.double({ min: s.minimum ?? -1e6, max: s.maximum ?? 1e6, noNaN: true });
      case 'boolean':
        return fc.boolean();
      case 'null':
        return fc.constant(null);
      case 'array':
        return depth > 4 ? fc.constant([]) : fc.array(this.valid(s.items, depth + 1), { maxLength: 3 });
      case 'object': {
        if (depth > 4) return fc.constant({});
        const properties: Record<string, Schema> = s.properties ?? {};
        const required: string[] = (s.required ?? []).filter((k: string) => k in properties);
        if (Object.keys(properties).length === 0) return fc.dictionary(fc.string({ maxLength: 8 }), fc.anything({ maxDepth: 1 }), { maxKeys: 3 });
        return fc.record(Object.fromEntries(Object.entries(properties).map(([k, v]) => [k, this.valid(v, depth + 1)])), { requiredKeys: required });
      }
      default:
        return fc.anything({ maxDepth: 2 });
    }
  }

  /** A valid value with one place in it (at any depth) replaced, removed, or given an unknown field. */
  mutated(schema: Schema | undefined): fc.Arbitrary<unknown> {
    const names = Object.keys(this.resolve(schema).properties ?? {});
    return fc.oneof(
      { weight: 1, arbitrary: this.valid(schema) },
      {
        weight: 4,
        arbitrary: fc
          .tuple(this.valid(schema), fc.array(fc.nat(), { minLength: 1, maxLength: 4 }), hostile, fc.constantFrom('replace', 'delete', 'add'))
          .map(([value, path, bad, how]) => mutateAt(value, path, bad, how)),
      },
      {
        weight: 1,
        arbitrary: fc
          .tuple(this.valid(schema), fc.constantFrom(...(names.length > 0 ? names : ['x']), 'unknown_field', '__proto__', 'constructor'), hostile)
          .map(([value, key, bad]) => (isObject(value) ? { ...value, [key]: bad } : value)),
      },
      { weight: 1, arbitrary: hostile },
    );
  }
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Walks into `value` along `path` (each step picks a child by index) and changes what it reaches. */
function mutateAt(value: unknown, path: number[], bad: unknown, how: 'replace' | 'delete' | 'add'): unknown {
  const [step, ...rest] = path;
  if (step === undefined || typeof value !== 'object' || value === null) return how === 'replace' ? bad : value;
  const copy: Record<string, unknown> | unknown[] = Array.isArray(value) ? [...value] : { ...(value as Record<string, unknown>) };
  const keys = Object.keys(copy);
  if (how === 'add' && (rest.length === 0 || keys.length === 0)) {
    if (Array.isArray(copy)) copy.push(bad);
    else copy[`extra_${step}`] = bad;
    return copy;
  }
  if (keys.length === 0) return how === 'replace' ? bad : copy;
  const key = keys[step % keys.length]!;
  if (how === 'delete' && rest.length === 0) {
    if (Array.isArray(copy)) copy.splice(Number(key), 1);
    else delete copy[key];
    return copy;
  }
  (copy as Record<string, unknown>)[key] = mutateAt((copy as Record<string, unknown>)[key], rest, bad, how);
  return copy;
}

const asText = (v: unknown) => (typeof v === 'string' ? v : v === undefined ? '' : JSON.stringify(v));

/** Top-level fields as form text (nested values as JSON), repeated keys for arrays. */
function toForm(value: unknown): string {
  if (!isObject(value)) return pct(asText(value));
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(value)) {
    if (Array.isArray(v)) for (const item of v.slice(0, 5)) params.append(k, asText(item));
    else params.append(k, asText(v));
  }
  return params.toString();
}

const BOUNDARY = 'fuzzBoundary7MA4YWxk';

/** A multipart body: fields from the value, maybe a file part with a chosen name and content. */
function toMultipart(value: unknown, file: { name: string; field: string; bytes: Buffer } | undefined): Buffer {
  const parts: Buffer[] = [];
  if (isObject(value)) {
    for (const [k, v] of Object.entries(value).slice(0, 6)) {
      parts.push(Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="${k.replace(/["\r\n]/g, '_')}"\r\n\r\n${asText(v).slice(0, 2000)}\r\n`));
    }
  }
  if (file) {
    parts.push(
      Buffer.from(
        `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${file.field}"; filename="${file.name.replace(/["\r\n]/g, '_')}"\r\nContent-Type: application/octet-stream\r\n\r\n`,
      ),
      file.bytes,
      Buffer.from('\r\n'),
    );
  }
  parts.push(Buffer.from(`--${BOUNDARY}--\r\n`));
  return Buffer.concat(parts);
}

/** Package-like bytes: garbage, or garbage behind a zip or gzip signature, or a gzip of garbage. */
const fileBytes = fc.oneof(
  fc.uint8Array({ maxLength: 300 }).map((b) => Buffer.from(b)),
  fc.uint8Array({ maxLength: 300 }).map((b) => Buffer.concat([Buffer.from([0x50, 0x4b, 0x03, 0x04]), Buffer.from(b)])),
  fc.uint8Array({ maxLength: 300 }).map((b) => Buffer.concat([Buffer.from([0x1f, 0x8b]), Buffer.from(b)])),
  fc.uint8Array({ maxLength: 2000 }).map((b) => zlib.gzipSync(Buffer.from(b))),
  fc.constant(Buffer.alloc(0)),
);

const ENCODINGS = [
  'json',
  'json',
  'form',
  'json-body-as-form',
  'form-body-as-json',
  'no-content-type',
  'text/plain',
  'application/xml',
  'json-charset',
  'json-invalid',
  'json-proto',
  'multipart',
  'multipart-no-boundary',
  'multipart-garbage',
  'odd-content-type',
  'none',
] as const;

function encode(
  encoding: (typeof ENCODINGS)[number],
  value: unknown,
  extra: { file?: { name: string; field: string; bytes: Buffer }; ct: string; garbage: Buffer },
) {
  const json = value === undefined ? '' : JSON.stringify(value);
  switch (encoding) {
    case 'json':
      return { ct: 'application/json', body: Buffer.from(json) };
    case 'form':
      return { ct: 'application/x-www-form-urlencoded', body: Buffer.from(toForm(value)) };
    case 'json-body-as-form':
      return { ct: 'application/x-www-form-urlencoded', body: Buffer.from(json) };
    case 'form-body-as-json':
      return { ct: 'application/json', body: Buffer.from(toForm(value)) };
    case 'no-content-type':
      return { ct: undefined, body: Buffer.from(json) };
    case 'text/plain':
    case 'application/xml':
      return { ct: encoding, body: Buffer.from(json) };
    case 'json-charset':
      return { ct: 'application/json; charset=iso-8859-1', body: Buffer.from(json, 'latin1') };
    case 'json-invalid':
      return { ct: 'application/json', body: Buffer.concat([Buffer.from(json.slice(0, Math.max(1, json.length - 1))), extra.garbage]) };
    case 'json-proto':
      return { ct: 'application/json', body: Buffer.from(`{"__proto__": ${json || 'null'}, "constructor": {"prototype": ${json || '{}'}}}`) };
    case 'multipart':
      return { ct: `multipart/form-data; boundary=${BOUNDARY}`, body: toMultipart(value, extra.file) };
    case 'multipart-no-boundary':
      return { ct: 'multipart/form-data', body: extra.garbage.length % 2 ? toMultipart(value, extra.file) : Buffer.alloc(0) };
    case 'multipart-garbage':
      return { ct: `multipart/form-data; boundary=${BOUNDARY}`, body: Buffer.concat([Buffer.from(`--${BOUNDARY}\r\n`), extra.garbage]) };
    case 'odd-content-type':
      return { ct: extra.ct, body: Buffer.from(json) };
    case 'none':
      return { ct: undefined, body: undefined };
  }
}

interface Fixtures {
  patientKey: string;
  noteKey: string;
  staged: string;
  committed: string;
  labPartner: string;
}

const API_KEY_ROUTES = /^\/core\/api\/v1\/(plugins|admin|logging)\b/;

function requestArbitrary(instance: Instance, schemas: SchemaArbitraries, { method, path, op }: Operation, fixtures: Fixtures): fc.Arbitrary<Built> {
  const parameters: Schema[] = (op.parameters ?? []).map((p: Schema) => schemas.resolve(p));
  const pathParams = parameters.filter((p) => p.in === 'path');
  const queryParams = parameters.filter((p) => p.in === 'query');
  const headerParams = parameters.filter((p) => p.in === 'header');
  const content: Record<string, Schema> = op.requestBody?.content ?? {};
  const bodySchema = content['application/json']?.schema ?? content['application/x-www-form-urlencoded']?.schema ?? { type: 'object' };

  const realValue = (name: string): string[] => {
    if (name === 'uuid') return [fixtures.staged, fixtures.committed, fixtures.noteKey];
    if (name === 'key') return [fixtures.patientKey];
    if (name === 'id') return [fixtures.labPartner];
    if (name === 'name') return ['vitals-alert', 'vitals_alert'];
    if (name === 'field') return ['narrative', 'condition', 'lab_partner', 'tests', 'prescribe', 'nope'];
    return ['x'];
  };
  const pathArb = fc.record(
    Object.fromEntries(
      pathParams.map((p) => [p.name, fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...realValue(p.name)) }, { weight: 1, arbitrary: oddPathParam })]),
    ),
  );
  const queryArb = fc.record(
    Object.fromEntries(
      queryParams.map((p) => [
        p.name,
        fc.oneof(
          fc.constant(undefined),
          schemas.valid(p.schema).map(asText),
          hostile.map(asText),
          fc.array(fc.string({ maxLength: 10 }), { minLength: 2, maxLength: 3 }),
        ),
      ]),
    ),
    { requiredKeys: [] },
  );
  const headerArb = fc.record(Object.fromEntries(headerParams.map((p) => [p.name, headerText])), { requiredKeys: [] });
  const auth = API_KEY_ROUTES.test(path) ? TEST_API_KEY : `Bearer ${instance.token}`;
  const authArb = fc.oneof(
    { weight: 8, arbitrary: fc.constant<string | undefined>(path === '/auth/token/' ? undefined : auth) },
    { weight: 1, arbitrary: fc.constant<string | undefined>(undefined) },
    { weight: 1, arbitrary: headerText.map((t): string | undefined => t) },
  );
  const fileArb = fc.option(
    fc.record({
      name: fc.oneof(
        fc.constantFrom('plugin.whl', 'plugin.tar.gz', 'plugin.tgz', 'plugin.zip', '', '../../etc/passwd.whl', 'ü.whl'),
        fc.string({ maxLength: 20 }),
      ),
      field: fc.constantFrom('package', 'package', 'other'),
      bytes: fileBytes,
    }),
    { nil: undefined },
  );

  return fc
    .record({
      params: pathArb,
      query: queryArb,
      unknownQuery: fc.option(fc.tuple(fc.constantFrom('unknown', 'limit', '__proto__', 'a[b]'), fc.string({ maxLength: 10 })), { nil: undefined }),
      headers: headerArb,
      authorization: authArb,
      body: schemas.mutated(bodySchema),
      encoding: fc.constantFrom(...ENCODINGS),
      file: fileArb,
      ct: fc.oneof(
        fc.constantFrom(
          'application/',
          ';',
          'application/json;',
          'application/json; charset',
          '*/*',
          'multipart/mixed',
          'application/json, text/plain',
          'APPLICATION/JSON',
        ),
        headerText,
      ),
      garbage: fc.uint8Array({ maxLength: 200 }).map((b) => Buffer.from(b)),
    })
    .map(({ params, query, unknownQuery, headers, authorization, body, encoding, file, ct, garbage }) => {
      const url = path.replace(/\{([^}]+)\}/g, (_, name: string) => String((params as Record<string, string>)[name] ?? 'x'));
      const search = new URLSearchParams();
      for (const [k, v] of Object.entries(query)) {
        if (Array.isArray(v)) for (const item of v) search.append(k, item);
        else if (v !== undefined) search.append(k, v as string);
      }
      if (unknownQuery) search.append(...unknownQuery);
      const qs = search.toString();
      const sent: Record<string, string> = {};
      for (const [k, v] of Object.entries(headers)) if (v !== undefined) sent[k] = v as string;
      if (authorization !== undefined) sent.authorization = authorization;
      // GET and DELETE take no body in this API; send one now and then all the same.
      const withBody = !['GET', 'HEAD'].includes(method) || encoding === 'json-invalid';
      const encoded = withBody ? encode(encoding, body, { file, ct, garbage }) : { ct: undefined, body: undefined };
      if (encoded.ct !== undefined) sent['content-type'] = encoded.ct;
      return {
        method,
        url: `${instance.url}${url}${qs ? `?${qs}` : ''}`,
        headers: sent,
        body: method === 'GET' || method === 'HEAD' ? undefined : encoded.body,
        label: `${encoding}`,
      };
    });
}

async function send(built: Built): Promise<{ status: number; text: string }> {
  const res = await fetch(built.url, { method: built.method, headers: built.headers, body: built.body === undefined ? undefined : new Uint8Array(built.body) });
  return { status: res.status, text: await res.text() };
}

for (const engine of ENGINES) {
  describe(`every operation of /openapi.json under fuzzed input (${engine})`, () => {
    let api: Instance;
    let operations: Operation[] = [];
    let schemas: SchemaArbitraries;
    let fixtures: Fixtures;

    before(async () => {
      api = await startInstance(engine);
      const spec = (await api.call('GET', '/openapi.json')).json;
      schemas = new SchemaArbitraries(spec.components?.schemas ?? {});
      for (const [path, item] of Object.entries<Record<string, Schema>>(spec.paths)) {
        for (const [method, op] of Object.entries(item)) {
          if (['get', 'post', 'put', 'patch', 'delete'].includes(method)) operations.push({ method: method.toUpperCase(), path, op });
        }
      }
      // The routes a plugin serves, from its own OpenAPI document (docs/plugins.md, "HTTP routes").
      await installPlugin(api.url, 'fuzzed', [ROUTES_OF_EVERY_AUTH], { secrets: ['KEY'] });
      await untilRunning(api.url, 'fuzzed');
      const served = (await api.call('GET', '/plugin-io/api/fuzzed/openapi.json', { token: null })).json;
      const base = new URL(served.servers[0].url).pathname;
      for (const [path, item] of Object.entries<Record<string, Schema>>(served.paths)) {
        for (const [method, op] of Object.entries(item)) operations.push({ method: method.toUpperCase(), path: base + path, op });
      }
      const { patientKey, noteKey } = await api.note();
      const staged = await api.call('POST', '/core/api/v1/commands/', { body: { schemaKey: 'plan', noteKey, values: { narrative: 'x' } } });
      const committed = await api.call('POST', '/core/api/v1/commands/', { body: { schemaKey: 'plan', noteKey, values: { narrative: 'y' } } });
      assert.equal((await api.call('POST', `/core/api/v1/commands/${committed.json.uuid}/commit/`)).status, 200);
      const partner = await api.call('POST', '/core/api/v1/admin/lab-partners/', { authorization: TEST_API_KEY, body: { name: 'Fuzz Lab' } });
      assert.equal(partner.status, 201, partner.text);
      fixtures = { patientKey, noteKey, staged: staged.json.uuid, committed: committed.json.uuid, labPartner: partner.json.id };
    });
    after(async () => api?.stop());

    it('finds every operation', () => {
      assert.ok(operations.length >= 40, `${operations.length} operations`);
      assert.equal(operations.filter((o) => o.path.startsWith('/plugin-io/api/fuzzed/')).length, 4, "the plugin's four routes");
      operations = operations.sort((a, b) => `${a.path} ${a.method}`.localeCompare(`${b.path} ${b.method}`));
    });

    it('answers every fuzzed request below 500', async () => {
      for (const operation of operations) {
        if (process.env.CHARTA_FUZZ_TRACE) console.error(`fuzz: ${operation.method} ${operation.path}`); // which operation a hang or a long shrink is in
        await fc.assert(
          fc.asyncProperty(requestArbitrary(api, schemas, operation, fixtures), async (built) => {
            const r = await send(built);
            assert.ok(r.status < 500, `${built.method} ${built.url} (${built.label}, ${JSON.stringify(built.headers)}): ${r.status} ${r.text.slice(0, 300)}`);
          }),
          { numRuns: RUNS, seed: SEED },
        );
      }
    });
  });
}
