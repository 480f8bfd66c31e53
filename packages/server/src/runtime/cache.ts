// A plugin's cache (docs/plugins.md, "Cache"): the `cache` binding behind `this.cache` in the
// sandbox, as the original platform's get_cache() gives its plugins, bounded: JSON values by key,
// at most 64 KiB of JSON each and 1 MiB per plugin (keys and values), an optional time to live;
// stored in the database, so every process of the instance sees the same, and deleted with the
// plugin (plugins/delete.ts). A write counts the plugin's live rows in its own transaction, the
// plugin's row locked on PostgreSQL, so two writes at once cannot pass the 1 MiB together. A PRE
// handler may read the cache but not write it: its change's write transaction is open (on SQLite
// it holds the only writer). Refusals are typed errors inside the sandbox, like this.data's.
import { CACHE_KEY_MAX_CHARS, CACHE_PLUGIN_MAX_CHARS, CACHE_TTL_MAX_SECONDS, CACHE_VALUE_MAX_CHARS, type DataErrorCode } from '@charta/api/constants';
import type { Storage } from '../storage/db.ts';
import { getPluginForUpdate } from '../storage/plugins-repository.ts';
import { cacheSize, deleteCacheValue, deleteExpiredCache, getCacheValue, putCacheValue } from '../storage/plugin-cache-repository.ts';
import { storageErrorOf, DatabaseUnavailableError } from '../storage/errors.ts';
import { nowMicros } from '../lib/time.ts';
import type { Bindings } from './bindings.ts';
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

export function registerCache(bindings: Bindings, storage: Storage): void {
  bindings.register(CACHE_BINDING, async (plugin, args, call) => {
    if (call === undefined || call.handler.plugin !== plugin)
      return refusal('failed', 'the cache is answered only while one of the plugin’s handler calls runs');
    if (typeof args !== 'object' || args === null || Array.isArray(args)) return refusal('invalid', 'a cache call is {op, key, …}');
    try {
      const key = keyOf(args);
      const now = nowMicros();
      switch (args.op) {
        case 'get': {
          const row = await getCacheValue(storage.reader, plugin, key, now);
          return { value: row === undefined ? null : (JSON.parse(row.value) as JsonValue) };
        }
        case 'set': {
          if (call.pre) throw new CacheRefusal('not_allowed', 'a PRE handler may read the cache, not write it (its change is being written)');
          if (!('value' in args) || args.value === undefined) throw new CacheRefusal('invalid', 'set needs a value (JSON); delete removes a key');
          const value = JSON.stringify(args.value);
          if (value.length > CACHE_VALUE_MAX_CHARS) {
            throw new CacheRefusal('too_large', `a cached value is at most ${CACHE_VALUE_MAX_CHARS} characters of JSON; this one has ${value.length}`);
          }
          const expiresAt = expiryOf(args.ttl, now);
          const size = key.length + value.length;
          await storage.transact(async (trx) => {
            await getPluginForUpdate(trx, storage.engine, plugin);
            await deleteExpiredCache(trx, plugin, now);
            const others = await cacheSize(trx, plugin, now, key);
            if (others + size > CACHE_PLUGIN_MAX_CHARS) {
              throw new CacheRefusal(
                'cache_full',
                `the plugin's cache holds ${others} of its ${CACHE_PLUGIN_MAX_CHARS} characters; this entry needs ${size} (delete some, or set a ttl)`,
              );
            }
            await putCacheValue(trx, { plugin_name: plugin, key, value, size, expires_at: expiresAt, updated_at: now });
          });
          return { value: null };
        }
        case 'delete': {
          if (call.pre) throw new CacheRefusal('not_allowed', 'a PRE handler may read the cache, not write it (its change is being written)');
          const had = await storage.transact((trx) => deleteCacheValue(trx, plugin, key, now));
          return { value: had };
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
  });
}
