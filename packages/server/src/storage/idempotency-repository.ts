// Stored first responses of requests sent with an Idempotency-Key.
import type { Kysely } from 'kysely';
import type { Database, IdempotencyKeyTable } from './schema.ts';

type Db = Kysely<Database>;

export const findIdempotent = (db: Db, principal: string, key: string) =>
  db.selectFrom('idempotency_keys').selectAll().where('principal', '=', principal).where('key', '=', key).executeTakeFirst();

export const saveIdempotent = (db: Db, row: IdempotencyKeyTable) => db.insertInto('idempotency_keys').values(row).execute();

export const purgeIdempotent = (db: Db, before: number) => db.deleteFrom('idempotency_keys').where('created_at', '<', before).execute();

export const deleteIdempotent = (db: Db, principal: string, key: string) =>
  db.deleteFrom('idempotency_keys').where('principal', '=', principal).where('key', '=', key).execute();
