// Staff users, API keys, OAuth clients and access tokens. Secrets arrive here already hashed.
import type { Kysely } from 'kysely';
import type { ApiKeyTable, Database, OAuthClientTable, StaffTable } from './schema.ts';

type Db = Kysely<Database>;

export const insertStaff = (db: Db, row: StaffTable) => db.insertInto('staff').values(row).execute();
export const getStaff = (db: Db, key: string) => db.selectFrom('staff').selectAll().where('key', '=', key).executeTakeFirst();
export const firstStaff = (db: Db) => db.selectFrom('staff').selectAll().orderBy('created_at').limit(1).executeTakeFirst();

export const insertApiKey = (db: Db, row: ApiKeyTable) => db.insertInto('api_keys').values(row).execute();
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

export const insertClient = (db: Db, row: OAuthClientTable) => db.insertInto('oauth_clients').values(row).execute();
export const getClient = (db: Db, clientId: string) => db.selectFrom('oauth_clients').selectAll().where('client_id', '=', clientId).executeTakeFirst();
export const updateClientSecret = (db: Db, clientId: string, secretHash: string) =>
  db.updateTable('oauth_clients').set({ secret_hash: secretHash }).where('client_id', '=', clientId).execute();

export const insertToken = (db: Db, row: { token_hash: string; client_id: string; staff_key: string; scope: string; expires_at: number; created_at: number }) =>
  db.insertInto('access_tokens').values(row).execute();
export const findToken = (db: Db, tokenHash: string) => db.selectFrom('access_tokens').selectAll().where('token_hash', '=', tokenHash).executeTakeFirst();
export const deleteExpiredTokens = (db: Db, now: number) => db.deleteFrom('access_tokens').where('expires_at', '<', now).execute();
