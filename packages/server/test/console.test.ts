// The console's static files (docs/console.md, "How it is built and served"): served without
// credentials from the build directory, index.html revalidated, hashed assets cached for a year,
// the Content-Security-Policy on every answer, and nothing but the build's own files.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { startInstance, type Instance } from './support/harness.ts';
import { welcome } from '../src/server.ts';
import { loadConfig } from '../src/config.ts';

/** The start of an ICO file (a header for one image), as the console's public/favicon.ico begins. */
const FAKE_ICON = Buffer.from([0, 0, 1, 0, 1, 0, 16, 16, 0, 0, 1, 0, 32, 0]);

/** A build as Vite writes it: index.html and hashed assets; a file beside it that must never be served. */
function fakeBuild(): { root: string; dir: string } {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'charta-console-'));
  const dir = path.join(root, 'dist');
  fs.mkdirSync(path.join(dir, 'assets'), { recursive: true });
  fs.writeFileSync(
    path.join(dir, 'index.html'),
    '<!doctype html><html><head><script type="module" src="/console/assets/index-AbC123.js"></script></head><body></body></html>',
  );
  fs.writeFileSync(path.join(dir, 'assets', 'index-AbC123.js'), `console.log(${JSON.stringify('x'.repeat(4000))});`);
  fs.writeFileSync(path.join(dir, 'assets', 'index-AbC123.css'), 'body { color: black }');
  fs.writeFileSync(path.join(dir, 'assets', 'index-AbC123.js.map'), '{}');
  fs.writeFileSync(path.join(dir, 'favicon.ico'), FAKE_ICON);
  fs.writeFileSync(path.join(root, 'secret.txt'), 'not for the web');
  return { root, dir };
}

/** A GET with the path sent exactly as written (fetch would normalise `..`). */
function rawGet(
  base: string,
  rawPath: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: Buffer }> {
  const url = new URL(base);
  return new Promise((resolve, reject) => {
    const req = http.request({ host: url.hostname, port: url.port, path: rawPath, method: 'GET', headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('console: serving the build', () => {
  let instance: Instance;
  let build: { root: string; dir: string };

  before(async () => {
    build = fakeBuild();
    instance = await startInstance('sqlite', { consoleDir: build.dir });
  });
  after(async () => {
    await instance?.stop();
    fs.rmSync(build.root, { recursive: true, force: true });
  });

  it('serves index.html at /console/ without credentials, revalidated, with the CSP', async () => {
    const res = await rawGet(instance.url, '/console/');
    assert.equal(res.status, 200);
    assert.match(String(res.headers['content-type']), /^text\/html/);
    assert.equal(res.headers['cache-control'], 'no-cache');
    assert.match(res.body.toString(), /index-AbC123\.js/);
    const csp = String(res.headers['content-security-policy']);
    const directives = new Map(
      csp
        .split(';')
        .map((d) => d.trim().split(/\s+/))
        .map(([name, ...values]) => [name!, values]),
    );
    assert.deepEqual(directives.get('default-src'), ["'self'"]);
    assert.deepEqual(directives.get('script-src'), ["'self'"], 'scripts from the instance only: no unsafe-inline, no eval');
    assert.deepEqual(directives.get('style-src'), ["'self'"]);
    assert.deepEqual(directives.get('frame-ancestors'), ["'none'"]);
    assert.deepEqual(directives.get('object-src'), ["'none'"]);
    const host = new URL(instance.url).host;
    assert.deepEqual(directives.get('connect-src'), ["'self'", `ws://${host}`, `wss://${host}`]);
    assert.ok(!csp.includes('unsafe-inline') && !csp.includes('unsafe-eval'), csp);
    assert.equal(res.headers['x-frame-options'], 'DENY');
    assert.equal(res.headers['x-content-type-options'], 'nosniff');
  });

  it('redirects /console to /console/', async () => {
    const res = await rawGet(instance.url, '/console');
    assert.equal(res.status, 301);
    assert.equal(res.headers.location, '/console/');
  });

  it('serves hashed assets for a year, gzipped when asked', async () => {
    const plain = await rawGet(instance.url, '/console/assets/index-AbC123.js');
    assert.equal(plain.status, 200);
    assert.match(String(plain.headers['content-type']), /^text\/javascript/);
    assert.equal(plain.headers['cache-control'], 'public, max-age=31536000, immutable');
    assert.equal(plain.headers['content-encoding'], undefined);
    assert.ok(plain.headers['content-security-policy']);
    const gz = await rawGet(instance.url, '/console/assets/index-AbC123.js', { 'accept-encoding': 'gzip, br' });
    assert.equal(gz.headers['content-encoding'], 'gzip');
    assert.ok(gz.body.length < plain.body.length);
    assert.deepEqual(zlib.gunzipSync(gz.body), plain.body);
    const css = await rawGet(instance.url, '/console/assets/index-AbC123.css');
    assert.equal(css.status, 200);
    assert.match(String(css.headers['content-type']), /^text\/css/);
  });

  it('answers 404 for unknown assets, directories, source maps and paths out of the build', async () => {
    for (const p of [
      '/console/assets/index-Nope.js',
      '/console/assets/',
      '/console/assets',
      '/console/assets/index-AbC123.js.map',
      '/console/../secret.txt',
      '/console/..%2fsecret.txt',
      '/console/%2e%2e/secret.txt',
      '/console/assets/..%2f..%2fsecret.txt',
      '/console/assets/%2e%2e%2f%2e%2e%2fsecret.txt',
      '/console//etc/passwd',
    ]) {
      const res = await rawGet(instance.url, p);
      assert.ok(res.status === 404 || res.status === 400, `${p}: ${res.status}`);
      assert.ok(!res.body.toString().includes('not for the web'), p);
      if (res.status === 404) assert.equal(JSON.parse(res.body.toString()).code, 'route_not_found', p);
    }
  });

  it("answers /favicon.ico with the build's icon, without credentials", async () => {
    for (const p of ['/favicon.ico', '/console/favicon.ico']) {
      const res = await rawGet(instance.url, p);
      assert.equal(res.status, 200, p);
      assert.equal(res.headers['content-type'], 'image/x-icon', p);
      assert.deepEqual(res.body, FAKE_ICON, p);
    }
  });

  it('leaves the API as it was: authenticated, no-store, no console CSP', async () => {
    const res = await rawGet(instance.url, '/core/api/v1/plugins/');
    assert.equal(res.status, 401);
    assert.equal(res.headers['cache-control'], 'no-store');
    assert.equal(res.headers['content-security-policy'], undefined);
  });
});

describe('console: a missing build', () => {
  let instance: Instance;
  let root: string;

  before(async () => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'charta-console-missing-'));
    instance = await startInstance('sqlite', { consoleDir: path.join(root, 'dist') });
  });
  after(async () => {
    await instance?.stop();
    fs.rmSync(root, { recursive: true, force: true });
  });

  it('is answered 503 console_not_built, saying how to build it; the API still serves', async () => {
    const res = await rawGet(instance.url, '/console/');
    assert.equal(res.status, 503);
    const body = JSON.parse(res.body.toString());
    assert.equal(body.code, 'console_not_built');
    assert.match(body.detail, /npm run build -w @charta\/console/);
    const icon = await rawGet(instance.url, '/favicon.ico');
    assert.equal(icon.status, 503, 'nor its icon');
    const health = await rawGet(instance.url, '/healthz');
    assert.equal(health.status, 200);
  });
});

describe('console: the start', () => {
  it('prints the console link', () => {
    const text = welcome('http://127.0.0.1:8000', loadConfig({}), undefined);
    assert.match(text, /^Console: http:\/\/127\.0\.0\.1:8000\/console\/ /m);
  });
});
