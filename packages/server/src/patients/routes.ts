// Patients API routes, the metadata plugins keep on a patient, and the staff read the clinical pages name authors with, as one Fastify plugin.
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { baseUrlOf, ctxOf, type FeatureOptions } from '../http/request.ts';
import { pageBody, pageOf } from '../http/pagination.ts';
import { problemResponses as problems } from '../http/schemas.ts';
import { CreatePatientBody, ListPatientsQuery, PageQuery, PatientParams, StaffMemberSchema, StaffParams, patientComponents } from '@charta/api';
import { readStaffMember } from '../reference/staff-member.ts';
import { READ_AUDITS } from '../audit/read-routes.ts';
import { createPatient } from './create.ts';
import { getPatient } from './get.ts';
import { listPatients } from './list.ts';
import { listPatientMetadata } from './list-metadata.ts';

const tags = ['Patients'];
const security = [{ bearer: [] }];

export async function patientRoutes(parent: FastifyInstance, { storage, publicUrl, listCountCap }: FeatureOptions) {
  const app = parent.withTypeProvider<TypeBoxTypeProvider>();
  for (const schema of [...patientComponents, StaffMemberSchema]) app.addSchema(schema);

  app.post('/core/api/v1/patients/', {
    schema: {
      tags,
      security,
      summary: 'Create a patient',
      body: CreatePatientBody,
      response: { 201: Type.Ref('Patient'), ...problems(400, 401, 403, 413, 415) },
    },
    handler: async (request, reply) => {
      const outcome = await createPatient(ctxOf(request, storage), request.body);
      return reply.code(201).send(outcome.body);
    },
  });
  app.get('/core/api/v1/patients', {
    schema: {
      tags,
      security,
      summary: 'Find patients by name',
      querystring: ListPatientsQuery,
      response: { 200: Type.Ref('PatientPage'), ...problems(400, 401, 403) },
    },
    config: { auditRead: READ_AUDITS.patients },
    handler: async (request) => {
      const query = request.query;
      const list = await listPatients(ctxOf(request, storage), query, pageOf(query), listCountCap);
      return pageBody(baseUrlOf(request, publicUrl), '/core/api/v1/patients', query, list);
    },
  });
  app.get('/core/api/v1/patients/:key', {
    schema: {
      tags,
      security,
      summary: 'Read a patient',
      params: PatientParams,
      response: { 200: Type.Ref('Patient'), ...problems(401, 403, 404) },
    },
    config: { auditRead: READ_AUDITS.patient },
    handler: async (request) => getPatient(ctxOf(request, storage), request.params.key),
  });
  app.get('/core/api/v1/staff/:key', {
    schema: {
      tags: ['Staff'],
      security,
      summary: 'Read a staff member (who wrote or committed a command)',
      params: StaffParams,
      response: { 200: Type.Ref('StaffMember'), ...problems(401, 403, 404) },
    },
    handler: async (request) => readStaffMember(ctxOf(request, storage), request.params.key),
  });
  app.get('/core/api/v1/patients/:key/metadata/', {
    schema: {
      tags,
      security,
      summary: 'Key/value pairs plugins keep on the patient, by namespace (the plugin) then key',
      params: PatientParams,
      querystring: PageQuery,
      response: { 200: Type.Ref('PatientMetadataPage'), ...problems(400, 401, 403, 404) },
    },
    config: { auditRead: READ_AUDITS.patientList('patient_metadata') },
    handler: async (request) => {
      const { key } = request.params;
      const list = await listPatientMetadata(ctxOf(request, storage), key, pageOf(request.query));
      return pageBody(baseUrlOf(request, publicUrl), `/core/api/v1/patients/${key}/metadata/`, request.query, list);
    },
  });
}
