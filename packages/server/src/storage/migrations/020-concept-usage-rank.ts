// How much a concept is used, where data says so: `usage_rank` is its place among the most used
// concepts of its system (1 = the most used), null for the others. The terminology search ranks
// a used concept before an unused one among matches of the same quality (docs/api.md, "How a
// search matches and ranks") and reads the ranked concepts of a system through this partial
// index, in rank order, so a used concept is among the candidates however many others match.
import { sql, type Kysely } from 'kysely';
import type { Engine } from '../db.ts';

export async function up(db: Kysely<unknown>, _engine: Engine): Promise<void> {
  await db.schema.alterTable('concepts').addColumn('usage_rank', 'integer').execute();
  await db.schema.createIndex('concepts_usage_rank').on('concepts').columns(['system', 'usage_rank']).where(sql.ref('usage_rank'), 'is not', null).execute();
}
