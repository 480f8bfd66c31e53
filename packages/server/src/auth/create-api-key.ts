// charta-server create-api-key (docs/configuration.md, "Subcommands"): an admin API key for the
// plugin tool, acting for the default staff user. The key is returned once and stored only as a hash.
import type { Storage } from '../storage/db.ts';
import { insertApiKey } from '../storage/auth-repository.ts';
import { digest } from '../lib/secrets.ts';
import { newSecret, newUuid } from '../lib/ids.ts';
import { nowMicros } from '../lib/time.ts';
import { PLUGIN_SCOPE } from './principal.ts';
import { defaultStaff } from './staff.ts';

export const DEFAULT_API_KEY_SCOPES = `${PLUGIN_SCOPE} admin`;

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
