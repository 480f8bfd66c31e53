// Creating credentials: staff users, API keys, OAuth clients, and the bootstrap variables.
// Every secret is returned once to the caller and stored only as a hash.
import type { Storage } from '../storage/db.ts';
import { firstStaff, getClient, insertApiKey, insertClient, insertStaff, findApiKeyByHash, updateClientSecret } from '../storage/auth-repository.ts';
import { digest, hashPassword, verifyPassword } from '../lib/secrets.ts';
import { newKey, newSecret, newUuid } from '../lib/ids.ts';
import { nowMicros } from '../lib/time.ts';
import { PLUGIN_SCOPE } from './principal.ts';

export const DEFAULT_CLIENT_SCOPES = 'user/*.* system/Plugins.*';
export const DEFAULT_API_KEY_SCOPES = `${PLUGIN_SCOPE} admin`;

export async function createStaff(storage: Storage, name: string): Promise<string> {
  const key = newKey();
  await insertStaff(storage.db, { key, name, created_at: nowMicros() });
  return key;
}

/** The staff user credentials act for when none is named: the first one, made on demand. */
export async function defaultStaff(storage: Storage): Promise<string> {
  return (await firstStaff(storage.db))?.key ?? createStaff(storage, 'Charta Administrator');
}

export async function createApiKey(storage: Storage, label: string, value: string = newSecret()): Promise<{ id: string; key: string }> {
  const id = newUuid();
  await insertApiKey(storage.db, {
    id,
    key_hash: digest(value),
    label,
    staff_key: await defaultStaff(storage),
    scopes: DEFAULT_API_KEY_SCOPES,
    created_at: nowMicros(),
  });
  return { id, key: value };
}

export async function createClient(
  storage: Storage,
  options: { name: string; clientId?: string; clientSecret?: string; staffKey?: string },
): Promise<{ clientId: string; clientSecret: string; staffKey: string }> {
  const clientId = options.clientId ?? newSecret().slice(0, 24);
  const clientSecret = options.clientSecret ?? newSecret();
  const staffKey = options.staffKey ?? (await defaultStaff(storage));
  await insertClient(storage.db, {
    client_id: clientId,
    secret_hash: await hashPassword(clientSecret),
    name: options.name,
    staff_key: staffKey,
    scopes: DEFAULT_CLIENT_SCOPES,
    created_at: nowMicros(),
  });
  return { clientId, clientSecret, staffKey };
}

/** CHARTA_BOOTSTRAP_*: make sure these credentials work, on every start, without duplicates. */
export async function ensureBootstrap(
  storage: Storage,
  config: { bootstrapApiKey?: string; bootstrapClientId?: string; bootstrapClientSecret?: string },
): Promise<void> {
  if (config.bootstrapApiKey !== undefined && (await findApiKeyByHash(storage.db, digest(config.bootstrapApiKey))) === undefined) {
    await createApiKey(storage, 'bootstrap', config.bootstrapApiKey);
  }
  if (config.bootstrapClientId !== undefined && config.bootstrapClientSecret !== undefined) {
    const existing = await getClient(storage.db, config.bootstrapClientId);
    if (existing === undefined) {
      await createClient(storage, { name: 'bootstrap', clientId: config.bootstrapClientId, clientSecret: config.bootstrapClientSecret });
    } else if (!(await verifyPassword(config.bootstrapClientSecret, existing.secret_hash))) {
      // The operator rotated the secret in the environment: the environment wins.
      await updateClientSecret(storage.db, config.bootstrapClientId, await hashPassword(config.bootstrapClientSecret));
    }
  }
}
