// Ordered list of migrations and the runner used on start and by `charta-server migrate`.
import { Migrator, type Migration } from 'kysely';
import type { Engine, Storage } from '../db.ts';
import * as initial from './001-initial.ts';
import * as plugins from './002-plugins.ts';
import * as terminology from './003-terminology.ts';
import * as reference from './004-reference.ts';
import * as chart from './005-chart.ts';
import * as pluginRuntime from './006-plugin-runtime.ts';
import * as patientListIndexes from './007-patient-list-indexes.ts';
import * as pluginIsolation from './008-plugin-isolation.ts';
import * as pluginDataAccess from './009-plugin-data-access.ts';
import * as patientMetadata from './010-patient-metadata.ts';
import * as noteAndPatientEvents from './011-note-patient-events.ts';
import * as pluginCache from './012-plugin-cache.ts';
import * as pluginRoutesSchedules from './013-plugin-routes-schedules.ts';
import * as pluginMetadataSource from './014-plugin-metadata-source.ts';
import * as patientSex from './015-patient-sex.ts';
import * as sealedSecrets from './017-sealed-secrets.ts';
import * as auditTrail from './018-audit-trail.ts';
import * as credentialRotation from './019-credential-rotation.ts';
import * as conceptUsageRank from './020-concept-usage-rank.ts';
import * as partialCommitterIndex from './021-partial-committer-index.ts';

/** Every migration of this build, in order: the names a database's kysely_migration table records. */
const MIGRATIONS: Record<string, { up: typeof initial.up }> = {
  '001-initial': initial,
  '002-plugins': plugins,
  '003-terminology': terminology,
  '004-reference': reference,
  '005-chart': chart,
  '006-plugin-runtime': pluginRuntime,
  '007-patient-list-indexes': patientListIndexes,
  '008-plugin-isolation': pluginIsolation,
  '009-plugin-data-access': pluginDataAccess,
  '010-patient-metadata': patientMetadata,
  '011-note-patient-events': noteAndPatientEvents,
  '012-plugin-cache': pluginCache,
  '013-plugin-routes-schedules': pluginRoutesSchedules,
  '014-plugin-metadata-source': pluginMetadataSource,
  '015-patient-sex': patientSex,
  '017-sealed-secrets': sealedSecrets,
  '018-audit-trail': auditTrail,
  '019-credential-rotation': credentialRotation,
  '020-concept-usage-rank': conceptUsageRank,
  '021-partial-committer-index': partialCommitterIndex,
};

/** The names of this build's migrations, oldest first: a database that records one not here was made by a newer build. */
export const MIGRATION_NAMES: readonly string[] = Object.keys(MIGRATIONS);

/** The migrations for Kysely's Migrator on this engine. */
export function migrationsFor(engine: Engine): Record<string, Migration> {
  const migrations: Record<string, Migration> = {};
  for (const [name, m] of Object.entries(MIGRATIONS)) migrations[name] = { up: (db) => m.up(db, engine) };
  return migrations;
}

export async function migrate(storage: Storage): Promise<string[]> {
  const migrations = migrationsFor(storage.engine);
  // Migrations made side by side (one per feature) may land in any order; each is independent of
  // the ones numbered after it, so one found missing before the last applied is applied all the same.
  const migrator = new Migrator({ db: storage.db, provider: { getMigrations: async () => migrations }, allowUnorderedMigrations: true });
  const { error, results } = await migrator.migrateToLatest();
  if (error) throw error;
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}
