// A plugin's cache (docs/plugins.md, "Cache"): JSON values by key, per plugin, with an optional
// expiry, in the database so every process sees the same; `size` (the key's and the value's
// characters) is what the plugin's 1 MiB counts.
import type { Kysely } from 'kysely';
import type { Engine } from '../db.ts';

export async function up(db: Kysely<unknown>, _engine: Engine): Promise<void> {
  await db.schema
    .createTable('plugin_cache')
    .addColumn('plugin_name', 'text', (c) => c.notNull())
    .addColumn('key', 'text', (c) => c.notNull())
    .addColumn('value', 'text', (c) => c.notNull())
    .addColumn('size', 'integer', (c) => c.notNull())
    /** Microseconds; null: kept until deleted or replaced. */
    .addColumn('expires_at', 'bigint')
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('plugin_cache_pk', ['plugin_name', 'key'])
    .execute();
}
