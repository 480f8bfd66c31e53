// Plugins that serve HTTP routes (docs/plugins.md, "HTTP routes"), on each engine, with real
// plugins installed through the plugin API and run in the sandbox: the routes on the plugin
// object and in its OpenAPI document; each authentication (staff, api_key, secret with the
// signature binding, public); what the handler is given (params, query, safe headers, the body
// parsed and raw) and what it may answer; effects applied before the response; and every fault a
// clear problem (no route, wrong method, body too large or of the wrong type, a handler that
// throws or answers what cannot be sent, a disabled plugin, the rate limit), with nothing written.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import net from 'node:net';
import { ENGINES, startInstance, TEST_API_KEY, toReply, type Instance } from './support/harness.ts';
import { installPlugin, pluginPackage, setEnabled, untilRunning, type TestHandler } from './support/plugins.ts';
import { until } from './support/until.ts';
import type { LogEntry } from '../src/logs/bus.ts';

const R = '/plugin-io/api';
const respond = (status: string, body: string, headers = '{}') =>
  `{ type: 'HTTP_RESPONSE', payload: { status: ${status}, headers: ${headers}, body: ${body} } }`;

/** Echoes what it was given; `?status=`, `?header=name:value`, `?throw=1`, `?big=1` and `?effect=<note>` make it answer otherwise. */
const ECHO: TestHandler = {
  className: 'Echo',
  events: ['SIMPLE_API_REQUEST'],
  statics: {
    ROUTES: [
      { method: 'GET', path: '/echo/:id', public: true, summary: 'Echo the request' },
      { method: 'POST', path: '/echo/:id', public: true },
      { method: 'GET', path: '/echo/fixed', public: true },
      { method: 'GET', path: '/me', auth: 'staff' },
      { method: 'GET', path: '/key', auth: 'api_key' },
    ],
  },
  compute: `    const r = this.event.context.request;
    const q = r.query;
    if (q.throw) throw new Error('boom in the handler');
    const headers = q.header ? { [q.header.split(':')[0]]: q.header.split(':')[1] } : {};
    const status = q.status ? Number(q.status) : 200;
    const body = q.big ? 'x'.repeat(1100000) : { method: r.method, path: r.path, route: r.route, params: r.params, query: r.query, headers: r.headers, body: r.body, raw_body: r.raw_body, staff_key: r.staff_key };
    const effects = q.effect ? [{ type: 'ORIGINATE_INSTRUCT_COMMAND', payload: { command: null, note: q.effect, data: { comment: 'from a route' }, line_number: -1, commit: false } }] : [];
    return [${respond('status', 'body', 'headers')}, ...effects];`,
};

/** A signed webhook: answers 401 unless x-signature is sha256=<HMAC of the raw body under WEBHOOK_KEY>; then originates an instruct in the note the body names. */
const WEBHOOK: TestHandler = {
  className: 'Webhook',
  events: ['SIMPLE_API_REQUEST'],
  async: true,
  statics: {
    ROUTES: [
      { method: 'POST', path: '/webhooks/lab-result', auth: 'secret', signature_header: 'X-Signature' },
      { method: 'POST', path: '/webhooks/device', auth: 'secret', signature_header: 'x-device-signature' },
    ],
  },
  compute: `    const check = await __charta_binding('signature', { scheme: 'hmac', secret: 'WEBHOOK_KEY', prefix: 'sha256=' });
    if (check.value !== true) return [${respond('401', "{ error: 'bad signature' }")}];
    const note = this.event.context.request.body.note;
    return [${respond('202', '{ accepted: true }')}, { type: 'ORIGINATE_INSTRUCT_COMMAND', payload: { command: null, note, data: { comment: 'lab result arrived' }, line_number: -1, commit: false } }];`,
};

/** Reads a patient (out of scope: a route has no patient) and counts its calls in the cache. */
const READER: TestHandler = {
  className: 'Reader',
  events: ['SIMPLE_API_REQUEST'],
  async: true,
  statics: { ROUTES: [{ method: 'GET', path: '/read/:key', auth: 'api_key' }] },
  compute: `    const count = ((await this.cache.get('count')) ?? 0) + 1;
    await this.cache.set('count', count);
    let read;
    try {
      read = { ok: await this.data.patients.get(this.event.context.request.params.key) };
    } catch (e) {
      read = { error: e.code };
    }
    return [${respond('200', '{ count, read }')}];`,
};

for (const engine of ENGINES) {
  describe(`plugin routes (${engine})`, () => {
    let api: Instance;
    const seen: LogEntry[] = [];
    const get = (path: string, headers: Record<string, string> = {}) => fetch(api.url + path, { headers }).then(toReply);
    const post = (path: string, body: string, headers: Record<string, string> = {}) =>
      fetch(api.url + path, { method: 'POST', body, headers: { 'content-type': 'application/json', ...headers } }).then(toReply);
    const instructs = async (noteKey: string) =>
      (await api.call('GET', `/core/api/v1/commands/?note_key=${noteKey}&schema_key=instruct`)).json.results as Array<{
        originated_by: string;
        data: Record<string, unknown>;
      }>;

    before(async () => {
      api = await startInstance(engine, { pluginRouteRateLimit: 1000, requestTimeoutMs: 1500 });
      api.app.logs.subscribe((entry) => seen.push(entry));
      const installed = await installPlugin(api.url, 'hooks', [ECHO, WEBHOOK, READER], { secrets: ['WEBHOOK_KEY'], data: { read: ['patients'] } }, [
        'effects:instance',
      ]);
      assert.deepEqual(
        installed.json.routes.map((r: any) => `${r.method} ${r.url} ${r.auth}${r.signature_header ? ` ${r.signature_header}` : ''}`),
        [
          'GET /plugin-io/api/hooks/echo/:id public',
          'POST /plugin-io/api/hooks/echo/:id public',
          'GET /plugin-io/api/hooks/echo/fixed public',
          'GET /plugin-io/api/hooks/me staff',
          'GET /plugin-io/api/hooks/key api_key',
          'POST /plugin-io/api/hooks/webhooks/lab-result secret x-signature',
          'POST /plugin-io/api/hooks/webhooks/device secret x-device-signature',
          'GET /plugin-io/api/hooks/read/:key api_key',
        ],
      );
      const secrets = await api.call('PATCH', '/core/api/v1/plugins/hooks/secrets/', {
        authorization: TEST_API_KEY,
        body: { WEBHOOK_KEY: 'k3y-for-the-lab-0123456789' },
      });
      assert.equal(secrets.status, 200, secrets.text);
      await untilRunning(api.url, 'hooks');
      await until('hooks serving', async () => (await get(`${R}/hooks/echo/1`)).status === 200);
    });
    after(async () => api?.stop());

    it('a public route gets the params, query, safe headers and the body, parsed and raw; never Authorization or cookies', async () => {
      const r = await post(`${R}/hooks/echo/a%20b?x=1&x=2&y=z`, '{"n": 1}', {
        cookie: 'session=secret',
        authorization: 'Bearer not-for-plugins',
        'x-trace': 't1',
        'user-agent': 'lab/1',
      });
      assert.equal(r.status, 200, r.text);
      assert.equal(r.json.method, 'POST');
      assert.equal(r.json.path, '/echo/a%20b');
      assert.deepEqual(r.json.route, { method: 'POST', path: '/echo/:id' });
      assert.deepEqual(r.json.params, { id: 'a b' });
      assert.deepEqual(r.json.query, { x: ['1', '2'], y: 'z' });
      assert.deepEqual(r.json.body, { n: 1 });
      assert.equal(r.json.raw_body, '{"n": 1}');
      assert.equal(r.json.headers['x-trace'], 't1');
      assert.equal(r.json.headers['user-agent'], 'lab/1');
      assert.equal(r.json.headers.authorization, undefined);
      assert.equal(r.json.headers.cookie, undefined);
      assert.equal(r.json.staff_key, null);
      const form = await post(`${R}/hooks/echo/f`, 'a=1&b=two', { 'content-type': 'application/x-www-form-urlencoded' });
      assert.deepEqual(form.json.body, { a: '1', b: 'two' });
      const text = await post(`${R}/hooks/echo/t`, 'plain words', { 'content-type': 'text/plain' });
      assert.equal(text.json.body, 'plain words');
    });

    it('a literal segment wins over a parameter; a trailing slash is the same path', async () => {
      assert.deepEqual((await get(`${R}/hooks/echo/fixed`)).json.route, { method: 'GET', path: '/echo/fixed' });
      assert.deepEqual((await get(`${R}/hooks/echo/other/`)).json.params, { id: 'other' });
    });

    it('staff routes take an OAuth bearer token (the handler sees its staff key); api_key routes an API key; each refuses the other and none', async () => {
      assert.equal((await get(`${R}/hooks/me`)).status, 401);
      assert.equal((await get(`${R}/hooks/me`, { authorization: TEST_API_KEY })).status, 401);
      const me = await get(`${R}/hooks/me`, { authorization: `Bearer ${api.token}` });
      assert.equal(me.status, 200, me.text);
      assert.equal(typeof me.json.staff_key, 'string');
      assert.equal((await get(`${R}/hooks/me`, { authorization: 'Bearer wrong' })).status, 401);
      assert.equal((await get(`${R}/hooks/key`)).status, 401);
      assert.equal((await get(`${R}/hooks/key`, { authorization: `Bearer ${api.token}` })).status, 401);
      assert.equal((await get(`${R}/hooks/key`, { authorization: TEST_API_KEY })).status, 200);
    });

    it('a secret route: the handler checks the HMAC through the signature binding; a signed request applies its effect before the answer', async () => {
      const { noteKey } = await api.note();
      const body = JSON.stringify({ note: noteKey });
      const bad = await post(`${R}/hooks/webhooks/lab-result`, body, { 'x-signature': 'sha256=00' });
      assert.equal(bad.status, 401);
      assert.equal((await post(`${R}/hooks/webhooks/lab-result`, body)).status, 401, 'no signature');
      const sig = createHmac('sha256', 'k3y-for-the-lab-0123456789').update(body).digest('hex');
      assert.equal((await post(`${R}/hooks/webhooks/lab-result`, body + ' ', { 'x-signature': `sha256=${sig}` })).status, 401, 'another body');
      assert.deepEqual(await instructs(noteKey), [], 'nothing written by refused requests');
      const ok = await post(`${R}/hooks/webhooks/lab-result`, body, { 'x-signature': `sha256=${sig}` });
      assert.equal(ok.status, 202, ok.text);
      assert.deepEqual(ok.json, { accepted: true });
      const written = await instructs(noteKey);
      assert.equal(written.length, 1, 'applied before the answer');
      assert.equal(written[0]!.originated_by, 'plugin:hooks');
      // The same handler's other secret route: its own signature header is the one checked.
      const device = await post(`${R}/hooks/webhooks/device`, body, { 'x-device-signature': `sha256=${sig}` });
      assert.equal(device.status, 202, device.text);
      assert.equal(
        (await post(`${R}/hooks/webhooks/device`, body, { 'x-signature': `sha256=${sig}` })).status,
        401,
        "the other route's header is not this one's",
      );
    });

    it('a route handler keeps a cache between requests, and reads no patient unless its plugin may read any (a route is about none)', async () => {
      const { patientKey } = await api.note();
      const first = await get(`${R}/hooks/read/${patientKey}`, { authorization: TEST_API_KEY });
      assert.equal(first.status, 200, first.text);
      assert.deepEqual(first.json.read, { error: 'out_of_scope' });
      const second = await get(`${R}/hooks/read/${patientKey}`, { authorization: TEST_API_KEY });
      assert.equal(second.json.count, first.json.count + 1);
    });

    it('no such route is 404, a method not declared 405 with Allow, a wrong content type 415, a body over 1 MiB 413', async () => {
      const none = await get(`${R}/hooks/nowhere`);
      assert.equal(none.status, 404);
      assert.equal(none.json.code, 'plugin_route_not_found');
      assert.equal((await get(`${R}/nobody/echo/1`)).status, 404);
      const del = await fetch(`${api.url}${R}/hooks/echo/1`, { method: 'DELETE' }).then(toReply);
      assert.equal(del.status, 405);
      assert.equal(del.headers.get('allow'), 'GET, POST');
      const octet = await post(`${R}/hooks/echo/1`, 'abc', { 'content-type': 'application/octet-stream' });
      assert.equal(octet.status, 415, octet.text);
      const big = await post(`${R}/hooks/echo/1`, JSON.stringify({ x: 'y'.repeat(1024 * 1024) }));
      assert.equal(big.status, 413, big.text);
      const malformed = await post(`${R}/hooks/echo/1`, '{not json');
      assert.equal(malformed.status, 400);
      assert.equal(malformed.json.code, 'malformed_body');
    });

    it('a handler that throws, or answers a bad status, an unsafe header or a body over 1 MiB, is a 502 plugin_failed with the request id; its effects are not applied', async () => {
      const { noteKey } = await api.note();
      for (const query of ['throw=1', 'status=99', 'header=set-cookie:a=b', 'header=x-request-id:mine', 'big=1']) {
        const from = seen.length;
        const r = await get(`${R}/hooks/echo/1?${query}&effect=${noteKey}`);
        assert.equal(r.status, 502, `${query}: ${r.text}`);
        assert.equal(r.json.code, 'plugin_failed');
        assert.equal(r.json.request_id, r.headers.get('x-request-id'));
        assert.ok(!r.text.includes('at '), 'no stack');
        const line = seen.slice(from).find((e) => e.plugin === 'hooks' && e.success === false);
        assert.ok(line, `${query}: a failure line`);
        assert.equal(line.handler, 'dist/handlers.js:Echo');
        assert.equal(line.request_id, r.json.request_id);
      }
      assert.deepEqual(await instructs(noteKey), [], 'nothing written');
      const fine = await get(`${R}/hooks/echo/1?header=x-extra:1&status=201`);
      assert.equal(fine.status, 201);
      assert.equal(fine.headers.get('x-extra'), '1');
      // HTML a plugin serves is a sandboxed document on the instance's origin, never framed; a plugin cannot lift that.
      const html = await get(`${R}/hooks/echo/1?header=content-type:text/html`);
      assert.equal(html.status, 200);
      assert.match(html.headers.get('content-security-policy') ?? '', /sandbox/);
      assert.match(html.headers.get('content-security-policy') ?? '', /default-src 'none'/);
      assert.equal(html.headers.get('x-frame-options'), 'DENY');
      assert.equal((await get(`${R}/hooks/echo/1?header=content-security-policy:default-src *`)).status, 502);
    });

    it('a client that trickles its body is answered 408 once the request timeout passes, and the handler never runs', async () => {
      const { noteKey } = await api.note();
      const from = seen.length;
      const { port } = new URL(api.url);
      const answer = await new Promise<string>((resolve, reject) => {
        const socket = net.connect(Number(port), '127.0.0.1', () => {
          socket.write(
            `POST ${R}/hooks/echo/1?effect=${noteKey} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"slow": `,
          );
        });
        let text = '';
        socket.on('data', (chunk) => (text += chunk.toString()));
        socket.on('close', () => resolve(text));
        socket.on('error', reject);
      });
      assert.match(answer, /^HTTP\/1\.1 408/);
      assert.equal(seen.slice(from).filter((e) => e.plugin === 'hooks').length, 0, 'the handler was not called');
      assert.deepEqual(await instructs(noteKey), []);
    });

    it("serves the plugin's OpenAPI document, with each route's authentication", async () => {
      const doc = await get(`${R}/hooks/openapi.json`);
      assert.equal(doc.status, 200, doc.text);
      assert.equal(doc.json.openapi, '3.0.3');
      assert.deepEqual(Object.keys(doc.json.paths).sort(), [
        '/echo/fixed',
        '/echo/{id}',
        '/key',
        '/me',
        '/read/{key}',
        '/webhooks/device',
        '/webhooks/lab-result',
      ]);
      assert.deepEqual(doc.json.paths['/me'].get.security, [{ staff: [] }]);
      assert.equal(doc.json.paths['/echo/{id}'].get['x-public'], true);
      assert.equal(doc.json.paths['/echo/{id}'].get.summary, 'Echo the request');
      assert.ok(doc.json.components.securitySchemes.signature_x_signature);
    });

    it('refuses at install a route without authentication, two handlers claiming one route, a bad path and a ROUTES without the event', async () => {
      const handler = (className: string, routes: unknown, events = ['SIMPLE_API_REQUEST']): TestHandler => ({
        className,
        events,
        statics: { ROUTES: routes },
        compute: `    return [${respond('200', 'null')}];`,
      });
      const refused = async (handlers: TestHandler[], pattern: RegExp) => {
        const form = new FormData();
        form.set('package', new Blob([new Uint8Array(await pluginPackage('bad-routes', handlers))]), 'bad-routes.tar.gz');
        const r = await fetch(`${api.url}/core/api/v1/plugins/`, { method: 'POST', body: form, headers: { authorization: TEST_API_KEY } }).then(toReply);
        assert.equal(r.status, 400, r.text);
        assert.match(r.json.detail, pattern);
      };
      await refused([handler('A', [{ method: 'GET', path: '/x' }])], /has no authentication: give auth/);
      await refused(
        [handler('A', [{ method: 'GET', path: '/x/:id', public: true }]), handler('B', [{ method: 'GET', path: '/x/:key', auth: 'staff' }])],
        /already claims/,
      );
      await refused([handler('A', [{ method: 'GET', path: 'x', public: true }])], /must be a path pattern starting with \//);
      await refused([handler('A', [{ method: 'GET', path: '/x', auth: 'secret', signature_header: 'authorization' }])], /may not be authorization/);
      await refused([handler('A', [{ method: 'GET', path: '/openapi.json', public: true }])], /openapi\.json is the instance's/);
      await refused(
        [handler('A', [{ method: 'GET', path: '/x', public: true }], ['PLAN_COMMAND__POST_COMMIT'])],
        /declares ROUTES but its events do not list SIMPLE_API_REQUEST/,
      );
      assert.equal((await api.call('GET', '/core/api/v1/plugins/bad-routes/', { authorization: TEST_API_KEY })).status, 404, 'nothing installed');
    });

    it('a disabled plugin answers 404 on its routes, and serves again once enabled', async () => {
      await setEnabled(api.url, 'hooks', false);
      await until('hooks stopped', async () => (await get(`${R}/hooks/echo/1`)).status === 404);
      assert.equal((await get(`${R}/hooks/openapi.json`)).status, 404);
      await setEnabled(api.url, 'hooks', true);
      await until('hooks serving again', async () => (await get(`${R}/hooks/echo/1`)).status === 200);
    });
  });
}

describe('plugin routes: the rate limit (sqlite)', () => {
  let api: Instance;
  before(async () => {
    api = await startInstance('sqlite', { pluginRouteRateLimit: 3 });
    await installPlugin(api.url, 'limited', [ECHO]);
    await untilRunning(api.url, 'limited');
  });
  after(async () => api?.stop());

  it('answers 429 with Retry-After past the limit of one route, and keeps the other routes apart', async () => {
    const statuses: number[] = [];
    let last;
    for (let i = 0; i < 5; i++) {
      last = await fetch(`${api.url}${R}/limited/echo/1`).then(toReply);
      statuses.push(last.status);
    }
    assert.deepEqual(statuses, [200, 200, 200, 429, 429]);
    assert.equal(last!.json.code, 'too_many_requests');
    assert.ok(Number(last!.headers.get('retry-after')) > 0);
    assert.equal((await fetch(`${api.url}${R}/limited/echo/fixed`).then(toReply)).status, 200, 'another route has its own count');
  });

  it("does not count callers refused for the route's credentials: a flood of them leaves its budget to its real callers", async () => {
    for (let i = 0; i < 6; i++) assert.equal((await fetch(`${api.url}${R}/limited/key`).then(toReply)).status, 401);
    for (let i = 0; i < 6; i++)
      assert.equal((await fetch(`${api.url}${R}/limited/key`, { headers: { authorization: 'wrong-key-0123456789' } }).then(toReply)).status, 401);
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) statuses.push((await fetch(`${api.url}${R}/limited/key`, { headers: { authorization: TEST_API_KEY } }).then(toReply)).status);
    assert.deepEqual(statuses, [200, 200, 200, 429]);
  });
});
