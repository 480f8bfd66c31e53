// The secrets an admin set for a plugin (docs/plugins.md, "Secrets"). Handlers must read the values,
// so they cannot be hashed: they are sealed here with the instance's key before they are written
// and opened here only for the runtime, which hands them to the plugin (docs/operations.md, "Sealed
// secrets"). Each is sealed with its plugin and name as authenticated data, so a sealed value
// copied to another row does not open. Listings read names only.
import type { Kysely } from 'kysely';
import type { Database } from './schema.ts';
import { UnsealError, type Keyring } from '../lib/sealing.ts';

type Db = Kysely<Database>;

/** What a value is bound to: the table, its plugin and its name (NUL cannot be in either). */
const contextOf = (pluginName: string, name: string) => `plugin_secrets\0${pluginName}\0${name}`;

/** A stored secret that cannot be opened: the plugin, the secret's name and why, never a value. */
export class SecretUnreadableError extends Error {
  constructor(
    readonly pluginName: string,
    readonly secretName: string,
    readonly reason: 'unknown-key' | 'broken' | 'not-sealed',
    why: string,
  ) {
    super(`the secret ${secretName} of plugin ${pluginName} cannot be opened: ${why}`);
  }
}

/** Sets one secret, sealed with the keyring's sealing key, replacing its value if it was set. */
export async function setPluginSecret(db: Db, keyring: Keyring, pluginName: string, name: string, value: string, updatedAt: number): Promise<void> {
  const { keyId, sealed } = keyring.seal(value, contextOf(pluginName, name));
  await db
    .insertInto('plugin_secrets')
    .values({ plugin_name: pluginName, name, value: sealed, key_id: keyId, updated_at: updatedAt })
    .onConflict((oc) => oc.columns(['plugin_name', 'name']).doUpdateSet({ value: sealed, key_id: keyId, updated_at: updatedAt }))
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

interface StoredSecret {
  plugin_name: string;
  name: string;
  value: string;
  key_id: string | null;
}

function open(keyring: Keyring, row: StoredSecret): string {
  if (row.key_id === null) {
    // Only a version before migration 017 writes these, and every start seals them: one seen here
    // was written behind this process's back, and is not trusted as the plugin's.
    throw new SecretUnreadableError(row.plugin_name, row.name, 'not-sealed', 'it is stored in plaintext, not sealed (a start of the instance seals it)');
  }
  try {
    return keyring.open(row.key_id, row.value, contextOf(row.plugin_name, row.name));
  } catch (err) {
    if (err instanceof UnsealError) throw new SecretUnreadableError(row.plugin_name, row.name, err.reason, err.message);
    throw err;
  }
}

/**
 * Every value set for a plugin, name → value, opened: for the runtime only, which hands them to the
 * plugin's handlers. Throws SecretUnreadableError for a value that cannot be opened (never garbage).
 */
export async function pluginSecretValues(db: Db, keyring: Keyring, pluginName: string): Promise<Record<string, string>> {
  const rows = await db
    .selectFrom('plugin_secrets')
    .select(['plugin_name', 'name', 'value', 'key_id'])
    .where('plugin_name', '=', pluginName)
    .orderBy('name')
    .execute();
  const values: Record<string, string> = {};
  for (const row of rows) values[row.name] = open(keyring, row);
  return values;
}

/** Removes every secret of a plugin (its delete). */
export async function removeAllPluginSecrets(db: Db, pluginName: string): Promise<void> {
  await db.deleteFrom('plugin_secrets').where('plugin_name', '=', pluginName).execute();
}

/** How many secrets each key sealed (key id null: plaintext of an earlier version), for the start's check. */
export async function secretCountsByKey(db: Db): Promise<Map<string | null, number>> {
  const rows = await db
    .selectFrom('plugin_secrets')
    .select((eb) => ['key_id', eb.fn.countAll<number | string>().as('n')])
    .groupBy('key_id')
    .execute();
  return new Map(rows.map((r) => [r.key_id, Number(r.n)]));
}

/**
 * Seals, with the keyring's sealing key, every value stored in plaintext by a version before
 * migration 017; the number sealed. Each row is changed only while it is still plaintext, so two
 * processes doing this at once seal each value once. Run it in one transaction.
 */
export async function sealPlaintextSecrets(trx: Db, keyring: Keyring): Promise<number> {
  const rows = await trx.selectFrom('plugin_secrets').select(['plugin_name', 'name', 'value']).where('key_id', 'is', null).execute();
  let sealed = 0;
  for (const row of rows) {
    const { keyId, sealed: value } = keyring.seal(row.value, contextOf(row.plugin_name, row.name));
    const result = await trx
      .updateTable('plugin_secrets')
      .set({ value, key_id: keyId })
      .where('plugin_name', '=', row.plugin_name)
      .where('name', '=', row.name)
      .where('key_id', 'is', null)
      .executeTakeFirst();
    sealed += Number(result.numUpdatedRows);
  }
  return sealed;
}

/**
 * Seals again, with the keyring's sealing key, every value sealed with another key of the keyring
 * (and any plaintext left): `charta-server rotate-secret-key`. Throws SecretUnreadableError, naming
 * the first value that cannot be opened, before the caller's transaction commits anything. The
 * number sealed again; `updated_at` is left alone (the values did not change).
 */
export async function resealSecrets(trx: Db, keyring: Keyring): Promise<number> {
  const target = keyring.sealing.id;
  const rows = await trx
    .selectFrom('plugin_secrets')
    .select(['plugin_name', 'name', 'value', 'key_id'])
    .where((eb) => eb.or([eb('key_id', 'is', null), eb('key_id', '!=', target)]))
    .orderBy('plugin_name')
    .orderBy('name')
    .execute();
  for (const row of rows) {
    const plaintext = row.key_id === null ? row.value : open(keyring, row);
    const { keyId, sealed } = keyring.seal(plaintext, contextOf(row.plugin_name, row.name));
    let update = trx
      .updateTable('plugin_secrets')
      .set({ value: sealed, key_id: keyId })
      .where('plugin_name', '=', row.plugin_name)
      .where('name', '=', row.name);
    update = row.key_id === null ? update.where('key_id', 'is', null) : update.where('key_id', '=', row.key_id);
    await update.execute();
  }
  return rows.length;
}
