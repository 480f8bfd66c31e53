// The effects each chain of changes has spent (docs/plugins.md, "Breadth limits"), one row per
// root event.
import type { Kysely } from 'kysely';
import type { Database } from './schema.ts';

type Db = Kysely<Database>;

/** Adds `count` to the effects the chain of `rootId` has spent, in one statement; answers the new total. */
export async function reserveEffects(db: Db, rootId: string, count: number, now: number): Promise<number> {
  const row = await db
    .insertInto('plugin_effect_budgets')
    .values({ root_id: rootId, used: count, created_at: now })
    .onConflict((oc) => oc.column('root_id').doUpdateSet((eb) => ({ used: eb('plugin_effect_budgets.used', '+', eb.ref('excluded.used')) })))
    .returning('used')
    .executeTakeFirstOrThrow();
  return Number(row.used);
}

/** Forgets the chains started before `before` (microseconds). */
export const purgeEffectBudgets = (db: Db, before: number) => db.deleteFrom('plugin_effect_budgets').where('created_at', '<', before).execute();
