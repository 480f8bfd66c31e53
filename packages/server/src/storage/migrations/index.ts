// Ordered list of migrations and the runner used on start and by `charta-server migrate`.
import { Migrator, type Migration } from 'kysely';
import type { Storage } from '../db.ts';
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

export async function migrate(storage: Storage): Promise<string[]> {
  const all: Record<string, { up: typeof initial.up }> = {
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
  };
  const migrations: Record<string, Migration> = {};
  for (const [name, m] of Object.entries(all)) migrations[name] = { up: (db) => m.up(db, storage.engine) };
  const migrator = new Migrator({ db: storage.db, provider: { getMigrations: async () => migrations } });
  const { error, results } = await migrator.migrateToLatest();
  if (error) throw error;
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}
