// Where the tests `charta plugin test` runs send their handler calls (docs/plugins.md, "Testing a
// plugin"): runInSandbox of `@charta/plugin-sdk/testing` POSTs `<CHARTA_PLUGIN_SANDBOX>call` with
// the handler, the event, its secrets, fixture and grants, and gets the call's answer as the
// plugin loaded in the instance's sandbox gave it (SandboxAnswer), or 400 `{error}` for a request
// that cannot be a call. HTTP on 127.0.0.1 only, under a path holding a random token that only the
// tests' environment knows; it lives as long as the test run.
import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { isEventName } from '@charta/plugin-sdk';
import type { SandboxAnswer, SandboxRequest } from '@charta/plugin-sdk/testing';
import type { LoadedProject } from './plugin.ts';

/** The largest request taken (an event and a fixture). */
const MAX_BODY_BYTES = 32 * 1024 * 1024;

export interface Endpoint {
  /** What CHARTA_PLUGIN_SANDBOX is set to (ends with `/`). */
  url: string;
  /** Calls made so far. */
  readonly calls: number;
  close(): Promise<void>;
}

/** A request that cannot be a call: answered 400 with its message. */
class BadRequest extends Error {}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The call a request asks for, checked: what runInSandbox sends, or what a hand-written client might. */
async function answer({ plugin, runtime }: LoadedProject, body: unknown): Promise<SandboxAnswer> {
  if (!isObject(body)) throw new BadRequest('a call is a JSON object {handler, event, secrets, data, grants}');
  const request = body as Partial<SandboxRequest>;
  if (typeof request.handler !== 'string' || request.handler === '') throw new BadRequest('handler must name a handler class or <entry>:<class>');
  const event = request.event as unknown;
  if (!isObject(event) || typeof event.type !== 'string') throw new BadRequest('event must be an event object with its type');
  if (!isEventName(event.type)) throw new BadRequest(`event.type ${JSON.stringify(event.type.slice(0, 100))} is not an event name Charta knows`);
  const secrets = request.secrets ?? {};
  if (!isObject(secrets) || !Object.values(secrets).every((v) => typeof v === 'string')) throw new BadRequest('secrets must be an object of strings');
  const grants = request.grants ?? [];
  if (!Array.isArray(grants) || !grants.every((g) => typeof g === 'string')) throw new BadRequest('grants must be a list of grant names');
  const checked = request.data === undefined || request.data === null ? undefined : runtime.checkFixture(request.data);
  if (checked !== undefined && !checked.ok) throw new BadRequest(`the fixture is not valid: ${checked.reasons.join('; ')}`);
  try {
    const handler = plugin.handler(request.handler);
    const type = plugin.typeFor(handler, event.type);
    if (type === undefined) return { handler: handler.id, called: false, type: null, outcome: null, effects: [], fault: null, logs: [], reads: [] };
    const call = await plugin.call(handler, type, JSON.parse(JSON.stringify(event)), {
      secrets: secrets as Record<string, string>,
      grants: grants as string[],
      ...(checked?.ok ? { fixture: checked.fixture } : {}),
    });
    const faultLine = call.logs.find((line) => line.level === 'error' && line.fault !== undefined);
    return {
      handler: call.handler,
      called: true,
      type: call.type,
      outcome: call.outcome,
      effects: call.effects as unknown as SandboxAnswer['effects'],
      fault: call.fault === null ? null : (faultLine?.event ?? `handler ${call.handler} on ${call.type} ${call.fault}`),
      logs: call.logs.filter((line) => line.source === 'plugin').map((line) => ({ level: line.level, message: line.event })),
      reads: call.reads,
    };
  } catch (err) {
    if (err instanceof runtime.LocalRefusal) throw new BadRequest(err.message);
    throw err;
  }
}

function readBody(request: http.IncomingMessage): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        reject(new BadRequest(`a call is at most ${MAX_BODY_BYTES / 1024 / 1024} MiB of JSON`));
        request.destroy();
      } else chunks.push(chunk);
    });
    request.on('error', reject);
    request.on('end', () => {
      try {
        resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')));
      } catch {
        reject(new BadRequest('the body is not JSON'));
      }
    });
  });
}

/** Serves the plugin's calls until closed. */
export async function startEndpoint(project: LoadedProject): Promise<Endpoint> {
  const token = crypto.randomBytes(16).toString('hex');
  let calls = 0;
  const server = http.createServer((request, response) => {
    const send = (status: number, body: unknown) => {
      response.writeHead(status, { 'content-type': 'application/json' });
      response.end(JSON.stringify(body));
    };
    if (request.method !== 'POST' || request.url !== `/${token}/call`) return send(404, { error: 'not found' });
    readBody(request)
      .then((body) => answer(project, body))
      .then(
        (answered) => {
          calls++;
          send(200, answered);
        },
        (err: unknown) => send(err instanceof BadRequest ? 400 : 500, { error: err instanceof Error ? err.message : String(err) }),
      );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/${token}/`,
    get calls() {
      return calls;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
