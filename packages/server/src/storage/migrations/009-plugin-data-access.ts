// What a plugin's manifest declares it reads of the record
// (docs/plugins.md, "Reading the record"), kept beside the plugin so its answers show it without reading the package: the
// manifest's `data` as JSON, `{}` for a plugin that reads nothing (and for those installed before
// this migration, until their next package). And the audit trail by actor, newest first: a
// plugin's reads are listed by it (GET /core/api/v1/plugins/{name}/reads/).
import type { Kysely } from 'kysely';
import type { Engine } from '../db.ts';

export async function up(db: Kysely<unknown>, _engine: Engine): Promise<void> {
  await db.schema
    .alterTable('plugins')
    .addColumn('data_access', 'text', (c) => c.notNull().defaultTo('{}'))
    .execute();
  await db.schema.createIndex('audit_actor').on('audit_events').columns(['actor', 'id']).execute();
}
