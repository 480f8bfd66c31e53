// Banner alerts plugins show on a patient's chart (docs/api.md, "Banner alerts"): one per
// patient, plugin and key; adding one again with the same key replaces it.
import type { Kysely } from 'kysely';
import type { BannerAlertTable, Database } from './schema.ts';

type Db = Kysely<Database>;

export type BannerAlertRow = BannerAlertTable;

/** Adds the alert, or replaces the one of the same patient, plugin and key (keeping its created_at); answers the alert as stored. */
export async function upsertBannerAlert(db: Db, row: BannerAlertRow): Promise<BannerAlertRow> {
  return db
    .insertInto('banner_alerts')
    .values(row)
    .onConflict((oc) =>
      oc
        .columns(['patient_key', 'plugin_name', 'key'])
        .doUpdateSet({ narrative: row.narrative, placement: row.placement, intent: row.intent, updated_at: row.updated_at }),
    )
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** Removes one alert; true when there was one. */
export async function removeBannerAlert(db: Db, patientKey: string, pluginName: string, key: string): Promise<boolean> {
  const result = await db
    .deleteFrom('banner_alerts')
    .where('patient_key', '=', patientKey)
    .where('plugin_name', '=', pluginName)
    .where('key', '=', key)
    .executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

/** One page of a patient's alerts, oldest first, and how many there are in all. */
export async function listBannerAlerts(db: Db, patientKey: string, limit: number, offset: number): Promise<{ rows: BannerAlertRow[]; count: number }> {
  const [rows, total] = await Promise.all([
    db
      .selectFrom('banner_alerts')
      .selectAll()
      .where('patient_key', '=', patientKey)
      .orderBy('created_at')
      .orderBy('plugin_name')
      .orderBy('key')
      .limit(limit)
      .offset(offset)
      .execute(),
    db
      .selectFrom('banner_alerts')
      .select((eb) => eb.fn.countAll().as('n'))
      .where('patient_key', '=', patientKey)
      .executeTakeFirstOrThrow(),
  ]);
  return { rows, count: Number(total.n) };
}
