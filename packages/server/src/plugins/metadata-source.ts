// Fills in the metadata source of plugins installed before it was kept (migration 014): each such
// package is inspected once, when the server starts, before the plugin API answers (docs/plugins.md,
// "Python packages of the original tool"). Idempotent: several processes starting together write
// the same values.
import type { Storage } from '../storage/db.ts';
import { inspectPackage } from '../inspection/index.ts';
import { pluginsWithoutMetadataSource, setMetadataSource } from '../storage/plugins-repository.ts';

export async function fillMetadataSources(storage: Storage): Promise<number> {
  const rows = await pluginsWithoutMetadataSource(storage.db);
  for (const row of rows) {
    const inspection = await inspectPackage(Buffer.from(row.package));
    // A stored package that no longer passes inspection is the runtime's to report; it is no Python package.
    await setMetadataSource(storage.db, row.name, inspection.ok ? inspection.metadata.source : 'manifest');
  }
  return rows.length;
}
