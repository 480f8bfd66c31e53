// The patient's chart, read-only: conditions, medications, goals (written by committing commands).
import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import type { Storage } from '../storage/db.ts';
import { baseUrlOf, ctxOf } from '../http/request.ts';
import { problemResponses as problems } from '../http/schemas.ts';
import type { ChartEntity } from '../storage/chart-repository.ts';
import { readChart, STATUSES } from './read.ts';

const tags = ['Patient chart'];
const security = [{ bearer: [] }];
const Iso = Type.String({ description: 'ISO 8601 UTC timestamp with microseconds' });
const Coding = Type.Object({ system: Type.String(), code: Type.String(), display: Type.String() });
const common = {
  id: Type.String({ description: 'UUID of the chart entry' }),
  patient_key: Type.String(),
  source_command: Type.String({ description: 'The command whose commit made the entry' }),
  created_at: Iso,
  updated_at: Iso,
};
const Nullable = (t: ReturnType<typeof Type.String>) => Type.Union([t, Type.Null()]);
const schemas: Record<ChartEntity, ReturnType<typeof Type.Object>> = {
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
const PATHS: Record<ChartEntity, string> = { condition: 'conditions', medication: 'medications', goal: 'goals' };
const WHAT: Record<ChartEntity, string> = {
  condition: 'Conditions (committed diagnose commands); default status: active',
  medication: 'Medications (committed medicationStatement and prescribe commands; stopMedication stops them); default status: active',
  goal: 'Goals (committed goal commands; updateGoal changes them); default status: open',
};

export function chartRoutes(app: FastifyInstance, storage: Storage, publicUrl: string | undefined) {
  for (const entity of ['condition', 'medication', 'goal'] as const) {
    app.get(`/core/api/v1/patients/:key/${PATHS[entity]}/`, {
      schema: {
        tags,
        security,
        summary: WHAT[entity],
        params: Type.Object({ key: Type.String({ maxLength: 64 }) }),
        querystring: Type.Object(
          {
            status: Type.Optional(Type.String({ maxLength: 100, description: `'all' or a comma-separated list of ${STATUSES[entity].join(', ')}` })),
            limit: Type.Optional(Type.String({ pattern: '^\\d+$' })),
            offset: Type.Optional(Type.String({ pattern: '^\\d+$' })),
          },
          { additionalProperties: false },
        ),
        response: {
          200: Type.Object({
            count: Type.Integer(),
            next: Type.Union([Type.String(), Type.Null()]),
            previous: Type.Union([Type.String(), Type.Null()]),
            results: Type.Array(schemas[entity]),
          }),
          ...problems(400, 401, 403, 404),
        },
      },
      handler: async (request) => {
        const { key } = request.params as { key: string };
        return readChart(
          ctxOf(request, storage),
          entity,
          key,
          request.query as Record<string, string>,
          baseUrlOf(request, publicUrl),
          `/core/api/v1/patients/${key}/${PATHS[entity]}/`,
        );
      },
    });
  }
}
