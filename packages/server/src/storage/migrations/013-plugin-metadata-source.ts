// Which file a plugin's metadata came from (docs/plugins.md, "Python packages of the original
// tool"): `manifest` (CHARTA_MANIFEST.json, a Charta plugin), `pkg-info` or `canvas-manifest` (a
// Python package of the original tool, accepted but never run). Kept beside the plugin so its
// answers say whether it can run without reading the package. Plugins installed before this
// migration are inspected once here.
import { sql, type Kysely } from 'kysely';
import type { Engine } from '../db.ts';
import { inspectPackage } from '../../inspection/index.ts';

export async function up(db: Kysely<unknown>, _engine: Engine): Promise<void> {
  await db.schema
    .alterTable('plugins')
    .addColumn('metadata_source', 'text', (c) => c.notNull().defaultTo('manifest'))
    .execute();
  const rows = (await sql<{ name: string; package: Uint8Array }>`select name, package from plugins`.execute(db)).rows;
  for (const row of rows) {
    const inspection = await inspectPackage(Buffer.from(row.package));
    if (inspection.ok && inspection.metadata.source !== 'manifest') {
      await sql`update plugins set metadata_source = ${inspection.metadata.source} where name = ${row.name}`.execute(db);
    }
  }
}
