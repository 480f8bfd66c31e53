// A banner alert row as the API shows it (docs/api.md, "Banner alerts"): read by the list and
// answered by the add operation.
import { isoMicros } from '../lib/time.ts';
import type { BannerAlertRow } from '../storage/banner-alerts-repository.ts';
import type { BannerAlert } from '@charta/api';

export function bannerAlertView(row: BannerAlertRow): BannerAlert {
  let placement: unknown;
  try {
    placement = JSON.parse(row.placement);
  } catch {
    placement = [];
  }
  return {
    plugin: row.plugin_name,
    key: row.key,
    narrative: row.narrative,
    placement: Array.isArray(placement) ? placement.filter((p): p is string => typeof p === 'string') : [],
    intent: row.intent,
    created_at: isoMicros(row.created_at),
    updated_at: isoMicros(row.updated_at),
  };
}
