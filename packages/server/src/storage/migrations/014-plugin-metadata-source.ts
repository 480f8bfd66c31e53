// Which file a plugin's metadata came from (docs/plugins.md, "Python packages of the original
// tool"): `manifest` (CHARTA_MANIFEST.json, a Charta plugin), `pkg-info` or `canvas-manifest` (a
// Python package of the original tool, accepted but never run). Kept beside the plugin so its
// answers say whether it can run without reading the package. Null for the plugins installed
// before this migration: the plugins feature inspects their packages once, when the server starts
// (plugins/metadata-source.ts), as storage/ cannot.
import type { Kysely } from 'kysely';
import type { Engine } from '../db.ts';

export async function up(db: Kysely<unknown>, _engine: Engine): Promise<void> {
  await db.schema.alterTable('plugins').addColumn('metadata_source', 'text').execute();
}
