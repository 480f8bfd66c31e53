// The instance's cache store (docs/plugins.md, "Cache"): a plugin's entries as rows of
// plugin_cache; a write counts the plugin's live rows and writes in one transaction, the plugin's
// row locked on PostgreSQL, so two writes at once cannot pass the 1 MiB together. The binding and
// its checks are cache.ts's (a plugin's tests use them over memory).
import type { Storage } from '../storage/db.ts';
import { getPluginForUpdate } from '../storage/plugins-repository.ts';
import { cacheSize, deleteCacheValue, deleteExpiredCache, getCacheValue, putCacheValue } from '../storage/plugin-cache-repository.ts';
import type { Bindings } from './bindings.ts';
import { CACHE_BINDING, cacheBinding, room, type CacheStore } from './cache.ts';

export function databaseCache(storage: Storage): CacheStore {
  return {
    get: async (plugin, key, now) => (await getCacheValue(storage.reader, plugin, key, now))?.value,
    set: (plugin, entry, now) =>
      storage.transact(async (trx) => {
        await getPluginForUpdate(trx, storage.engine, plugin);
        await deleteExpiredCache(trx, plugin, now);
        room(await cacheSize(trx, plugin, now, entry.key), entry.size);
        await putCacheValue(trx, { plugin_name: plugin, key: entry.key, value: entry.value, size: entry.size, expires_at: entry.expiresAt, updated_at: now });
      }),
    delete: (plugin, key, now) => storage.transact((trx) => deleteCacheValue(trx, plugin, key, now)),
  };
}

export function registerCache(bindings: Bindings, storage: Storage): void {
  bindings.register(CACHE_BINDING, cacheBinding(databaseCache(storage)));
}
