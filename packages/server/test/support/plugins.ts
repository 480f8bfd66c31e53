// Plugins that run, for the runtime's tests: a tarball of a manifest and one plain JavaScript
// module of handler classes (what the charta tool's build would bundle), installed and enabled
// through the plugin API with the raw API key (docs/plugins.md, "5. Build and install").
import assert from 'node:assert/strict';
import { TEST_API_KEY, toReply, type Instance, type Reply } from './harness.ts';
import { manifest, tarFromDir } from './archives.ts';
import type { LogEntry } from '../../src/logs/bus.ts';
import { countPluginEvents } from '../../src/storage/plugin-events-repository.ts';
import { until } from './until.ts';

export interface TestHandler {
  className: string;
  events: string[];
  /** The body of compute(), in JavaScript: `this.event`, `this.secrets`, `this.log`, `this.data` and `this.cache` are there. */
  compute: string;
  /** compute() is async (it may await this.data's reads). */
  async?: boolean;
  /** The manifest's `on_failure` for it (left out when undefined). */
  onFailure?: 'allow' | 'refuse';
  /** More static members of the class, as JSON values: `{ ROUTES: [...] }`. */
  statics?: Record<string, unknown>;
  /** A ScheduledHandler's SCHEDULE (its events then list CRON: docs/plugins.md, "Scheduled tasks"). */
  schedule?: string;
}

/** What the module holds besides the classes: code run when it is evaluated (at every load). */
export interface TestModule {
  prelude?: string;
}

/** The handler module: one exported class per handler, as the sandbox loads it. */
export function handlersModule(handlers: TestHandler[], module: TestModule = {}): string {
  return (
    (module.prelude === undefined ? '' : `${module.prelude}\n`) +
    handlers
      .map(
        (h) => `export class ${h.className} {
  static RESPONDS_TO = ${JSON.stringify(h.events)};${h.schedule === undefined ? '' : `\n  static SCHEDULE = ${JSON.stringify(h.schedule)};`}
${Object.entries(h.statics ?? {})
  .map(([k, v]) => `  static ${k} = ${JSON.stringify(v)};\n`)
  .join(
    '',
  )}  constructor(event, secrets, log, data, cache) { this.event = event; this.secrets = secrets; this.log = log; this.data = data; this.cache = cache; }
  acceptEvent() { return true; }
  ${h.async === true ? 'async ' : ''}compute() {
${h.compute}
  }
}
`,
      )
      .join('\n')
  );
}

/** A gzipped tarball of the plugin `name` (already normalised: lower case, dashes). */
export async function pluginPackage(name: string, handlers: TestHandler[], extra: Record<string, unknown> = {}, module: TestModule = {}): Promise<Buffer> {
  const m = manifest({
    name,
    secrets: [],
    components: {
      handlers: handlers.map((h) => ({
        entry: 'dist/handlers.js',
        class: h.className,
        events: h.events,
        description: h.className,
        ...(h.onFailure === undefined ? {} : { on_failure: h.onFailure }),
      })),
    },
    ...extra,
  });
  return tarFromDir({ 'CHARTA_MANIFEST.json': JSON.stringify(m, null, 2), 'dist/handlers.js': handlersModule(handlers, module) }, ['.']);
}

/** POST /core/api/v1/plugins/ with the package, enabled, and the grants (docs/plugins.md, "Grants"); asserts 201. */
export async function installPlugin(
  baseUrl: string,
  name: string,
  handlers: TestHandler[],
  extra: Record<string, unknown> = {},
  grants: string[] = [],
  module: TestModule = {},
): Promise<Reply> {
  const form = new FormData();
  form.set('is_enabled', 'True');
  for (const grant of grants) form.append('grant', grant);
  form.set('package', new Blob([new Uint8Array(await pluginPackage(name, handlers, extra, module))]), `${name}.tar.gz`);
  const reply = await toReply(await fetch(`${baseUrl}/core/api/v1/plugins/`, { method: 'POST', body: form, headers: { authorization: TEST_API_KEY } }));
  assert.equal(reply.status, 201, reply.text);
  return reply;
}

/** PATCH /core/api/v1/plugins/{name}/ with a new package of the plugin; asserts 200. */
export async function updatePlugin(baseUrl: string, name: string, handlers: TestHandler[], extra: Record<string, unknown> = {}): Promise<Reply> {
  const form = new FormData();
  form.set('package', new Blob([new Uint8Array(await pluginPackage(name, handlers, extra))]), `${name}.tar.gz`);
  const reply = await toReply(
    await fetch(`${baseUrl}/core/api/v1/plugins/${name}/`, { method: 'PATCH', body: form, headers: { authorization: TEST_API_KEY } }),
  );
  assert.equal(reply.status, 200, reply.text);
  return reply;
}

/** Waits until the instance runs the plugin (its runtime state, as GET /core/api/v1/plugins/{name}/ shows it, is `running`). */
export async function untilRunning(baseUrl: string, name: string): Promise<void> {
  await until(`${name} running`, async () => {
    const reply = await toReply(await fetch(`${baseUrl}/core/api/v1/plugins/${name}/`, { headers: { authorization: TEST_API_KEY } }));
    return reply.json?.runtime?.state === 'running';
  });
}

/** PATCH /core/api/v1/plugins/{name}/ with is_enabled (form-encoded, as the original tool sends it). */
export async function setEnabled(baseUrl: string, name: string, enabled: boolean): Promise<Reply> {
  const reply = await toReply(
    await fetch(`${baseUrl}/core/api/v1/plugins/${name}/`, {
      method: 'PATCH',
      body: `is_enabled=${enabled ? 'True' : 'False'}`,
      headers: { authorization: TEST_API_KEY, 'content-type': 'application/x-www-form-urlencoded' },
    }),
  );
  assert.equal(reply.status, 200, reply.text);
  return reply;
}

/** PATCH /core/api/v1/plugins/{name}/ giving and taking back grants (docs/plugins.md, "Grants"); asserts 200. */
export async function changeGrants(baseUrl: string, name: string, change: { grant?: string[]; revoke?: string[] }): Promise<Reply> {
  const body = new URLSearchParams();
  for (const grant of change.grant ?? []) body.append('grant', grant);
  for (const revoke of change.revoke ?? []) body.append('revoke', revoke);
  const reply = await toReply(
    await fetch(`${baseUrl}/core/api/v1/plugins/${name}/`, {
      method: 'PATCH',
      body,
      headers: { authorization: TEST_API_KEY },
    }),
  );
  assert.equal(reply.status, 200, reply.text);
  return reply;
}

/** A plugin object without its `runtime` and `faults` (which follow the runtime from one answer to the next): what is stored. */
export function stored(view: Record<string, unknown>): Record<string, unknown> {
  const { runtime: _runtime, faults: _faults, ...rest } = view;
  return rest;
}

/**
 * What the runtime's tests watch of an instance (`api()` once it has started): its recent log
 * entries, the outbox emptying, a note's commands, a plugin installed, updated or disabled until the
 * runtime says it runs it (or stopped).
 */
/** Waits until the instance's outbox is empty and its delivery idle: every POST event of the changes made so far handled. */
export async function settle(api: Instance): Promise<void> {
  const delivery = api.app.pluginRuntime.delivery;
  await until('the outbox to empty', async () => {
    await delivery.idle();
    return (await countPluginEvents(api.storage.db)) === 0;
  });
  await delivery.idle();
}

export function runtimeWatch(api: () => Instance) {
  const entries = (plugin?: string): LogEntry[] =>
    api()
      .app.logs.recent({ plugin })
      .map((r) => r.entry);
  /** What the plugin's handlers logged. */
  const lines = (plugin: string) => entries(plugin).filter((e) => e.source === 'plugin');
  /** Every line about a fault of the plugin. */
  const failures = (plugin: string) => entries(plugin).filter((e) => e.success === false);
  /** The commands of a note, as the API lists them. */
  const commandsOf = async (noteKey: string) =>
    (await api().call('GET', `/core/api/v1/commands/?note_key=${noteKey}&limit=100`)).json.results as Array<Record<string, any>>;
  const running = (name: string) => entries(name).filter((e) => /running: \d+ handler/.test(e.event));
  /** Waits until the outbox is empty and this process delivers nothing. */
  const settled = () => settle(api());
  const runningAgain = async (name: string, before: number) => {
    await until(
      `${name} running`,
      () => running(name).length > before,
      15_000,
      () => JSON.stringify(entries(name)),
    );
  };
  return {
    entries,
    lines,
    failures,
    settled,
    commandsOf,
    install: async (name: string, handlers: TestHandler[], extra?: Record<string, unknown>) => {
      const before = running(name).length;
      await installPlugin(api().url, name, handlers, extra);
      await runningAgain(name, before);
    },
    update: async (name: string, handlers: TestHandler[], extra?: Record<string, unknown>) => {
      const before = running(name).length;
      await updatePlugin(api().url, name, handlers, extra);
      await runningAgain(name, before);
    },
    disable: async (name: string) => {
      await setEnabled(api().url, name, false);
      await until(`${name} stopped`, () => entries(name).find((e) => / stopped$/.test(e.event)));
    },
  };
}

/**
 * A plugin with one route of each authentication (docs/plugins.md, "HTTP routes"), each answering
 * 200 `{ok: true}`, the secret one only with the right `x-signature` (an HMAC of the body under
 * its secret KEY, which tests may leave unset: then no signature matches): for the sweeps over
 * every declared route (the fuzz test, the 401 sweep).
 */
export const ROUTES_OF_EVERY_AUTH: TestHandler = {
  className: 'EveryAuth',
  events: ['SIMPLE_API_REQUEST'],
  async: true,
  statics: {
    ROUTES: [
      { method: 'GET', path: '/open/:id', public: true },
      {
        method: 'POST',
        path: '/staff/items',
        auth: 'staff',
        request_schema: { type: 'object', required: ['name'], properties: { name: { type: 'string' }, count: { type: 'integer' } } },
      },
      { method: 'PUT', path: '/keyed/:id', auth: 'api_key' },
      { method: 'POST', path: '/signed', auth: 'secret', signature_header: 'x-signature' },
    ],
  },
  compute: `    const request = this.event.context.request;
    if (request.route.path === '/signed') {
      const check = await __charta_binding('signature', { scheme: 'hmac', secret: 'KEY' });
      if (check.value !== true) return [{ type: 'HTTP_RESPONSE', payload: { status: 401, body: { error: 'bad signature' } } }];
    }
    return [{ type: 'HTTP_RESPONSE', payload: { status: 200, body: { ok: true } } }];`,
};
