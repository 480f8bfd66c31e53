// Credentials never reach the log (docs/api.md, "Logging"): a real `charta-server` at the most
// verbose level (trace), its output captured, gets credentials in the query strings of several
// requests (answered 200, 400, 401, 404, a bad URL, the log stream's WebSocket upgrade, taken
// or refused); none of the secret values appears anywhere in what it wrote.
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import WebSocket from 'ws';
import { createDatabase, ENGINES, request, TEST_API_KEY, TEST_CLIENT_SECRET, type TestDatabase } from './support/harness.ts';
import { killAll, startServerProcess, tokenFor, type ServerProcess } from './support/processes.ts';
import { isCredentialName, redactCredentials } from '../src/http/log-redaction.ts';

/** Resolves once the upgrade was accepted (and closed) or answered over HTTP. */
function upgrade(url: string, headers: Record<string, string>): Promise<number> {
  const ws = new WebSocket(url, { headers });
  return new Promise((resolve, reject) => {
    ws.on('open', () => {
      ws.close();
      ws.on('close', () => resolve(101));
    });
    ws.on('error', () => undefined);
    ws.on('unexpected-response', (req, res) => {
      res.resume();
      res.on('end', () => {
        req.destroy();
        resolve(res.statusCode ?? 0);
      });
    });
    setImmediate(() => ws.once('error', reject));
  });
}

for (const engine of ENGINES) {
  describe(`no credential in the log (${engine})`, () => {
    let db: TestDatabase | undefined;
    let server: ServerProcess | undefined;
    after(async () => {
      killAll();
      if (server) await server.exited;
      await db?.drop();
    });

    it('a server logging at trace writes no credential sent in a query string, at any level', async () => {
      db = await createDatabase(engine);
      server = await startServerProcess(db, { CHARTA_LOG_LEVEL: 'trace' });
      const base = server.url;
      const token = await tokenFor(base);
      const other = (label: string) => `${label}-${crypto.randomBytes(12).toString('hex')}`;
      const secrets = {
        token,
        apiKey: TEST_API_KEY,
        clientSecret: TEST_CLIENT_SECRET,
        key: other('key'),
        password: other('password'),
        code: other('code'),
        odd: `${other('odd')}/+&=é`, // percent-encoded on the wire
      };
      const q = (pairs: Array<[string, string]>) => '?' + pairs.map(([k, v]) => `${k}=${encodeURIComponent(v)}`).join('&');
      const bearer = { token: token };
      const withKey = { authorization: TEST_API_KEY, token: null };
      const calls: Array<[string, string, Parameters<typeof request>[3], number]> = [
        // The plugin list takes only limit and offset: these are 400s naming the parameter.
        [
          'GET',
          `/core/api/v1/plugins/${q([
            ['api_key', secrets.apiKey],
            ['limit', '5'],
          ])}`,
          withKey,
          400,
        ],
        [
          'GET',
          `/core/api/v1/plugins/${q([
            ['apikey', secrets.apiKey],
            ['API_KEY', secrets.apiKey],
            ['Api-Key', secrets.apiKey],
          ])}`,
          withKey,
          400,
        ],
        [
          'GET',
          `/core/api/v1/plugins/vitals_alert/${q([
            ['token', secrets.token],
            ['limit', '5'],
          ])}`,
          withKey,
          404,
        ],
        [
          'GET',
          `/core/api/v1/plugins/${q([
            ['limit', 'x'],
            ['access_token', secrets.token],
          ])}`,
          withKey,
          400,
        ],
        [
          'GET',
          `/core/api/v1/commands/${crypto.randomUUID()}/${q([
            ['token', secrets.token],
            ['token', secrets.key],
          ])}`,
          bearer,
          404,
        ],
        ['GET', `/core/api/v1/commands/${crypto.randomUUID()}/${q([['access_token', secrets.token]])}`, { token: null }, 401],
        [
          'GET',
          `/no/such/endpoint/${q([
            ['access_token', secrets.token],
            ['key', secrets.key],
          ])}`,
          bearer,
          404,
        ],
        ['GET', `/core/api/v1/%E0%A4%A/${q([['token', secrets.token]])}`, bearer, 404],
        [
          'POST',
          `/auth/token/${q([
            ['client_secret', secrets.clientSecret],
            ['password', secrets.password],
            ['code', secrets.code],
          ])}`,
          {
            token: null,
            raw: { contentType: 'application/x-www-form-urlencoded', data: 'grant_type=client_credentials&client_id=nobody&client_secret=wrong' },
          },
          401,
        ],
        [
          'POST',
          `/core/api/v1/plugins/${q([
            ['secret', secrets.odd],
            ['Authorization', secrets.key],
          ])}`,
          { ...withKey, raw: { contentType: 'multipart/form-data', data: '' } },
          400,
        ],
        [
          'GET',
          `/openapi.json${q([
            ['session', secrets.key],
            ['sig', secrets.code],
            ['jwt', secrets.token],
          ])}`,
          { token: null },
          200,
        ],
      ];
      for (const [method, path, options, status] of calls) {
        const r = await request(base, method, path, options, '');
        assert.equal(r.status, status, `${method} ${path}: ${r.text}`);
      }
      const ws = `${base.replace(/^http/, 'ws')}/core/api/v1/logging/`;
      assert.equal(
        await upgrade(
          `${ws}${q([
            ['plugin', 'x'],
            ['token', secrets.token],
          ])}`,
          { authorization: TEST_API_KEY },
        ),
        400,
      ); // not an option of the stream
      assert.equal(
        await upgrade(
          `${ws}${q([
            ['access_token', secrets.token],
            ['api_key', secrets.apiKey],
          ])}`,
          {},
        ),
        400,
      ); // without the header the stream would wait for its first message; these are not options of it

      // The last request's completion line is written after everything before it.
      const last = await request(base, 'GET', `/openapi.json${q([['token', secrets.token]])}`, { token: null }, '');
      const id = last.headers.get('x-request-id')!;
      await new Promise<void>((resolve) => {
        const check = () => {
          if (
            server!
              .output()
              .split('\n')
              .some((line) => line.includes(id) && line.includes('request completed'))
          ) {
            server!.child.stdout!.off('data', check);
            resolve();
          }
        };
        server!.child.stdout!.on('data', check);
        check();
      });

      const log = server.output();
      assert.match(log, /"level":10/, 'trace lines are written');
      assert.match(log, /incoming request/);
      assert.match(log, /access_token=\[redacted\]/, 'the parameter is named, its value redacted');
      assert.match(log, /limit=5/, 'other parameters stay');
      for (const [name, value] of Object.entries(secrets)) {
        for (const form of new Set([value, encodeURIComponent(value)])) {
          assert.ok(
            !log.includes(form),
            `the ${name} (${form}) is in the log:\n${log
              .split('\n')
              .filter((l) => l.includes(form))
              .join('\n')}`,
          );
        }
      }
    });
  });
}

describe('redactCredentials', () => {
  it('redacts the value of every credential-named parameter, in URLs and in text quoting them', () => {
    assert.equal(
      redactCredentials('/p/?token=a&api_key=b&ACCESS_TOKEN=c&Api-Key=d&key=e&apikey=f&client_secret=g&password=h&code=i&limit=5'),
      '/p/?token=[redacted]&api_key=[redacted]&ACCESS_TOKEN=[redacted]&Api-Key=[redacted]&key=[redacted]&apikey=[redacted]&client_secret=[redacted]&password=[redacted]&code=[redacted]&limit=5',
    );
    assert.equal(redactCredentials("'/x/?a%5Fkey=s3cret&q=1' is not a valid url component"), "'/x/?a%5Fkey=[redacted]&q=1' is not a valid url component");
    assert.equal(redactCredentials('/p/?search_term=asthma&offset=20'), '/p/?search_term=asthma&offset=20');
    assert.equal(redactCredentials('/p/?token=&x=1;session=abc'), '/p/?token=[redacted]&x=1;session=[redacted]');
    assert.ok(isCredentialName('X-Auth-Token') && isCredentialName('%61pi_key') && !isCredentialName('limit'));
  });
});
