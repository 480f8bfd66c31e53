// charta-server create-api-key (docs/configuration.md, "Subcommands") and POST
// /core/api/v1/admin/api-keys/ (docs/api.md, "Credentials"): an API key acting for the default staff
// user, admin by default, with an optional expiry. The key is returned once and stored only as a hash.
import type { Kysely } from 'kysely';
import type { Storage } from '../storage/db.ts';
import type { Database } from '../storage/schema.ts';
import { insertApiKey } from '../storage/auth-repository.ts';
import { digest } from '../lib/secrets.ts';
import { newSecret, newUuid } from '../lib/ids.ts';
import { nowMicros } from '../lib/time.ts';
import { PLUGIN_SCOPE } from './principal.ts';
import { ADMIN_SCOPE } from './admin.ts';
import { defaultStaff } from './staff.ts';

export const DEFAULT_API_KEY_SCOPES = `${PLUGIN_SCOPE} ${ADMIN_SCOPE}`;

export interface ApiKeyOptions {
  value?: string;
  scopes?: string;
  /** Microseconds; undefined: never expires. */
  expiresAt?: number;
  /** The staff user it acts for; the default one otherwise (looked up on storage.db: give it when inserting in a transaction). */
  staffKey?: string | null;
  /** Where to insert (a write transaction); storage.db otherwise. */
  db?: Kysely<Database>;
}

export async function createApiKey(storage: Storage, label: string, options: ApiKeyOptions = {}): Promise<{ id: string; key: string; createdAt: number }> {
  const id = newUuid();
  const value = options.value ?? newSecret();
  const createdAt = nowMicros();
  await insertApiKey(options.db ?? storage.db, {
    id,
    key_hash: digest(value),
    label,
    staff_key: options.staffKey !== undefined ? options.staffKey : await defaultStaff(storage),
    scopes: options.scopes ?? DEFAULT_API_KEY_SCOPES,
    created_at: createdAt,
    expires_at: options.expiresAt ?? null,
  });
  return { id, key: value, createdAt };
}
