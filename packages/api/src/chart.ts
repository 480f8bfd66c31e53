// Schemas of the patient's chart (docs/api.md, The patient's chart).
import { Type, type Static } from '@sinclair/typebox';
import { Nullable, PageOf, PageParams } from './common.ts';
import { CHART_STATUSES as STATUSES, type ChartEntity } from './constants.ts';

const Iso = Type.String({ description: 'ISO 8601 UTC timestamp with microseconds' });
const Coding = Type.Object({ system: Type.String(), code: Type.String(), display: Type.String() });
const common = {
  id: Type.String({ description: 'UUID of the chart entry' }),
  patient_key: Type.String(),
  source_command: Type.String({ description: 'The command whose commit made the entry' }),
  created_at: Iso,
  updated_at: Iso,
};
/** A chart entry of each kind, as listed. */
const ChartEntrySchemas: Record<ChartEntity, ReturnType<typeof Type.Object>> = {
  condition: Type.Object({ ...common, status: Type.String({ enum: [...STATUSES.condition] }), coding: Coding, onset: Nullable(Type.String()) }),
  medication: Type.Object({
    ...common,
    status: Type.String({ enum: [...STATUSES.medication] }),
    coding: Coding,
    sig: Nullable(Type.String()),
    stopped_by_command: Nullable(Type.String()),
  }),
  goal: Type.Object({
    ...common,
    status: Type.String({ enum: [...STATUSES.goal] }),
    statement: Type.String(),
    start_date: Nullable(Type.String()),
    due_date: Nullable(Type.String()),
    achievement_status: Nullable(Type.String()),
    priority: Nullable(Type.String()),
    progress: Nullable(Type.String()),
  }),
};
export const ChartParams = Type.Object({ key: Type.String({ maxLength: 64 }) });
export const chartQuery = (entity: ChartEntity) =>
  Type.Object(
    {
      status: Type.Optional(Type.String({ maxLength: 100, description: `'all' or a comma-separated list of ${STATUSES[entity].join(', ')}` })),
      ...PageParams,
    },
    { additionalProperties: false },
  );
export const chartPage = (entity: ChartEntity) => PageOf(ChartEntrySchemas[entity]);

/** A banner alert a plugin shows on the patient's chart (docs/api.md, "Banner alerts"). */
export const BannerAlertSchema = Type.Object(
  {
    plugin: Type.String({ description: 'The plugin that added it' }),
    key: Type.String({ description: "The plugin's own key for it: adding one with the same key replaces it" }),
    narrative: Type.String(),
    placement: Type.Array(Type.String(), { description: 'Where it shows: chart, timeline, appointment_card, scheduling_card, profile…' }),
    intent: Type.String({ description: 'info, warning or alert' }),
    created_at: Iso,
    updated_at: Iso,
  },
  { $id: 'BannerAlert' },
);
export type BannerAlert = Static<typeof BannerAlertSchema>;
export const BannerAlertPageSchema = PageOf(Type.Ref('BannerAlert'), 'BannerAlertPage');
