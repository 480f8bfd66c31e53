// charta-server create-client (docs/configuration.md, "Subcommands"): an OAuth client for the
// client credentials grant, bound to a staff user. The secret is returned once and stored only as a hash.
import type { Storage } from '../storage/db.ts';
import { insertClient } from '../storage/auth-repository.ts';
import { hashPassword } from '../lib/secrets.ts';
import { newSecret } from '../lib/ids.ts';
import { nowMicros } from '../lib/time.ts';
import { defaultStaff } from './staff.ts';

export const DEFAULT_CLIENT_SCOPES = 'user/*.* system/Plugins.*';

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
