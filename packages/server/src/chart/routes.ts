// The patient's chart, read-only: conditions, medications, goals (written by committing commands)
// and the banner alerts plugins added, as one Fastify plugin.
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { baseUrlOf, ctxOf, type FeatureOptions } from '../http/request.ts';
import { problemResponses as problems } from '../http/schemas.ts';
import type { ChartEntity } from '../storage/chart-repository.ts';
import { readChart } from './read.ts';
import { listBannerAlerts } from './banner-alerts.ts';
import { BannerAlertPageSchema, BannerAlertSchema, ChartParams, chartPage, chartQuery } from '@charta/api';
import { pageBody, pageOf } from '../http/pagination.ts';
import { PageQuery } from '@charta/api';
import { READ_AUDITS } from '../audit/read-routes.ts';

const tags = ['Patient chart'];
const security = [{ bearer: [] }];
const PATHS: Record<ChartEntity, string> = { condition: 'conditions', medication: 'medications', goal: 'goals' };
const WHAT: Record<ChartEntity, string> = {
  condition: 'Conditions (committed diagnose commands); default status: active',
  medication: 'Medications (committed medicationStatement and prescribe commands; stopMedication stops them); default status: active',
  goal: 'Goals (committed goal commands; updateGoal changes them); default status: open',
};

export async function chartRoutes(parent: FastifyInstance, { storage, publicUrl }: FeatureOptions) {
  const app = parent.withTypeProvider<TypeBoxTypeProvider>();
  for (const entity of ['condition', 'medication', 'goal'] as const) {
    app.get(`/core/api/v1/patients/:key/${PATHS[entity]}/`, {
      schema: {
        tags,
        security,
        summary: WHAT[entity],
        params: ChartParams,
        querystring: chartQuery(entity),
        response: { 200: chartPage(entity), ...problems(400, 401, 403, 404) },
      },
      config: { auditRead: READ_AUDITS.patientList(`chart.${PATHS[entity]}`) },
      handler: async (request) => {
        const { key } = request.params;
        const list = await readChart(ctxOf(request, storage), entity, key, request.query, pageOf(request.query));
        return pageBody(baseUrlOf(request, publicUrl), `/core/api/v1/patients/${key}/${PATHS[entity]}/`, request.query, list);
      },
    });
  }
  app.addSchema(BannerAlertSchema);
  app.addSchema(BannerAlertPageSchema);
  app.get('/core/api/v1/patients/:key/banner-alerts/', {
    schema: {
      tags,
      security,
      summary: "Banner alerts plugins added to the patient's chart, oldest first",
      params: ChartParams,
      querystring: PageQuery,
      response: { 200: Type.Ref('BannerAlertPage'), ...problems(400, 401, 403, 404) },
    },
    config: { auditRead: READ_AUDITS.patientList('banner_alerts') },
    handler: async (request) => {
      const { key } = request.params;
      const list = await listBannerAlerts(ctxOf(request, storage), key, pageOf(request.query));
      return pageBody(baseUrlOf(request, publicUrl), `/core/api/v1/patients/${key}/banner-alerts/`, request.query, list);
    },
  });
}
