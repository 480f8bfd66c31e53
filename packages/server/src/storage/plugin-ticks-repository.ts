// The ticks of plugins' schedules (docs/plugins.md, "Scheduled tasks"): one row per tick a process
// claimed, keyed by plugin, handler and tick, so the insert that wins the primary key runs the
// tick and every other process's insert of it inserts nothing. A claim also refuses a tick that is
// not newer than the handler's latest row (a process whose clock lags behind), and one of a plugin
// that is not enabled or was installed, updated or enabled after it (its `updated_at`). Only the
// latest rows of each handler are kept: the claim of a tick removes those before the one before it.
import { sql, type Kysely } from 'kysely';
import type { Database } from './schema.ts';

type Db = Kysely<Database>;

export interface TickClaim {
  plugin: string;
  handler: string;
  /** The tick's time, microseconds since the epoch. */
  tick: number;
  claimer: string;
  /** Microseconds. */
  claimedAt: number;
}

/**
 * Claims the tick for this process, in the write transaction `trx`: the tick before it that was
 * claimed (null the first time), or undefined when the tick is not this process's to run (another
 * claimed it, a later one was claimed, or the plugin is not enabled since before it).
 */
export async function claimTick(trx: Db, claim: TickClaim): Promise<{ previous: number | null } | undefined> {
  const inserted = await trx
    .insertInto('plugin_ticks')
    .columns(['plugin_name', 'handler', 'tick', 'claimed_by', 'claimed_at'])
    .expression((eb) =>
      eb
        .selectFrom('plugins')
        .select([
          sql<string>`cast(${claim.plugin} as text)`.as('plugin_name'),
          sql<string>`cast(${claim.handler} as text)`.as('handler'),
          sql<number>`cast(${claim.tick} as bigint)`.as('tick'),
          sql<string>`cast(${claim.claimer} as text)`.as('claimed_by'),
          sql<number>`cast(${claim.claimedAt} as bigint)`.as('claimed_at'),
        ])
        .where('name', '=', claim.plugin)
        .where('is_enabled', '<>', 0)
        .where('updated_at', '<', claim.tick)
        .where(({ not, exists, selectFrom }) =>
          not(
            exists(
              selectFrom('plugin_ticks')
                .select('tick')
                .where('plugin_name', '=', claim.plugin)
                .where('handler', '=', claim.handler)
                .where('tick', '>=', claim.tick),
            ),
          ),
        ),
    )
    .onConflict((oc) => oc.columns(['plugin_name', 'handler', 'tick']).doNothing())
    .returning('tick')
    .executeTakeFirst();
  if (inserted === undefined) return undefined;
  const before = await trx
    .selectFrom('plugin_ticks')
    .select((eb) => eb.fn.max('tick').as('tick'))
    .where('plugin_name', '=', claim.plugin)
    .where('handler', '=', claim.handler)
    .where('tick', '<', claim.tick)
    .executeTakeFirst();
  const previous = before?.tick === undefined || before.tick === null ? null : Number(before.tick);
  // The rows older than the one before are of no more use (the latest answers every claim and last_tick).
  if (previous !== null) {
    await trx.deleteFrom('plugin_ticks').where('plugin_name', '=', claim.plugin).where('handler', '=', claim.handler).where('tick', '<', previous).execute();
  }
  return { previous };
}

/** What the claimed tick came to: 'ok' or the fault (threw, timeout, effect…). */
export const finishTick = (db: Db, claim: Pick<TickClaim, 'plugin' | 'handler' | 'tick' | 'claimer'>, outcome: string, finishedAt: number) =>
  db
    .updateTable('plugin_ticks')
    .set({ outcome, finished_at: finishedAt })
    .where('plugin_name', '=', claim.plugin)
    .where('handler', '=', claim.handler)
    .where('tick', '=', claim.tick)
    .where('claimed_by', '=', claim.claimer)
    .execute();

/** The latest tick claimed of each handler of these plugins (one query: the primary key's prefix). */
export async function latestTicks(db: Db, plugins: readonly string[]): Promise<Map<string, Map<string, number>>> {
  const latest = new Map<string, Map<string, number>>();
  if (plugins.length === 0) return latest;
  const rows = await db
    .selectFrom('plugin_ticks')
    .select(['plugin_name', 'handler', (eb) => eb.fn.max('tick').as('tick')])
    .where('plugin_name', 'in', [...plugins])
    .groupBy(['plugin_name', 'handler'])
    .execute();
  for (const row of rows) {
    let handlers = latest.get(row.plugin_name);
    if (handlers === undefined) latest.set(row.plugin_name, (handlers = new Map()));
    handlers.set(row.handler, Number(row.tick));
  }
  return latest;
}

/** A handler's ticks, latest first (tests and diagnostics). */
export const ticksOf = (db: Db, plugin: string, handler?: string) =>
  db
    .selectFrom('plugin_ticks')
    .selectAll()
    .where('plugin_name', '=', plugin)
    .$if(handler !== undefined, (q) => q.where('handler', '=', handler!))
    .orderBy('tick', 'desc')
    .execute();

/** Every tick row of the plugin (it is deleted). */
export const deletePluginTicks = (db: Db, plugin: string) => db.deleteFrom('plugin_ticks').where('plugin_name', '=', plugin).execute();
