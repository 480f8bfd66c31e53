// The plugin object of the API (docs/api.md, "Plugins") and the right to use the plugin endpoints.
import type { Ctx } from '../context.ts';
import { isoMicros } from '../lib/time.ts';
import { problem } from '../http/problem.ts';
import { PLUGIN_SCOPE } from '../auth/principal.ts';
import type { Selectable } from 'kysely';
import type { PluginTable } from '../storage/schema.ts';
import { DATA_RESOURCES, normalizePluginName } from '@charta/api/constants';
import type { PluginDataAccess, PluginRoute, PluginSchedule } from '@charta/api';
import { PLUGIN_ROUTE_PREFIX } from '@charta/api/constants';
import { ticksAround, type PluginSurface } from '../runtime/surface.ts';
import { storedGrants, type Grant } from '../runtime/grants.ts';
import { latestTicks } from '../storage/plugin-ticks-repository.ts';
import { nothingToRunReason } from '../inspection/index.ts';

export interface PluginView {
  name: string;
  description: string;
  package: string;
  package_checksum: string;
  version: string;
  is_enabled: boolean;
  /** What an administrator allowed it past its default reach (docs/plugins.md, "Grants"). */
  grants: Grant[];
  /** What its manifest declares it reads of the record (docs/plugins.md, "Reading the record"). */
  data: PluginDataAccess;
  /** The routes it serves, each with its authentication (docs/plugins.md, "HTTP routes"). */
  routes: PluginRoute[];
  /** Its scheduled tasks (docs/plugins.md, "Scheduled tasks"). */
  schedules: PluginSchedule[];
  /** False for a Python package of the original tool: accepted, listed, enabled, never run (docs/plugins.md). */
  runnable: boolean;
  /** Why it cannot run; null when it can. */
  runnable_reason: string | null;
  created_at: string;
  updated_at: string;
}

/** The plugin's recent faults: counts over the last hour and day, and the last one (docs/plugins.md, "Faults"). */
export interface PluginFaultsView {
  last_hour: { failures: number; timeouts: number };
  last_day: { failures: number; timeouts: number };
  /** The last failure line: when, what it says, what failed, and the handler and event it was about (null when it names none: a load). */
  last_error: { timestamp: string; message: string; fault: string | null; handler: string | null; event_type: string | null } | null;
}

/** Where the plugin stands in the runtime of the process answering (docs/plugins.md, "Faults"). */
export interface PluginRuntimeView {
  state: 'running' | 'loading' | 'failing' | 'cannot-run' | 'stopped';
  detail: string | null;
  since: string | null;
  retry_at: string | null;
  failed_loads: number;
}

export type PluginSummary = Omit<Selectable<PluginTable>, 'package' | 'previous_package' | 'previous_format' | 'previous_checksum'>;

/**
 * The stored `data_access` column as the plugin object shows it: the resources, the scope asked
 * for, and the per-call budgets the manifest asks (null: the instance's). Anything malformed reads
 * as reading nothing.
 */
export function dataAccessOf(text: string | null | undefined): PluginDataAccess {
  let asked: Record<string, unknown> = {};
  try {
    const parsed = JSON.parse(text ?? '{}') as unknown;
    if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) asked = parsed as Record<string, unknown>;
  } catch {
    // nothing declared
  }
  const read = Array.isArray(asked.read) ? DATA_RESOURCES.filter((r) => (asked.read as unknown[]).includes(r)) : [];
  const perCall = (value: unknown) => (typeof value === 'number' && Number.isInteger(value) && value > 0 ? value : null);
  return {
    read,
    scope: asked.scope === 'instance' ? 'instance' : 'event_patient',
    reads_per_call: perCall(asked.reads_per_call),
    rows_per_call: perCall(asked.rows_per_call),
  };
}

/** A stored JSON list; anything malformed reads as none. */
function listOf<T>(text: string | null | undefined): T[] {
  try {
    const parsed = JSON.parse(text ?? '[]') as unknown;
    return Array.isArray(parsed) ? (parsed as T[]) : [];
  } catch {
    return [];
  }
}

/** The stored `routes` column as the plugin object shows it: each route with the URL it is served at. */
export function routesOf(plugin: string, text: string | null | undefined): PluginRoute[] {
  return listOf<PluginSurface['routes'][number]>(text).map((r) => ({
    method: r.method,
    path: r.path,
    url: `${PLUGIN_ROUTE_PREFIX}${plugin}${r.path === '/' ? '/' : r.path}`,
    handler: r.handler,
    auth: r.auth,
    signature_header: r.signatureHeader,
    summary: r.summary,
  }));
}

/**
 * The stored `schedules` column as the plugin object shows it: with the next tick while the plugin
 * is enabled, and the latest tick claimed of each (`lastTicks`, µs by handler: lastTicksOf).
 */
export function schedulesOf(text: string | null | undefined, enabled: boolean, lastTicks: ReadonlyMap<string, number> = new Map()): PluginSchedule[] {
  const now = Date.now();
  return listOf<PluginSurface['schedules'][number]>(text).map((s) => ({
    handler: s.handler,
    schedule: s.schedule,
    next_tick: enabled ? new Date(ticksAround(s.schedule, now).next).toISOString() : null,
    last_tick: lastTickOf(lastTicks, s.handler),
  }));
}

const lastTickOf = (lastTicks: ReadonlyMap<string, number> | undefined, handler: string): string | null => {
  const last = lastTicks?.get(handler);
  return last === undefined ? null : isoMicros(last);
};

/** A view made inside a write (the audit's) as an answer shows it: each schedule with its last_tick (lastTicksOf's map of the plugin). */
export function withLastTicks<V extends PluginView>(view: V, lastTicks: ReadonlyMap<string, number> | undefined): V {
  if (lastTicks === undefined) return view;
  return { ...view, schedules: view.schedules.map((s) => ({ ...s, last_tick: lastTickOf(lastTicks, s.handler) })) };
}

/**
 * Why the plugin may not run enabled (null when it may): its manifest asks to read any patient,
 * which needs the `data:instance` grant (docs/plugins.md, "Reading the record").
 */
export function missingDataGrant(data: PluginDataAccess, grants: readonly Grant[], name: string): string | null {
  if (data.scope !== 'instance' || grants.includes('data:instance')) return null;
  return `${name} is disabled: its manifest asks data.scope instance (reading any patient), which needs the data:instance grant (charta plugin update ${name} --grant data:instance --enable)`;
}

/**
 * The latest tick claimed of each handler of these plugins, by plugin (docs/api.md, "Plugins":
 * `last_tick`): one query for them all, none when none has a schedule. Answers show it; the audit
 * rows' stored view does not.
 */
export async function lastTicksOf(
  ctx: Ctx,
  rows: ReadonlyArray<{ name: string; schedules: string | readonly unknown[] }>,
): Promise<Map<string, Map<string, number>>> {
  const scheduled = rows.filter((r) => (typeof r.schedules === 'string' ? listOf(r.schedules) : r.schedules).length > 0).map((r) => r.name);
  return latestTicks(ctx.storage.reader, scheduled);
}

/** Whether a plugin whose metadata came from `source` can run here, and why not (the plugin object's runnable fields). */
export function runnabilityOf(source: string): Pick<PluginView, 'runnable' | 'runnable_reason'> {
  const reason = nothingToRunReason(source);
  return { runnable: reason === null, runnable_reason: reason };
}

export function toView(row: PluginSummary, baseUrl: string, lastTicks?: ReadonlyMap<string, number>): PluginView {
  return {
    name: row.name,
    description: row.description,
    package: `${baseUrl}/core/api/v1/plugins/${encodeURIComponent(row.name)}/package/`,
    package_checksum: row.checksum,
    version: row.version,
    is_enabled: row.is_enabled !== 0,
    grants: storedGrants(row.grants),
    data: dataAccessOf(row.data_access),
    routes: routesOf(row.name, row.routes),
    schedules: schedulesOf(row.schedules, row.is_enabled !== 0, lastTicks),
    // Null only for a moment after migration 014, until the start has filled it in (metadata-source.ts).
    ...runnabilityOf(row.metadata_source ?? 'manifest'),
    created_at: isoMicros(row.created_at),
    updated_at: isoMicros(row.updated_at),
  };
}

/**
 * The plugin as an answer shows it: its stored view, where it stands in this process's runtime (a
 * plugin just disabled still runs until this process has seen it; one just enabled is loading
 * until then; stopped once it is out) and its recent faults. Audit rows keep the stored view alone.
 */
export function answered(ctx: Ctx, view: PluginView): PluginView & { runtime: PluginRuntimeView; faults: PluginFaultsView } {
  const status = ctx.runtime?.status(view.name);
  const runtime: PluginRuntimeView =
    status === undefined
      ? { state: view.is_enabled ? 'loading' : 'stopped', detail: null, since: null, retry_at: null, failed_loads: 0 }
      : {
          state: status.state,
          detail: status.detail,
          since: isoMicros(status.since * 1000),
          retry_at: status.retryAt === null ? null : isoMicros(status.retryAt * 1000),
          failed_loads: status.failedLoads,
        };
  const faults = ctx.logs?.faultsOf(view.name);
  return {
    ...view,
    runtime,
    faults: {
      last_hour: faults?.lastHour ?? { failures: 0, timeouts: 0 },
      last_day: faults?.lastDay ?? { failures: 0, timeouts: 0 },
      last_error: faults?.lastError ?? null,
    },
  };
}

/** API keys carry the plugin scope; a token needs `system/Plugins.*`. */
export function requirePluginScope(ctx: Ctx): void {
  if (!ctx.principal.scopes.includes(PLUGIN_SCOPE)) {
    throw problem('forbidden', { detail: `The plugin endpoints need the scope ${PLUGIN_SCOPE}` });
  }
}

/** Plugin names in paths are slugs (`_` read as `-`); anything else cannot name a plugin. */
export function pluginName(raw: string): string {
  const name = normalizePluginName(raw);
  if (!/^[a-z0-9](?:[a-z0-9-]{0,98}[a-z0-9])?$/.test(name)) throw problem('plugin_not_found');
  return name;
}
