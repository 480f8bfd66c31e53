// charta-server create-client (docs/configuration.md, "Subcommands") and POST
// /core/api/v1/admin/oauth-clients/ (docs/api.md, "Credentials"): an OAuth client for the client
// credentials grant, bound to a staff user, with an optional expiry. The secret is returned once and
// stored only as a hash.
import type { Kysely } from 'kysely';
import type { Storage } from '../storage/db.ts';
import type { Database } from '../storage/schema.ts';
import { insertClient } from '../storage/auth-repository.ts';
import { hashPassword } from '../lib/secrets.ts';
import { newSecret } from '../lib/ids.ts';
import { nowMicros } from '../lib/time.ts';
import { defaultStaff } from './staff.ts';

export const DEFAULT_CLIENT_SCOPES = 'user/*.* system/Plugins.*';

export async function createClient(
  storage: Storage,
  options: { name: string; clientId?: string; clientSecret?: string; staffKey?: string; expiresAt?: number; db?: Kysely<Database> },
): Promise<{ clientId: string; clientSecret: string; staffKey: string; createdAt: number }> {
  const clientId = options.clientId ?? newSecret().slice(0, 24);
  const clientSecret = options.clientSecret ?? newSecret();
  const staffKey = options.staffKey ?? (await defaultStaff(storage));
  const createdAt = nowMicros();
  await insertClient(options.db ?? storage.db, {
    client_id: clientId,
    secret_hash: await hashPassword(clientSecret),
    name: options.name,
    staff_key: staffKey,
    scopes: DEFAULT_CLIENT_SCOPES,
    created_at: createdAt,
    expires_at: options.expiresAt ?? null,
  });
  return { clientId, clientSecret, staffKey, createdAt };
}
