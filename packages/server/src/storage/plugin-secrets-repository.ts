// The secrets an admin set for a plugin (docs/plugins.md, "Secrets"). Values are stored as set:
// handlers read them, so they cannot be hashed. Only the runtime reads values; listings read names.
import type { Kysely } from 'kysely';
import type { Database } from './schema.ts';

type Db = Kysely<Database>;

/** Sets one secret, replacing its value if it was set. */
export async function setPluginSecret(db: Db, pluginName: string, name: string, value: string, updatedAt: number): Promise<void> {
  await db
    .insertInto('plugin_secrets')
    .values({ plugin_name: pluginName, name, value, updated_at: updatedAt })
    .onConflict((oc) => oc.columns(['plugin_name', 'name']).doUpdateSet({ value, updated_at: updatedAt }))
    .execute();
}

/** Removes one secret; true when it was set. */
export async function removePluginSecret(db: Db, pluginName: string, name: string): Promise<boolean> {
  const result = await db.deleteFrom('plugin_secrets').where('plugin_name', '=', pluginName).where('name', '=', name).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

/** The names set for a plugin and when each was last set, by name (never the values). */
export const listPluginSecretNames = (db: Db, pluginName: string) =>
  db.selectFrom('plugin_secrets').select(['name', 'updated_at']).where('plugin_name', '=', pluginName).orderBy('name').execute();

/** Every value set for a plugin, name → value: for the runtime only, which hands them to the plugin's handlers. */
export async function pluginSecretValues(db: Db, pluginName: string): Promise<Record<string, string>> {
  const rows = await db.selectFrom('plugin_secrets').select(['name', 'value']).where('plugin_name', '=', pluginName).orderBy('name').execute();
  const values: Record<string, string> = {};
  for (const row of rows) values[row.name] = row.value;
  return values;
}

/** Removes every secret of a plugin (its delete). */
export async function removeAllPluginSecrets(db: Db, pluginName: string): Promise<void> {
  await db.deleteFrom('plugin_secrets').where('plugin_name', '=', pluginName).execute();
}
