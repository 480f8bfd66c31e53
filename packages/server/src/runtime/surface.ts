// What a plugin offers besides its event handlers (docs/plugins.md, "HTTP routes", "Scheduled
// tasks"): the routes its RouteHandler classes declare in ROUTES and the schedules its
// ScheduledHandler classes declare in SCHEDULE. The sandbox hands both over as text
// (sandbox/bootstrap.ts); here they are parsed and checked, once for the install check (every
// reason, runtime/check.ts) and again when a plugin is loaded (the same rules, the same values).
import { CronExpressionParser } from 'cron-parser';
import { MAX_ROUTE_PATH_CHARS, MAX_ROUTES_PER_PLUGIN, ROUTE_EVENT, ROUTE_METHODS, TICK_EVENT, type RouteAuth, type RouteMethod } from '@charta/api/constants';

/** A route as the runtime serves it: which handler, the method, the path pattern split in segments, the authentication. */
export interface DeclaredRoute {
  /** `<entry>:<class>` */
  handler: string;
  method: RouteMethod;
  /** As declared, normalised: `/patients/:key/summary`. */
  path: string;
  /** The pattern's segments: a literal, or `{ param }`. */
  segments: Array<string | { param: string }>;
  auth: RouteAuth;
  /** secret routes: the lower-case header the handler checks; given to the sandbox. */
  signatureHeader: string | null;
  summary: string | null;
  requestSchema: Record<string, unknown> | null;
  responseSchema: Record<string, unknown> | null;
}

export interface DeclaredSchedule {
  handler: string;
  /** The five fields, as declared (spaces collapsed). */
  schedule: string;
}

/** Headers a route may never name as its signature header: the instance's credentials and what browsers send on their own. */
const FORBIDDEN_SIGNATURE_HEADERS = new Set(['authorization', 'proxy-authorization', 'cookie', 'set-cookie', 'host']);
const LITERAL_SEGMENT = /^[A-Za-z0-9._~-]+$/;
const PARAM_SEGMENT = /^:([A-Za-z_][A-Za-z0-9_]{0,63})$/;
const HEADER_NAME = /^[a-z0-9][a-z0-9-]{0,63}$/;
const SUMMARY_MAX_CHARS = 200;
const SCHEMA_MAX_CHARS = 16 * 1024;

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** One class's ROUTES (JSON text from the sandbox): the routes, and every reason one is wrong (`where` starts each). */
export function parseRoutes(handler: string, json: string, where: string): { routes: DeclaredRoute[]; reasons: string[] } {
  const reasons: string[] = [];
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    return { routes: [], reasons: [`${where}: ROUTES is not JSON (or longer than 64 KiB)`] };
  }
  if (!Array.isArray(value)) return { routes: [], reasons: [`${where}: ROUTES must be a list of routes`] };
  if (value.length === 0) return { routes: [], reasons: [`${where}: ROUTES is empty: declare at least one route`] };
  const routes: DeclaredRoute[] = [];
  value.forEach((r: unknown, i) => {
    const at = `${where}: ROUTES[${i}]`;
    const before = reasons.length;
    if (!isRecord(r)) {
      reasons.push(`${at} must be an object {method, path, auth | public}`);
      return;
    }
    const known = new Set(['method', 'path', 'auth', 'public', 'signature_header', 'summary', 'request_schema', 'response_schema']);
    for (const key of Object.keys(r)) if (!known.has(key)) reasons.push(`${at} has an unknown member ${JSON.stringify(key.slice(0, 40))}`);
    const method = typeof r.method === 'string' ? r.method.toUpperCase() : undefined;
    if (method === undefined || !(ROUTE_METHODS as readonly string[]).includes(method)) {
      reasons.push(`${at}.method must be one of ${ROUTE_METHODS.join(', ')}`);
    }
    const segments = parsePath(r.path, `${at}.path`, reasons);
    if (segments !== undefined && segments.length === 1 && segments[0] === 'openapi.json') {
      reasons.push(`${at}.path /openapi.json is the instance's: it serves the plugin's OpenAPI document there`);
    }
    let auth: RouteAuth | undefined;
    if (r.public === true) {
      if (r.auth !== undefined) reasons.push(`${at} says both public: true and auth: a route is one or the other`);
      auth = 'public';
    } else if (r.public !== undefined) {
      reasons.push(`${at}.public must be true when given`);
    } else if (r.auth === 'staff' || r.auth === 'api_key' || r.auth === 'secret') {
      auth = r.auth;
    } else {
      reasons.push(
        `${at} has no authentication: give auth: 'staff', 'api_key' or 'secret', or say public: true (there is no default: docs/plugins.md, "HTTP routes")`,
      );
    }
    let signatureHeader: string | null = null;
    if (auth === 'secret') {
      const h = typeof r.signature_header === 'string' ? r.signature_header.toLowerCase() : undefined;
      if (h === undefined || !HEADER_NAME.test(h)) reasons.push(`${at}.signature_header must name the request header the handler checks (letters, digits, -)`);
      else if (FORBIDDEN_SIGNATURE_HEADERS.has(h)) reasons.push(`${at}.signature_header may not be ${h}: the instance never gives it to a plugin`);
      else signatureHeader = h;
    } else if (r.signature_header !== undefined) {
      reasons.push(`${at}.signature_header is only for auth: 'secret' routes`);
    }
    if (r.summary !== undefined && (typeof r.summary !== 'string' || r.summary.length > SUMMARY_MAX_CHARS)) {
      reasons.push(`${at}.summary must be text of at most ${SUMMARY_MAX_CHARS} characters`);
    }
    const schema = (key: 'request_schema' | 'response_schema') => {
      const s = r[key];
      if (s === undefined) return null;
      if (!isRecord(s) || JSON.stringify(s).length > SCHEMA_MAX_CHARS) {
        reasons.push(`${at}.${key} must be a JSON Schema object of at most ${SCHEMA_MAX_CHARS / 1024} KiB`);
        return null;
      }
      return s;
    };
    const requestSchema = schema('request_schema');
    const responseSchema = schema('response_schema');
    if (reasons.length > before || method === undefined || segments === undefined || auth === undefined) return;
    routes.push({
      handler,
      method: method as RouteMethod,
      path: pathOf(segments),
      segments,
      auth,
      signatureHeader,
      summary: typeof r.summary === 'string' ? r.summary : null,
      requestSchema,
      responseSchema,
    });
  });
  return { routes, reasons };
}

function parsePath(path: unknown, at: string, reasons: string[]): DeclaredRoute['segments'] | undefined {
  if (typeof path !== 'string' || !path.startsWith('/') || path.length > MAX_ROUTE_PATH_CHARS) {
    reasons.push(`${at} must be a path pattern starting with / of at most ${MAX_ROUTE_PATH_CHARS} characters`);
    return undefined;
  }
  const parts = path === '/' ? [] : path.replace(/\/$/, '').slice(1).split('/');
  const segments: DeclaredRoute['segments'] = [];
  const params = new Set<string>();
  for (const part of parts) {
    const param = PARAM_SEGMENT.exec(part);
    if (param !== null) {
      if (params.has(param[1]!)) {
        reasons.push(`${at} names the parameter :${param[1]} twice`);
        return undefined;
      }
      params.add(param[1]!);
      segments.push({ param: param[1]! });
    } else if (LITERAL_SEGMENT.test(part)) segments.push(part);
    else {
      reasons.push(`${at} has a segment ${JSON.stringify(part.slice(0, 40))}: use letters, digits, . _ ~ - or :name`);
      return undefined;
    }
  }
  return segments;
}

const pathOf = (segments: DeclaredRoute['segments']) => '/' + segments.map((s) => (typeof s === 'string' ? s : `:${s.param}`)).join('/');
/** Two patterns that match the same paths: the same literals at the same places, parameters at the same places. */
const shapeOf = (r: DeclaredRoute) => `${r.method} /${r.segments.map((s) => (typeof s === 'string' ? s : ':')).join('/')}`;

/** Every route of a plugin claimed once: the reasons for those claimed twice (by one class or two). */
export function routeClashes(routes: DeclaredRoute[]): string[] {
  const reasons: string[] = [];
  const seen = new Map<string, DeclaredRoute>();
  for (const r of routes) {
    const earlier = seen.get(shapeOf(r));
    if (earlier !== undefined) {
      reasons.push(
        `${r.handler} declares ${r.method} ${r.path}, which ${earlier.handler} already claims as ${earlier.method} ${earlier.path}: a route is served by one handler`,
      );
    } else seen.set(shapeOf(r), r);
  }
  if (routes.length > MAX_ROUTES_PER_PLUGIN) reasons.push(`the plugin declares ${routes.length} routes; at most ${MAX_ROUTES_PER_PLUGIN}`);
  return reasons;
}

/** A SCHEDULE: five fields, minute to day of week, UTC, as cron-parser reads them; or why not. */
export function parseSchedule(handler: string, text: string, where: string): { schedule: DeclaredSchedule | null; reasons: string[] } {
  const fields = text.trim().split(/\s+/);
  if (text.trim() === '' || fields.length !== 5) {
    return {
      schedule: null,
      reasons: [`${where}: SCHEDULE ${JSON.stringify(text.slice(0, 60))} must be five fields (minute hour day-of-month month day-of-week), UTC`],
    };
  }
  const schedule = fields.join(' ');
  try {
    CronExpressionParser.parse(schedule, { tz: 'UTC' });
  } catch (err) {
    return {
      schedule: null,
      reasons: [`${where}: SCHEDULE ${JSON.stringify(schedule)} is not a cron expression: ${err instanceof Error ? err.message : String(err)}`],
    };
  }
  return { schedule: { handler, schedule }, reasons: [] };
}

/** The latest tick of the schedule at or before `at`, and the next one after it (ms since the epoch). */
export function ticksAround(schedule: string, at: number): { latest: number; next: number } {
  // prev() is strictly before currentDate: one millisecond past `at` includes a tick at `at` itself.
  const latest = CronExpressionParser.parse(schedule, { tz: 'UTC', currentDate: new Date(at + 1) })
    .prev()
    .getTime();
  const next = CronExpressionParser.parse(schedule, { tz: 'UTC', currentDate: new Date(at) })
    .next()
    .getTime();
  return { latest, next };
}

/**
 * One handler's routes and schedule from what the sandbox found on its class, against the events
 * its manifest entry lists: a class that declares ROUTES must be given SIMPLE_API_REQUEST, one with
 * a SCHEDULE CRON, and the other way round.
 */
export function handlerSurface(
  handler: string,
  events: readonly string[],
  found: { routes?: string; schedule?: string },
  where: string,
): { routes: DeclaredRoute[]; schedule: DeclaredSchedule | null; reasons: string[] } {
  const reasons: string[] = [];
  let routes: DeclaredRoute[] = [];
  let schedule: DeclaredSchedule | null = null;
  const wantsRoutes = events.includes(ROUTE_EVENT);
  const wantsTicks = events.includes(TICK_EVENT);
  if (found.routes !== undefined) {
    if (!wantsRoutes) reasons.push(`${where}: the class declares ROUTES but its events do not list ${ROUTE_EVENT}, so no request could reach it`);
    const parsed = parseRoutes(handler, found.routes, where);
    routes = parsed.routes;
    reasons.push(...parsed.reasons);
  } else if (wantsRoutes) reasons.push(`${where}: its events list ${ROUTE_EVENT} but the class declares no ROUTES (extend RouteHandler)`);
  if (found.schedule !== undefined) {
    if (!wantsTicks) reasons.push(`${where}: the class declares a SCHEDULE but its events do not list ${TICK_EVENT}, so it would never run`);
    const parsed = parseSchedule(handler, found.schedule, where);
    schedule = parsed.schedule;
    reasons.push(...parsed.reasons);
  } else if (wantsTicks) reasons.push(`${where}: its events list ${TICK_EVENT} but the class declares no SCHEDULE (extend ScheduledHandler)`);
  return { routes, schedule, reasons };
}

/** The routes and schedules of a plugin as stored with it and shown by the plugin API (docs/api.md, "Plugins"). */
export interface PluginSurface {
  routes: Array<Omit<DeclaredRoute, 'segments' | 'requestSchema' | 'responseSchema'> & { request_schema?: unknown; response_schema?: unknown }>;
  schedules: DeclaredSchedule[];
}

export function storedSurface(routes: DeclaredRoute[], schedules: DeclaredSchedule[]): PluginSurface {
  return {
    routes: routes.map(({ segments: _s, requestSchema, responseSchema, ...r }) => ({
      ...r,
      ...(requestSchema === null ? {} : { request_schema: requestSchema }),
      ...(responseSchema === null ? {} : { response_schema: responseSchema }),
    })),
    schedules,
  };
}
