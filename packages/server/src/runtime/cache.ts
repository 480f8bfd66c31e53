// A plugin's cache (docs/plugins.md, "Cache"): the `cache` binding behind `this.cache` in the
// sandbox, as the original platform's get_cache() gives its plugins, bounded: JSON values by key,
// at most 64 KiB of JSON each and 1 MiB per plugin (keys and values), an optional time to live;
// on an instance stored in its database (cache-database.ts), so every process sees the same, and
// deleted with the plugin (plugins/delete.ts); a plugin's tests get the same binding over a cache
// in memory (runtime/local.ts). A PRE
// handler may read the cache but not write it: its change's write transaction is open (on SQLite
// it holds the only writer). Refusals are typed errors inside the sandbox, like this.data's.
import { CACHE_KEY_MAX_CHARS, CACHE_PLUGIN_MAX_CHARS, CACHE_TTL_MAX_SECONDS, CACHE_VALUE_MAX_CHARS, type DataErrorCode } from '@charta/api/constants';
import { storageErrorOf, DatabaseUnavailableError } from '../storage/errors.ts';
import { nowMicros } from '../lib/time.ts';
import type { Binding } from './bindings.ts';
import type { JsonObject, JsonValue } from './sandbox/types.ts';

/** The binding's name: `__charta_binding('cache', {op, key, value?, ttl?})`. */
export const CACHE_BINDING = 'cache';

class CacheRefusal extends Error {
  constructor(
    readonly code: DataErrorCode,
    message: string,
  ) {
    super(message);
  }
}

const refusal = (code: DataErrorCode, message: string): JsonObject => ({ error: { code, message } });

function keyOf(args: JsonObject): string {
  const key = args.key;
  if (typeof key !== 'string' || key.length === 0 || key.length > CACHE_KEY_MAX_CHARS) {
    throw new CacheRefusal('invalid', `a cache key is a string of 1 to ${CACHE_KEY_MAX_CHARS} characters`);
  }
  return key;
}

/** The expiry of a set with `ttl` seconds (a positive integer up to 30 days), or null for none. */
function expiryOf(ttl: JsonValue | undefined, now: number): number | null {
  if (ttl === undefined || ttl === null) return null;
  if (typeof ttl !== 'number' || !Number.isInteger(ttl) || ttl < 1 || ttl > CACHE_TTL_MAX_SECONDS) {
    throw new CacheRefusal('invalid', `ttl is a whole number of seconds from 1 to ${CACHE_TTL_MAX_SECONDS} (30 days)`);
  }
  return now + ttl * 1_000_000;
}

/** Where a plugin's cache lives: the instance's database, or memory (a plugin's tests: runtime/local.ts). Values are JSON text. */
export interface CacheStore {
  get(plugin: string, key: string, now: number): Promise<string | undefined>;
  /** Stores the entry unless the plugin's other live entries and it pass the 1 MiB (room() says how it refuses). */
  set(plugin: string, entry: { key: string; value: string; size: number; expiresAt: number | null }, now: number): Promise<void>;
  delete(plugin: string, key: string, now: number): Promise<boolean>;
}

/** Refuses an entry of `size` beside `others` characters of the plugin's live entries, past the 1 MiB. */
export function room(others: number, size: number): void {
  if (others + size > CACHE_PLUGIN_MAX_CHARS) {
    throw new CacheRefusal(
      'cache_full',
      `the plugin's cache holds ${others} of its ${CACHE_PLUGIN_MAX_CHARS} characters; this entry needs ${size} (delete some, or set a ttl)`,
    );
  }
}

/** In memory, with the same limits (a plugin's tests, `charta plugin test` and `run`). */
export function memoryCacheStore(): CacheStore {
  const plugins = new Map<string, Map<string, { value: string; size: number; expiresAt: number | null }>>();
  const entriesOf = (plugin: string, now: number) => {
    let entries = plugins.get(plugin);
    if (entries === undefined) plugins.set(plugin, (entries = new Map()));
    for (const [key, e] of entries) if (e.expiresAt !== null && e.expiresAt <= now) entries.delete(key);
    return entries;
  };
  return {
    get: async (plugin, key, now) => entriesOf(plugin, now).get(key)?.value,
    set: async (plugin, entry, now) => {
      const entries = entriesOf(plugin, now);
      let others = 0;
      for (const [key, e] of entries) if (key !== entry.key) others += e.size;
      room(others, entry.size);
      entries.set(entry.key, { value: entry.value, size: entry.size, expiresAt: entry.expiresAt });
    },
    delete: async (plugin, key, now) => entriesOf(plugin, now).delete(key),
  };
}

/** The `cache` binding over a store: every argument checked, every refusal a typed error. */
export function cacheBinding(store: CacheStore): Binding {
  return async (plugin, args, call) => {
    if (call === undefined || call.handler.plugin !== plugin)
      return refusal('failed', 'the cache is answered only while one of the plugin’s handler calls runs');
    if (typeof args !== 'object' || args === null || Array.isArray(args)) return refusal('invalid', 'a cache call is {op, key, …}');
    try {
      const key = keyOf(args);
      const now = nowMicros();
      switch (args.op) {
        case 'get': {
          const value = await store.get(plugin, key, now);
          return { value: value === undefined ? null : (JSON.parse(value) as JsonValue) };
        }
        case 'set': {
          if (call.pre) throw new CacheRefusal('not_allowed', 'a PRE handler may read the cache, not write it (its change is being written)');
          if (!('value' in args) || args.value === undefined) throw new CacheRefusal('invalid', 'set needs a value (JSON); delete removes a key');
          const value = JSON.stringify(args.value);
          if (value.length > CACHE_VALUE_MAX_CHARS) {
            throw new CacheRefusal('too_large', `a cached value is at most ${CACHE_VALUE_MAX_CHARS} characters of JSON; this one has ${value.length}`);
          }
          await store.set(plugin, { key, value, size: key.length + value.length, expiresAt: expiryOf(args.ttl, now) }, now);
          return { value: null };
        }
        case 'delete': {
          if (call.pre) throw new CacheRefusal('not_allowed', 'a PRE handler may read the cache, not write it (its change is being written)');
          return { value: await store.delete(plugin, key, now) };
        }
        default:
          return refusal('invalid', 'op is get, set or delete');
      }
    } catch (err) {
      if (err instanceof CacheRefusal) return refusal(err.code, err.message);
      // Nothing of the server's reaches the plugin but what happened.
      if (storageErrorOf(err) instanceof DatabaseUnavailableError) return refusal('database_unavailable', 'the database is unavailable');
      return refusal('failed', 'the cache call failed');
    }
  };
}
