// Patients API routes.
import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import type { Storage } from '../storage/db.ts';
import { ctxOf } from '../http/request.ts';
import { CreatePatientBody, problemResponses as problems, type CreatePatient } from '../http/schemas.ts';
import { createPatient } from './create.ts';
import { getPatient } from './get.ts';

const tags = ['Patients'];
const security = [{ bearer: [] }];

export function patientRoutes(app: FastifyInstance, storage: Storage) {
  app.post('/core/api/v1/patients/', {
    schema: {
      tags,
      security,
      summary: 'Create a patient',
      body: CreatePatientBody,
      response: { 201: Type.Ref('Patient'), ...problems(400, 401, 403, 413, 415) },
    },
    handler: async (request, reply) => {
      const outcome = await createPatient(ctxOf(request, storage), request.body as CreatePatient);
      return reply.code(201).send(outcome.body);
    },
  });
  app.get('/core/api/v1/patients/:key', {
    schema: {
      tags,
      security,
      summary: 'Read a patient',
      params: Type.Object({ key: Type.String() }),
      response: { 200: Type.Ref('Patient'), ...problems(401, 403, 404) },
    },
    handler: async (request) => getPatient(ctxOf(request, storage), (request.params as { key: string }).key),
  });
}
