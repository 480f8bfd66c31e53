// A plugin's handlers extend BaseHandler: RESPONDS_TO names the events, compute() turns one
// event into effects. The instance constructs one handler per event with the plugin's secrets
// and a logger whose lines reach `charta logs` tagged with the plugin's name.
import type { Effect } from './effects.ts';
import type { EventName, PluginEvent } from './events.ts';
import type { LogLevel } from '@charta/api/constants';
import type { DataErrorShape, DataReader, PluginCache } from '@charta/api';

export type { DataErrorShape, DataPage, DataReader, PatientChart, ChartEntry, CommandsQuery, NotesQuery, PluginCache } from '@charta/api';

export { LOG_LEVELS, type LogLevel } from '@charta/api/constants';
import { REFERENCE_CATALOGUE_NAMES } from '@charta/api/constants';

/**
 * `this.log`: each call is one line on the instance's log stream (`charta logs`), tagged with the
 * plugin, the handler and the event. A message that is not a string is turned into text; the
 * instance cuts a message at 4096 characters and keeps at most 100 lines of one call
 * (docs/plugins.md, "Limits and their defaults").
 */
export type Logger = Record<LogLevel, (message: string) => void>;

/** `this.secrets`: the values an admin set for the names the manifest's `secrets` declares (a name with no value is absent). */
export type Secrets = Readonly<Record<string, string>>;

export abstract class BaseHandler<E extends EventName = EventName> {
  /** The events this handler is given; list them in the manifest's `events` too. */
  static readonly RESPONDS_TO: readonly EventName[] = [];

  constructor(
    readonly event: PluginEvent<E>,
    readonly secrets: Secrets = {},
    readonly log: Logger = silentLogger(),
    /**
     * `this.data`: reads of the record, within what the manifest's `data` declares (docs/plugins.md,
     * "Reading the record"). Outside the instance (a plain test), every read is refused unless a
     * reader is given.
     */
    readonly data: DataReader = noData(),
    /**
     * `this.cache`: JSON values by key, kept by the instance for this plugin (docs/plugins.md,
     * "Cache"). Outside the instance, a cache in memory unless one is given.
     */
    readonly cache: PluginCache = memoryCache(),
  ) {}

  /** Whether compute() should run for this event; narrow the events further by overriding it. */
  acceptEvent(): boolean {
    return true;
  }

  /** The effects for this event; an empty list when there is nothing to do. */
  abstract compute(): Effect[] | Promise<Effect[]>;
}

/** The class of a handler, as the instance (or a test) sees it. */
export interface HandlerClass<E extends EventName = EventName> {
  readonly RESPONDS_TO: readonly EventName[];
  new (event: PluginEvent<E>, secrets?: Secrets, log?: Logger, data?: DataReader, cache?: PluginCache): BaseHandler<E>;
}

/**
 * Runs one handler class on one event as the instance does: only for the events it responds to,
 * only when acceptEvent() agrees; returns its effects.
 */
export async function runHandler<E extends EventName>(
  Handler: HandlerClass<E>,
  event: PluginEvent<E>,
  options: { secrets?: Secrets; log?: Logger; data?: DataReader; cache?: PluginCache } = {},
): Promise<Effect[]> {
  if (!Handler.RESPONDS_TO.includes(event.type)) return [];
  const handler = new Handler(event, options.secrets ?? {}, options.log ?? silentLogger(), options.data ?? noData(), options.cache ?? memoryCache());
  if (!handler.acceptEvent()) return [];
  return (await handler.compute()) ?? [];
}

export function silentLogger(): Logger {
  const nothing = (): void => {};
  return { debug: nothing, info: nothing, warning: nothing, error: nothing };
}

/** A logger that keeps its lines, for tests: `const log = recordingLogger(); … log.lines`. */
export function recordingLogger(): Logger & { lines: { level: LogLevel; message: string }[] } {
  const lines: { level: LogLevel; message: string }[] = [];
  const at = (level: LogLevel) => (message: string) => void lines.push({ level, message });
  return { lines, debug: at('debug'), info: at('info'), warning: at('warning'), error: at('error') };
}

/** Whether a value is the error a refused read throws (check `code`: out_of_scope, budget_exceeded, invalid, not_found…). */
export function isDataError(value: unknown): value is DataErrorShape {
  return value instanceof Error && value.name === 'DataError' && typeof (value as { code?: unknown }).code === 'string';
}

/** A reader that refuses every read: the default outside the instance. */
export function noData(): DataReader {
  const refuse = (): Promise<never> => {
    const error = Object.assign(new Error('no record to read here: pass a data reader (runHandler options.data)'), { name: 'DataError', code: 'failed' });
    return Promise.reject(error);
  };
  return {
    patients: { get: refuse, metadata: refuse },
    notes: { get: refuse, list: refuse },
    commands: { get: refuse, list: refuse },
    chart: { get: refuse },
    terminology: { lookup: refuse, search: refuse },
    reference: Object.fromEntries(REFERENCE_CATALOGUE_NAMES.map((name) => [name, { list: refuse, get: refuse }])) as unknown as DataReader['reference'],
  };
}

/**
 * A cache in memory, for tests: values kept as JSON (so what the instance would refuse, a value
 * that is not JSON, fails here too), a ttl honoured against Date.now().
 */
export function memoryCache(): PluginCache {
  const entries = new Map<string, { json: string; expiresAt: number | null }>();
  const live = (key: string) => {
    const entry = entries.get(key);
    if (entry !== undefined && entry.expiresAt !== null && entry.expiresAt <= Date.now()) entries.delete(key);
    return entries.get(key);
  };
  return {
    get: async <T>(key: string) => {
      const entry = live(key);
      return entry === undefined ? null : (JSON.parse(entry.json) as T);
    },
    set: async (key, value, options = {}) => {
      const json = JSON.stringify(value);
      if (json === undefined) throw new TypeError('a cached value must be JSON');
      entries.set(key, { json, expiresAt: options.ttl === undefined ? null : Date.now() + options.ttl * 1000 });
    },
    delete: async (key) => {
      const had = live(key) !== undefined;
      entries.delete(key);
      return had;
    },
  };
}
