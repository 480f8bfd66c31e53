// Admin API of the reference data, under /core/api/v1/admin/, as one Fastify plugin: POST creates
// an entry, GET lists a catalogue (limit/offset, {count, next, previous, results}). API key with
// the `admin` scope only (operations.ts). The bodies are in schemas.ts.
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Static, TObject, TSchema } from '@sinclair/typebox';
import { baseUrlOf, ctxOf, type FeatureOptions } from '../http/request.ts';
import { moreAfter, pageLinks, parsePage, type Page } from '../http/pagination.ts';
import { invalid, type FieldProblem } from '../http/problem.ts';
import { problemResponses } from '../http/schemas.ts';
import { createDispenseUnit } from './create-dispense-unit.ts';
import { createLabPartner } from './create-lab-partner.ts';
import { createMaterial } from './create-material.ts';
import { createPharmacy } from './create-pharmacy.ts';
import { createQuestionnaire } from './create-questionnaire.ts';
import { createReasonForVisit } from './create-reason-for-visit.ts';
import { createStaff } from './create-staff.ts';
import { listDispenseUnits } from './list-dispense-units.ts';
import { listLabPartners } from './list-lab-partners.ts';
import { listMaterials } from './list-materials.ts';
import { listPharmacies } from './list-pharmacies.ts';
import { listQuestionnaires } from './list-questionnaires.ts';
import { listReasonsForVisit } from './list-reasons-for-visit.ts';
import { listStaff } from './list-staff.ts';
import type { Ctx } from '../context.ts';
import {
  DispenseUnit,
  DispenseUnitBody,
  LabPartner,
  LabPartnerBody,
  LabTest,
  LabTestBody,
  Material,
  MaterialBody,
  PageQuery,
  PartnerParams,
  Pharmacy,
  PharmacyBody,
  Questionnaire,
  QuestionnaireBody,
  Reason,
  ReasonBody,
  referencePage,
  Staff,
  StaffBody,
} from './schemas.ts';
import { createLabTest } from './create-lab-test.ts';
import { listLabTests } from './list-lab-tests.ts';

const BASE = '/core/api/v1/admin';
const tags = ['Reference data'];
const security: Array<Record<string, string[]>> = [{ apiKey: [] }];

export async function referenceRoutes(parent: FastifyInstance, { storage, publicUrl }: FeatureOptions) {
  const app = parent.withTypeProvider<TypeBoxTypeProvider>();
  const problems = problemResponses;

  /** POST (create) and GET (list) of one catalogue; `withParams`: the path parameters of a nested one. */
  function catalogue<B extends TSchema, P extends TSchema = TObject>(
    path: string,
    what: string,
    body: B,
    item: TSchema,
    create: (ctx: Ctx, input: Static<B>, params: Static<P>) => Promise<unknown>,
    list: (ctx: Ctx, page: Page, params: Static<P>) => Promise<{ count: number; results: unknown[] }>,
    withParams?: P,
  ) {
    app.post<{ Body: Static<B>; Params: Static<P> }>(`${BASE}${path}`, {
      schema: {
        tags,
        security,
        summary: `Add ${what}`,
        ...(withParams ? { params: withParams } : {}),
        body,
        response: { 201: item, ...problems(400, 401, 403, ...(withParams ? [404] : []), 409, 415) },
      },
      handler: async (request, reply) => reply.code(201).send(await create(ctxOf(request, storage), request.body, request.params)),
    });
    app.get<{ Querystring: Static<typeof PageQuery>; Params: Static<P> }>(`${BASE}${path}`, {
      schema: {
        tags,
        security,
        summary: `List ${what}`,
        ...(withParams ? { params: withParams } : {}),
        querystring: PageQuery,
        response: { 200: referencePage(item), ...problems(400, 401, 403, ...(withParams ? [404] : [])) },
      },
      handler: async (request) => {
        const query = request.query;
        const errors: FieldProblem[] = [];
        const page = parsePage(query, errors);
        if (errors.length > 0) throw invalid(errors);
        const { count, results } = await list(ctxOf(request, storage), page, request.params);
        const base = baseUrlOf(request, publicUrl);
        return { count, ...pageLinks(base, request.url.split('?', 1)[0]!, query, page, moreAfter(page, count)), results };
      },
    });
  }

  const partnerId = (params: Static<typeof PartnerParams>) => params.id.toLowerCase();

  catalogue('/staff/', 'staff members', StaffBody, Staff, createStaff, listStaff);
  catalogue('/lab-partners/', 'lab partners', LabPartnerBody, LabPartner, createLabPartner, listLabPartners);
  catalogue(
    '/lab-partners/:id/tests/',
    "a lab partner's tests",
    LabTestBody,
    LabTest,
    (ctx, input, params) => createLabTest(ctx, partnerId(params), input),
    (ctx, page, params) => listLabTests(ctx, partnerId(params), page),
    PartnerParams,
  );
  catalogue('/pharmacies/', 'pharmacies', PharmacyBody, Pharmacy, createPharmacy, listPharmacies);
  catalogue('/reason-for-visit-codings/', 'reason-for-visit codings', ReasonBody, Reason, createReasonForVisit, listReasonsForVisit);
  catalogue('/questionnaires/', 'questionnaires (with their questions)', QuestionnaireBody, Questionnaire, createQuestionnaire, listQuestionnaires);
  catalogue('/educational-materials/', 'educational materials', MaterialBody, Material, createMaterial, listMaterials);
  catalogue('/dispense-units/', 'dispense units (NCPDP quantity units of measure)', DispenseUnitBody, DispenseUnit, createDispenseUnit, listDispenseUnits);
}
