// A plugin's cache (docs/plugins.md, "Cache"): rows by plugin and key; a row past its expiry is
// as good as gone (never answered, not counted) and is removed by the plugin's next write.
import { sql, type Kysely } from 'kysely';
import type { Database, PluginCacheTable } from './schema.ts';

type Db = Kysely<Database>;

const live = (now: number) => sql<boolean>`(expires_at is null or expires_at > ${now})`;

/** The value of the key, unless it expired. */
export const getCacheValue = (db: Db, plugin: string, key: string, now: number) =>
  db.selectFrom('plugin_cache').select(['value']).where('plugin_name', '=', plugin).where('key', '=', key).where(live(now)).executeTakeFirst();

/** Characters the plugin's live rows hold, but for `except` (the key being replaced). */
export async function cacheSize(db: Db, plugin: string, now: number, except: string): Promise<number> {
  const row = await db
    .selectFrom('plugin_cache')
    .select((eb) => eb.fn.coalesce(eb.fn.sum<number>('size'), sql<number>`0`).as('n'))
    .where('plugin_name', '=', plugin)
    .where('key', '<>', except)
    .where(live(now))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Removes the plugin's expired rows. */
export const deleteExpiredCache = (db: Db, plugin: string, now: number) =>
  db.deleteFrom('plugin_cache').where('plugin_name', '=', plugin).where('expires_at', 'is not', null).where('expires_at', '<=', now).execute();

/** Writes the key's value (replacing it). */
export const putCacheValue = (db: Db, row: PluginCacheTable) =>
  db
    .insertInto('plugin_cache')
    .values(row)
    .onConflict((oc) =>
      oc.columns(['plugin_name', 'key']).doUpdateSet({ value: row.value, size: row.size, expires_at: row.expires_at, updated_at: row.updated_at }),
    )
    .execute();

/** Removes the key; whether a live value was there. */
export async function deleteCacheValue(db: Db, plugin: string, key: string, now: number): Promise<boolean> {
  const had = (await getCacheValue(db, plugin, key, now)) !== undefined;
  await db.deleteFrom('plugin_cache').where('plugin_name', '=', plugin).where('key', '=', key).execute();
  return had;
}

/** Every row of the plugin (it is deleted). */
export const deletePluginCache = (db: Db, plugin: string) => db.deleteFrom('plugin_cache').where('plugin_name', '=', plugin).execute();
