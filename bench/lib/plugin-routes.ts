// The plugin-route scenario of `npm run bench` (issue "Plugins that serve and schedule"): what a
// request to a plugin's HTTP route costs against the plain Commands API in the same run, on one
// engine (docs/performance.md, "Plugin routes"):
//  * get-command, then route-empty: GET /core/api/v1/commands/{uuid} (a bearer token), against
//    GET /plugin-io/api/bench-route/empty, a public route whose handler answers {} without
//    reading anything (the sandbox call is the cost);
//  * create-command, then route-webhook: POST /core/api/v1/commands/ (an instruct in a note),
//    against POST /plugin-io/api/bench-route/webhook, a public route whose handler originates the
//    same instruct in the note the body names (an effect applied before the answer).
// The plugin is a real package built by the CLI's packaging, installed through the plugin API with
// the effects:instance grant, deleted after. The instance's route rate limit is raised for the
// bench (charta-server.ts).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type autocannon from 'autocannon';
import { buildProject } from '../../packages/cli/src/packaging/index.ts';
import type { Child } from './child.ts';
import { cpuMeter, waitForQuiet } from './cpu.ts';
import { measure, type LoadResult } from './load.ts';
import type { BenchOptions } from './options.ts';
import { clearPlugins, deletePlugin, until } from './plugin-commit.ts';
import type { RouteRow } from './report.ts';

export const ROUTE_SCENARIO = 'plugin-route';
const PLUGIN = 'bench-route';
const API = '/core/api/v1/commands';
const JSON_HEADERS = { 'content-type': 'application/json' };

/** The plugin's project, written under `parent` and built: the package's bytes. */
export async function buildRoutePlugin(parent: string = fs.mkdtempSync(path.join(os.tmpdir(), 'charta-bench-route-'))): Promise<Buffer> {
  const dir = path.join(parent, PLUGIN);
  fs.mkdirSync(path.join(dir, 'src', 'plugin'), { recursive: true });
  fs.writeFileSync(
    path.join(dir, 'CHARTA_MANIFEST.json'),
    JSON.stringify({
      sdk_version: '0.1.0',
      plugin_version: '1.0.0',
      name: PLUGIN,
      description: 'Benchmark plugin: an empty route and a webhook that originates an instruct',
      components: {
        handlers: [
          { entry: 'plugin/handlers.js', class: 'Empty', events: ['SIMPLE_API_REQUEST'], description: 'GET /empty answers {}' },
          { entry: 'plugin/handlers.js', class: 'Webhook', events: ['SIMPLE_API_REQUEST'], description: 'POST /webhook originates an instruct' },
        ],
      },
    }),
  );
  fs.writeFileSync(
    path.join(dir, 'src', 'plugin', 'handlers.ts'),
    `import { originateCommand, RouteHandler, type RouteDeclaration, type RouteResponse } from '@charta/plugin-sdk';
export class Empty extends RouteHandler {
  static override readonly ROUTES: readonly RouteDeclaration[] = [{ method: 'GET', path: '/empty', public: true }];
  override handle(): RouteResponse {
    return { status: 200, body: {} };
  }
}
export class Webhook extends RouteHandler {
  static override readonly ROUTES: readonly RouteDeclaration[] = [{ method: 'POST', path: '/webhook', public: true }];
  override handle(): RouteResponse {
    const { note, comment } = this.request.body as { note: string; comment: string };
    return { status: 201, body: { accepted: true }, effects: [originateCommand('instruct', note, { comment })] };
  }
}
`,
  );
  try {
    return fs.readFileSync((await buildProject(dir)).file);
  } finally {
    fs.rmSync(parent, { recursive: true, force: true });
  }
}

export interface RouteTarget {
  engine: string;
  child: Child;
  url: string;
  token: string;
  apiKey: string;
  sampleUuids: string[];
  writableNotes: string[];
}

const comment = 'Results reviewed; no change.';

export async function routeScenario(opts: BenchOptions, t: RouteTarget, bytes: Buffer): Promise<RouteRow[]> {
  await clearPlugins(t, 'plugin-route');
  const form = new FormData();
  form.set('is_enabled', 'true');
  form.append('grant', 'effects:instance');
  form.set('package', new Blob([new Uint8Array(bytes)], { type: 'application/gzip' }), `${PLUGIN}-1.0.0.tar.gz`);
  const installed = await fetch(`${t.url}/core/api/v1/plugins/`, { method: 'POST', headers: { authorization: t.apiKey }, body: form });
  if (installed.status !== 201) throw new Error(`installing ${PLUGIN} answered ${installed.status}: ${(await installed.text()).slice(0, 500)}`);
  await until(`${PLUGIN} serving`, 30, async () => (await fetch(`${t.url}/plugin-io/api/${PLUGIN}/empty`)).status === 200);
  const notes = t.writableNotes.slice(0, 250);
  const uuids = t.sampleUuids.slice(0, 250);
  const variants: Array<{ name: RouteRow['variant']; against?: RouteRow['variant']; request: string; auth: boolean; requests: autocannon.Request[] }> = [
    { name: 'get-command', request: `GET ${API}/{uuid}`, auth: true, requests: uuids.map((u) => ({ method: 'GET', path: `${API}/${u}` })) },
    {
      name: 'route-empty',
      against: 'get-command',
      request: `GET /plugin-io/api/${PLUGIN}/empty (answers {})`,
      auth: false,
      requests: [{ method: 'GET', path: `/plugin-io/api/${PLUGIN}/empty` }],
    },
    {
      name: 'create-command',
      request: `POST ${API}/ {"schemaKey":"instruct","noteKey":…,"values":{"comment":…}}`,
      auth: true,
      requests: notes.map((n) => ({
        method: 'POST',
        path: `${API}/`,
        headers: JSON_HEADERS,
        body: JSON.stringify({ schemaKey: 'instruct', noteKey: n, values: { comment } }),
      })),
    },
    {
      name: 'route-webhook',
      against: 'create-command',
      request: `POST /plugin-io/api/${PLUGIN}/webhook {"note":…} (originates the same instruct)`,
      auth: false,
      requests: notes.map((n) => ({
        method: 'POST',
        path: `/plugin-io/api/${PLUGIN}/webhook`,
        headers: JSON_HEADERS,
        body: JSON.stringify({ note: n, comment }),
      })),
    },
  ];
  const rows: RouteRow[] = [];
  try {
    for (const v of variants) {
      const headers: Record<string, string> = v.auth ? { authorization: `Bearer ${t.token}` } : {};
      const spec = { url: t.url, connections: opts.connections, headers, requests: v.requests };
      if (opts.warmup > 0) await measure({ ...spec, duration: opts.warmup });
      if (opts.quietWait > 0) await waitForQuiet(t.child.pid, 0.25, opts.quietWait, true);
      // BENCH_PROFILE=plugin-route (or plugin-route-<variant>): the server process's CPU profile (not the runner's).
      const profiled = opts.profile.includes('all') || opts.profile.includes(ROUTE_SCENARIO) || opts.profile.includes(`${ROUTE_SCENARIO}-${v.name}`);
      if (profiled) await t.child.call('profileStart');
      const stop = cpuMeter(t.child.pid); // its process tree: the runner child too
      const result: LoadResult = await measure({ ...spec, duration: opts.duration });
      const cpu = stop();
      if (profiled) {
        const file = await t.child.call<string>('profileStop', {
          file: path.join(import.meta.dirname, '..', 'results', 'profiles', `${t.engine}-${ROUTE_SCENARIO}-${v.name}.cpuprofile`),
        });
        console.log(`  (profiled: ${path.relative(process.cwd(), file)}; the profiler slows the server, so this row reads low)`);
      }
      const cores = cpu.server + (t.engine === 'postgres' ? cpu.postgres : 0);
      const against = rows.find((r) => r.variant === v.against);
      const row: RouteRow = {
        scenario: `${ROUTE_SCENARIO} ${v.name}`,
        engine: t.engine,
        variant: v.name,
        request: v.request,
        ...result,
        ratio: against === undefined ? NaN : result.okPerSecond / against.okPerSecond,
        cpu,
        serverMicrosPerRequest: result.ok > 0 ? (cores * cpu.seconds * 1e6) / result.ok : NaN,
        profiled,
      };
      rows.push(row);
      console.log(
        `${t.engine.padEnd(8)}  ${ROUTE_SCENARIO} ${v.name.padEnd(14)} ${Math.round(result.okPerSecond).toLocaleString('en-US').padStart(6)} req/s  p50 ${result.p50.toFixed(2)} ms  p99 ${result.p99.toFixed(2)} ms` +
          (against === undefined ? '' : `  ${row.ratio.toFixed(2)} of ${v.against}`) +
          (result.non2xx + result.errors ? `  non-2xx ${result.non2xx} errors ${result.errors} ${JSON.stringify(result.statusCodes)}` : ''),
      );
    }
  } finally {
    await deletePlugin(t, PLUGIN);
  }
  return rows;
}
