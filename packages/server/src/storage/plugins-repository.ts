// Plugins and their package bytes.
import type { Insertable, Kysely, Updateable } from 'kysely';
import type { Engine } from './db.ts';
import type { Database, PluginTable } from './schema.ts';

type Db = Kysely<Database>;

/** Every column but the package bytes: what listings and the plugin object need. */
const SUMMARY = [
  'name',
  'description',
  'version',
  'format',
  'checksum',
  'is_enabled',
  'previous_version',
  'grants',
  'data_access',
  'routes',
  'schedules',
  'metadata_source',
  'created_at',
  'updated_at',
] as const;

export const insertPlugin = (db: Db, row: Insertable<PluginTable>) => db.insertInto('plugins').values(row).execute();

export const getPlugin = (db: Db, name: string) => db.selectFrom('plugins').select(SUMMARY).where('name', '=', name).executeTakeFirst();

/** Reads a plugin inside a write transaction, locking its row on PostgreSQL. */
export const getPluginForUpdate = (db: Db, engine: Engine, name: string) =>
  db
    .selectFrom('plugins')
    .select(SUMMARY)
    .where('name', '=', name)
    .$if(engine === 'postgres', (q) => q.forUpdate())
    .executeTakeFirst();

/** What the runtime reads of a plugin once per answer of its handlers: its grants, and which package it runs. */
export const getPluginGrants = (db: Db, name: string) => db.selectFrom('plugins').select(['grants']).where('name', '=', name).executeTakeFirst();

export const getPluginPackage = (db: Db, name: string) =>
  db.selectFrom('plugins').select(['name', 'version', 'format', 'checksum', 'package']).where('name', '=', name).executeTakeFirst();

export const updatePlugin = (db: Db, name: string, set: Omit<Updateable<PluginTable>, 'name'>) =>
  db.updateTable('plugins').set(set).where('name', '=', name).execute();

/** Moves the current package to the previous_* columns and stores the new one, in one statement. */
export const replacePluginPackage = (
  db: Db,
  name: string,
  next: Pick<PluginTable, 'description' | 'version' | 'format' | 'checksum' | 'package' | 'updated_at'> & {
    is_enabled?: number;
    data_access?: string;
    routes?: string;
    schedules?: string;
    metadata_source?: string;
  },
) =>
  db
    .updateTable('plugins')
    .set((eb) => ({
      previous_version: eb.ref('version'),
      previous_format: eb.ref('format'),
      previous_checksum: eb.ref('checksum'),
      previous_package: eb.ref('package'),
      ...next,
    }))
    .where('name', '=', name)
    .execute();

/** Plugins installed before their metadata source was kept (migration 014), with their packages. */
export const pluginsWithoutMetadataSource = (db: Db) =>
  db.selectFrom('plugins').select(['name', 'package']).where('metadata_source', 'is', null).orderBy('name').execute();

export const setMetadataSource = (db: Db, name: string, source: string) =>
  db.updateTable('plugins').set({ metadata_source: source }).where('name', '=', name).where('metadata_source', 'is', null).execute();

export const deletePlugin = (db: Db, name: string) => db.deleteFrom('plugins').where('name', '=', name).execute();

export async function listPlugins(db: Db, limit: number, offset: number) {
  const [rows, total] = await Promise.all([
    db.selectFrom('plugins').select(SUMMARY).orderBy('name').limit(limit).offset(offset).execute(),
    db
      .selectFrom('plugins')
      .select((eb) => eb.fn.countAll().as('n'))
      .executeTakeFirstOrThrow(),
  ]);
  return { rows, count: Number(total.n) };
}

/** What the plugin runtime compares on every process to see a plugin change: every plugin, without its package. */
export const pluginStates = (db: Db) =>
  db.selectFrom('plugins').select(['name', 'version', 'format', 'checksum', 'is_enabled', 'updated_at']).orderBy('name').execute();
