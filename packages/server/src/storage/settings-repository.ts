// Key/value facts about the instance (which starter set is loaded, …).
import type { Kysely } from 'kysely';
import type { Database } from './schema.ts';

type Db = Kysely<Database>;

export async function getSetting(db: Db, key: string): Promise<string | undefined> {
  return (await db.selectFrom('settings').select('value').where('key', '=', key).executeTakeFirst())?.value;
}

export async function putSetting(db: Db, key: string, value: string, now: number): Promise<void> {
  await db
    .insertInto('settings')
    .values({ key, value, updated_at: now })
    .onConflict((oc) => oc.column('key').doUpdateSet({ value, updated_at: now }))
    .execute();
}
