// Admin API of the reference data, under /core/api/v1/admin/: POST creates an entry, GET lists
// a catalogue (limit/offset, {count, next, previous, results}). API key with the `admin` scope
// only (admin-operation.ts). Bodies are JSON, closed (additionalProperties: false), every string bounded.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Type, type TSchema } from '@sinclair/typebox';
import type { Storage } from '../storage/db.ts';
import { baseUrlOf, ctxOf } from '../http/request.ts';
import { pageLinks, parsePage } from '../http/pagination.ts';
import { invalid, type FieldProblem } from '../http/problem.ts';
import { problemResponses } from '../http/schemas.ts';
import type { Ctx } from '../context.ts';
import type { Page } from '../http/pagination.ts';
import { LANGUAGE_CODES } from './languages.ts';
import { QUESTION_KINDS, STAFF_ROLES, INTERNAL_SYSTEM } from './systems.ts';
import { CodeSystems } from '../terminology/code-systems.ts';
import { createStaff } from './create-staff.ts';
import { listStaff } from './list-staff.ts';
import { createLabPartner } from './create-lab-partner.ts';
import { listLabPartners } from './list-lab-partners.ts';
import { createLabTest } from './create-lab-test.ts';
import { listLabTests } from './list-lab-tests.ts';
import { createPharmacy } from './create-pharmacy.ts';
import { listPharmacies } from './list-pharmacies.ts';
import { createReasonForVisit } from './create-reason-for-visit.ts';
import { listReasonsForVisit } from './list-reasons-for-visit.ts';
import { createQuestionnaire } from './create-questionnaire.ts';
import { listQuestionnaires } from './list-questionnaires.ts';
import { createMaterial } from './create-material.ts';
import { listMaterials } from './list-materials.ts';
import { createDispenseUnit } from './create-dispense-unit.ts';
import { listDispenseUnits } from './list-dispense-units.ts';

const BASE = '/core/api/v1/admin';
const tags = ['Reference data'];
const security: Array<Record<string, string[]>> = [{ apiKey: [] }];

/** One line of text: 1 to `max` characters, at least one not blank, no control characters. */
const Text = (max: number, description?: string) =>
  Type.String({ minLength: 1, maxLength: max, pattern: '^(?=[\\s\\S]*\\S)[^\\u0000-\\u001f\\u007f]+$', ...(description ? { description } : {}) });
const Enum = <T extends string>(values: readonly T[], description?: string) =>
  Type.Union(
    values.map((v) => Type.Literal(v)),
    description ? { description } : {},
  );
const Nullable = <T extends TSchema>(t: T) => Type.Union([t, Type.Null()]);
const Timestamp = Type.String({ description: 'ISO 8601 UTC timestamp with microseconds' });
const Id = Type.String({ description: 'Dashed UUID' });
const closed = { additionalProperties: false } as const;

const StaffBody = Type.Object(
  {
    first_name: Text(100),
    last_name: Text(100),
    credentials: Type.Optional(Type.String({ maxLength: 50, pattern: '^[^\\u0000-\\u001f\\u007f]*$', description: 'e.g. MD, NP (may be empty)' })),
    npi: Type.Optional(Nullable(Type.String({ pattern: '^[0-9]{10}$', description: 'National Provider Identifier (10 digits)' }))),
    role: Enum(STAFF_ROLES, 'provider: may order labs and prescribe (offered by ordering_provider, prescriber, supervising_provider)'),
    active: Type.Optional(Type.Boolean({ description: 'Inactive staff are not offered (default true)' })),
  },
  closed,
);
const Staff = Type.Object({
  key: Type.String(),
  first_name: Type.String(),
  last_name: Type.String(),
  credentials: Type.String(),
  npi: Nullable(Type.String()),
  role: Type.String(),
  active: Type.Boolean(),
  created_at: Timestamp,
});

const LabPartnerBody = Type.Object({ name: Text(200) }, closed);
const LabPartner = Type.Object({ id: Id, name: Type.String(), created_at: Timestamp });

const LabTestBody = Type.Object(
  {
    order_code: Text(50, "The lab partner's code for the test (unique within the partner)"),
    name: Text(200),
    loinc_code: Type.Optional(Nullable(Type.String({ pattern: '^[0-9]{1,7}-[0-9]$', description: 'LOINC code, e.g. 4548-4' }))),
  },
  closed,
);
const LabTest = Type.Object({
  id: Id,
  lab_partner: Id,
  order_code: Type.String(),
  name: Type.String(),
  loinc_code: Nullable(Type.String()),
  created_at: Timestamp,
});

const PharmacyBody = Type.Object(
  {
    ncpdp_id: Type.String({ pattern: '^[0-9]{7}$', description: 'NCPDP provider id (7 digits)' }),
    name: Text(200),
    address: Text(200),
    city: Text(100),
    state: Type.String({ pattern: '^[A-Z]{2}$', description: 'Two-letter state code' }),
    zip: Type.String({ pattern: '^[0-9]{5}(-[0-9]{4})?$' }),
    phone: Type.Optional(Nullable(Type.String({ pattern: '^[0-9+() .-]{7,25}$' }))),
  },
  closed,
);
const Pharmacy = Type.Object({
  ncpdp_id: Type.String(),
  name: Type.String(),
  address: Type.String(),
  city: Type.String(),
  state: Type.String(),
  zip: Type.String(),
  phone: Nullable(Type.String()),
  created_at: Timestamp,
});

const ReasonBody = Type.Object(
  {
    system: Type.Optional(
      Enum([INTERNAL_SYSTEM, CodeSystems.SNOMED, CodeSystems.ICD10], `Coding system (default ${INTERNAL_SYSTEM}: a code of this instance)`),
    ),
    code: Text(50),
    display: Text(200),
  },
  closed,
);
const Reason = Type.Object({ id: Id, system: Type.String(), code: Type.String(), display: Type.String(), created_at: Timestamp });

const QuestionnaireBody = Type.Object(
  {
    code: Text(50, 'Unique code, e.g. PHQ-9'),
    name: Text(200),
    prologue: Type.Optional(Type.String({ maxLength: 2000 })),
    questions: Type.Array(
      Type.Object(
        {
          code: Text(50),
          label: Text(500),
          kind: Enum(QUESTION_KINDS, 'TXT free text, INT integer, SING one option, MULT several options'),
          options: Type.Optional(
            Type.Array(Type.Object({ code: Text(50), text: Text(200) }, closed), { maxItems: 50, description: 'SING and MULT only (at least 2)' }),
          ),
        },
        closed,
      ),
      { minItems: 1, maxItems: 100 },
    ),
  },
  closed,
);
const Questionnaire = Type.Object({
  id: Id,
  code: Type.String(),
  name: Type.String(),
  prologue: Type.String(),
  questions: Type.Array(
    Type.Object({
      id: Id,
      code: Type.String(),
      label: Type.String(),
      kind: Type.String(),
      options: Type.Array(Type.Object({ id: Id, code: Type.String(), text: Type.String() })),
    }),
  ),
  created_at: Timestamp,
});

const MaterialBody = Type.Object(
  {
    title: Text(200),
    abstract: Type.Optional(Type.String({ maxLength: 4000 })),
    languages: Type.Array(Enum(LANGUAGE_CODES), { minItems: 1, maxItems: LANGUAGE_CODES.length, description: 'Language codes, e.g. en-us' }),
  },
  closed,
);
const Material = Type.Object({ id: Id, title: Type.String(), abstract: Type.String(), languages: Type.Array(Type.String()), created_at: Timestamp });

const DispenseUnitBody = Type.Object(
  {
    ncpdp_quantity_qualifier_code: Type.String({
      pattern: '^[Cc][0-9]{3,8}$',
      description: 'NCPDP quantity unit of measure (NCI Thesaurus code, e.g. C48542)',
    }),
    description: Text(200),
  },
  closed,
);
const DispenseUnit = Type.Object({ ncpdp_quantity_qualifier_code: Type.String(), description: Type.String(), created_at: Timestamp });

const PageQuery = Type.Object({ limit: Type.Optional(Type.String({ pattern: '^\\d+$' })), offset: Type.Optional(Type.String({ pattern: '^\\d+$' })) }, closed);
const pageOf = (item: TSchema) =>
  Type.Object({ count: Type.Integer(), next: Nullable(Type.String()), previous: Nullable(Type.String()), results: Type.Array(item) });
const PartnerParams = Type.Object({
  id: Type.String({ pattern: '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$', description: 'Lab partner id' }),
});

export function referenceRoutes(app: FastifyInstance, storage: Storage, publicUrl: string | undefined) {
  const problems = problemResponses;

  /** POST (create) and GET (list) of one catalogue. */
  function catalogue<B>(
    path: string,
    what: string,
    body: TSchema,
    item: TSchema,
    create: (ctx: Ctx, input: B, request: FastifyRequest) => Promise<unknown>,
    list: (ctx: Ctx, page: Page, request: FastifyRequest) => Promise<{ count: number; results: unknown[] }>,
    withParams?: TSchema,
  ) {
    app.post(`${BASE}${path}`, {
      schema: {
        tags,
        security,
        summary: `Add ${what}`,
        ...(withParams ? { params: withParams } : {}),
        body,
        response: { 201: item, ...problems(400, 401, 403, ...(withParams ? [404] : []), 409, 415) },
      },
      handler: async (request, reply) => reply.code(201).send(await create(ctxOf(request, storage), request.body as B, request)),
    });
    app.get(`${BASE}${path}`, {
      schema: {
        tags,
        security,
        summary: `List ${what}`,
        ...(withParams ? { params: withParams } : {}),
        querystring: PageQuery,
        response: { 200: pageOf(item), ...problems(400, 401, 403, ...(withParams ? [404] : [])) },
      },
      handler: async (request) => {
        const query = request.query as Record<string, string>;
        const errors: FieldProblem[] = [];
        const page = parsePage(query, errors);
        if (errors.length > 0) throw invalid(errors);
        const { count, results } = await list(ctxOf(request, storage), page, request);
        const base = baseUrlOf(request, publicUrl);
        return { count, ...pageLinks(base, request.url.split('?', 1)[0]!, query, page, count), results };
      },
    });
  }

  const partnerId = (request: FastifyRequest) => (request.params as { id: string }).id.toLowerCase();

  catalogue('/staff/', 'staff members', StaffBody, Staff, createStaff, listStaff);
  catalogue('/lab-partners/', 'lab partners', LabPartnerBody, LabPartner, createLabPartner, listLabPartners);
  catalogue(
    '/lab-partners/:id/tests/',
    "a lab partner's tests",
    LabTestBody,
    LabTest,
    (ctx, input: Parameters<typeof createLabTest>[2], request) => createLabTest(ctx, partnerId(request), input),
    (ctx, page, request) => listLabTests(ctx, partnerId(request), page),
    PartnerParams,
  );
  catalogue('/pharmacies/', 'pharmacies', PharmacyBody, Pharmacy, createPharmacy, listPharmacies);
  catalogue('/reason-for-visit-codings/', 'reason-for-visit codings', ReasonBody, Reason, createReasonForVisit, listReasonsForVisit);
  catalogue('/questionnaires/', 'questionnaires (with their questions)', QuestionnaireBody, Questionnaire, createQuestionnaire, listQuestionnaires);
  catalogue('/educational-materials/', 'educational materials', MaterialBody, Material, createMaterial, listMaterials);
  catalogue('/dispense-units/', 'dispense units (NCPDP quantity units of measure)', DispenseUnitBody, DispenseUnit, createDispenseUnit, listDispenseUnits);
}
