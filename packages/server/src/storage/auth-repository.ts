// Staff users, API keys, OAuth clients and access tokens. Secrets arrive here already hashed.
import { sql, type Kysely } from 'kysely';
import type { ApiKeyTable, Database, OAuthClientTable, StaffTable } from './schema.ts';

type Db = Kysely<Database>;
type Optional<T, K extends keyof T> = Omit<T, K> & Partial<Pick<T, K>>;

export const insertStaff = (db: Db, row: StaffTable) => db.insertInto('staff').values(row).execute();
export const getStaff = (db: Db, key: string) => db.selectFrom('staff').selectAll().where('key', '=', key).executeTakeFirst();
export const firstStaff = (db: Db) => db.selectFrom('staff').selectAll().orderBy('created_at').limit(1).executeTakeFirst();

export const insertApiKey = (db: Db, row: Optional<ApiKeyTable, 'expires_at' | 'revoked_at' | 'last_used_at'>) =>
  db.insertInto('api_keys').values(row).execute();
export const findApiKeyByHash = (db: Db, keyHash: string) => db.selectFrom('api_keys').selectAll().where('key_hash', '=', keyHash).executeTakeFirst();
export const countApiKeys = async (db: Db) =>
  Number(
    (
      await db
        .selectFrom('api_keys')
        .select((eb) => eb.fn.countAll().as('n'))
        .executeTakeFirstOrThrow()
    ).n,
  );

export const insertClient = (db: Db, row: Optional<OAuthClientTable, 'expires_at' | 'revoked_at' | 'last_used_at'>) =>
  db.insertInto('oauth_clients').values(row).execute();
export const getClient = (db: Db, clientId: string) => db.selectFrom('oauth_clients').selectAll().where('client_id', '=', clientId).executeTakeFirst();
export const updateClientSecret = (db: Db, clientId: string, secretHash: string) =>
  db.updateTable('oauth_clients').set({ secret_hash: secretHash }).where('client_id', '=', clientId).execute();

export const insertToken = (db: Db, row: { token_hash: string; client_id: string; staff_key: string; scope: string; expires_at: number; created_at: number }) =>
  db.insertInto('access_tokens').values(row).execute();
/** A token with its client's state (docs/configuration.md, "Credentials"): a revoked or expired client ends its tokens. */
export const findToken = (db: Db, tokenHash: string) =>
  db
    .selectFrom('access_tokens')
    .innerJoin('oauth_clients', 'oauth_clients.client_id', 'access_tokens.client_id')
    .selectAll('access_tokens')
    .select(['oauth_clients.revoked_at as client_revoked_at', 'oauth_clients.expires_at as client_expires_at'])
    .where('token_hash', '=', tokenHash)
    .executeTakeFirst();
export const deleteExpiredTokens = (db: Db, now: number) => db.deleteFrom('access_tokens').where('expires_at', '<', now).execute();

// Credential rotation (docs/operations.md, "Credentials"): listing never selects a secret or its hash.
export const listApiKeys = (db: Db) =>
  db
    .selectFrom('api_keys')
    .select(['id', 'label', 'scopes', 'created_at', 'expires_at', 'revoked_at', 'last_used_at'])
    .orderBy('created_at')
    .orderBy('id')
    .execute();
export const getApiKey = (db: Db, id: string) =>
  db.selectFrom('api_keys').select(['id', 'label', 'scopes', 'created_at', 'expires_at', 'revoked_at', 'last_used_at']).where('id', '=', id).executeTakeFirst();
export const revokeApiKeyRow = (db: Db, id: string, at: number) => db.updateTable('api_keys').set({ revoked_at: at }).where('id', '=', id).execute();
export const listClients = (db: Db) =>
  db
    .selectFrom('oauth_clients')
    .select(['client_id', 'name', 'scopes', 'created_at', 'expires_at', 'revoked_at', 'last_used_at'])
    .orderBy('created_at')
    .orderBy('client_id')
    .execute();
export const getClientView = (db: Db, clientId: string) =>
  db
    .selectFrom('oauth_clients')
    .select(['client_id', 'name', 'scopes', 'created_at', 'expires_at', 'revoked_at', 'last_used_at'])
    .where('client_id', '=', clientId)
    .executeTakeFirst();
export const revokeClientRow = (db: Db, clientId: string, at: number) =>
  db.updateTable('oauth_clients').set({ revoked_at: at }).where('client_id', '=', clientId).execute();
/**
 * The keys and clients revoked after `since` (µs), as principals' credentials (`api_key:<id>`,
 * `client:<id>`): what auth/revocation.ts looks for every second. Both tables hold a row per
 * credential an operator made, so a scan is a few pages.
 */
export async function revokedSince(db: Db, since: number): Promise<{ credential: string; revokedAt: number }[]> {
  const rows = await db
    .selectFrom('api_keys')
    .select([sql<string>`'api_key:' || id`.as('credential'), 'revoked_at'])
    .where('revoked_at', '>', since)
    .unionAll(
      db
        .selectFrom('oauth_clients')
        .select([sql<string>`'client:' || client_id`.as('credential'), 'revoked_at'])
        .where('revoked_at', '>', since),
    )
    .execute();
  return rows.map((r) => ({ credential: r.credential, revokedAt: Number(r.revoked_at) }));
}
/** The time a credential was last used (written at most once a minute each, auth/authenticate.ts). */
export const touchApiKey = (db: Db, id: string, at: number) => db.updateTable('api_keys').set({ last_used_at: at }).where('id', '=', id).execute();
export const touchClient = (db: Db, clientId: string, at: number) =>
  db.updateTable('oauth_clients').set({ last_used_at: at }).where('client_id', '=', clientId).execute();
