// The plugin store: one row per plugin with its current package, and the package it replaced.
import type { Kysely } from 'kysely';
import type { Engine } from '../db.ts';

export async function up(db: Kysely<unknown>, engine: Engine): Promise<void> {
  const bytes = engine === 'sqlite' ? 'blob' : 'bytea';
  await db.schema
    .createTable('plugins')
    .addColumn('name', 'text', (c) => c.primaryKey())
    .addColumn('description', 'text', (c) => c.notNull())
    .addColumn('version', 'text', (c) => c.notNull())
    .addColumn('format', 'text', (c) => c.notNull())
    .addColumn('checksum', 'text', (c) => c.notNull())
    .addColumn('package', bytes, (c) => c.notNull())
    .addColumn('is_enabled', 'integer', (c) => c.notNull())
    .addColumn('previous_version', 'text')
    .addColumn('previous_format', 'text')
    .addColumn('previous_checksum', 'text')
    .addColumn('previous_package', bytes)
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
}
