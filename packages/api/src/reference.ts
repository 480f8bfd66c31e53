// Schemas of the reference data admin API (docs/api.md): closed bodies (additionalProperties:
// false), every string bounded.
import { Type, type Static } from '@sinclair/typebox';
import { Nullable, PageParams } from './common.ts';
import { CodeSystems, INTERNAL_SYSTEM, LANGUAGE_CODES, QUESTION_KINDS, STAFF_ROLES } from './constants.ts';

/** One line of text: 1 to `max` characters, at least one not blank, no control characters. */
const Text = (max: number, description?: string) =>
  Type.String({ minLength: 1, maxLength: max, pattern: '^(?=[\\s\\S]*\\S)[^\\u0000-\\u001f\\u007f]+$', ...(description ? { description } : {}) });
const Enum = <T extends string>(values: readonly T[], description?: string) =>
  Type.Union(
    values.map((v) => Type.Literal(v)),
    description ? { description } : {},
  );
const Timestamp = Type.String({ format: 'date-time', description: 'ISO 8601 UTC timestamp with microseconds' });
const Id = Type.String({ description: 'Dashed UUID' });
const closed = { additionalProperties: false } as const;

export const StaffBody = Type.Object(
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
export const Staff = Type.Object({
  key: Type.String(),
  first_name: Type.String(),
  last_name: Type.String(),
  credentials: Type.String(),
  npi: Nullable(Type.String()),
  role: Type.String(),
  active: Type.Boolean(),
  created_at: Timestamp,
});

/**
 * A staff member as the clinical pages read one (`GET /core/api/v1/staff/{key}`, docs/api.md,
 * "Staff"): who wrote or committed a command, by name.
 */
export const StaffMemberSchema = Type.Object(
  {
    key: Type.String(),
    name: Type.String({ description: 'First and last name; the name given to a staff member made for credentials' }),
    credentials: Type.String({ description: 'e.g. MD, NP (may be empty)' }),
    role: Type.String({ description: 'provider, nurse or staff' }),
    active: Type.Boolean(),
  },
  { $id: 'StaffMember' },
);
export type StaffMember = Static<typeof StaffMemberSchema>;
export const StaffParams = Type.Object({ key: Type.String({ maxLength: 64 }) });

export const LabPartnerBody = Type.Object({ name: Text(200) }, closed);
export const LabPartner = Type.Object({ id: Id, name: Type.String(), created_at: Timestamp });

export const LabTestBody = Type.Object(
  {
    order_code: Text(50, "The lab partner's code for the test (unique within the partner)"),
    name: Text(200),
    loinc_code: Type.Optional(Nullable(Type.String({ pattern: '^[0-9]{1,7}-[0-9]$', description: 'LOINC code, e.g. 4548-4' }))),
  },
  closed,
);
export const LabTest = Type.Object({
  id: Id,
  lab_partner: Id,
  order_code: Type.String(),
  name: Type.String(),
  loinc_code: Nullable(Type.String()),
  created_at: Timestamp,
});

export const PharmacyBody = Type.Object(
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
export const Pharmacy = Type.Object({
  ncpdp_id: Type.String(),
  name: Type.String(),
  address: Type.String(),
  city: Type.String(),
  state: Type.String(),
  zip: Type.String(),
  phone: Nullable(Type.String()),
  created_at: Timestamp,
});

export const ReasonBody = Type.Object(
  {
    system: Type.Optional(
      Enum([INTERNAL_SYSTEM, CodeSystems.SNOMED, CodeSystems.ICD10], `Coding system (default ${INTERNAL_SYSTEM}: a code of this instance)`),
    ),
    code: Text(50),
    display: Text(200),
  },
  closed,
);
export const Reason = Type.Object({ id: Id, system: Type.String(), code: Type.String(), display: Type.String(), created_at: Timestamp });

export const QuestionnaireBody = Type.Object(
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
            Type.Array(
              Type.Object(
                {
                  code: Text(50),
                  text: Text(200),
                  score: Type.Optional(
                    Type.Integer({
                      minimum: 0,
                      maximum: 1000,
                      description: "The points this answer adds to the questionnaire's total score: on every option of a SING question, or on none",
                    }),
                  ),
                },
                closed,
              ),
              { maxItems: 50, description: 'SING and MULT only (at least 2)' },
            ),
          ),
        },
        closed,
      ),
      { minItems: 1, maxItems: 100 },
    ),
  },
  closed,
);
export const Questionnaire = Type.Object({
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
      options: Type.Array(Type.Object({ id: Id, code: Type.String(), text: Type.String(), score: Type.Optional(Type.Integer()) })),
    }),
  ),
  created_at: Timestamp,
});

export const MaterialBody = Type.Object(
  {
    title: Text(200),
    abstract: Type.Optional(Type.String({ maxLength: 4000 })),
    languages: Type.Array(Enum(LANGUAGE_CODES), { minItems: 1, maxItems: LANGUAGE_CODES.length, description: 'Language codes, e.g. en-us' }),
  },
  closed,
);
export const Material = Type.Object({ id: Id, title: Type.String(), abstract: Type.String(), languages: Type.Array(Type.String()), created_at: Timestamp });

export const DispenseUnitBody = Type.Object(
  {
    ncpdp_quantity_qualifier_code: Type.String({
      pattern: '^[Cc][0-9]{3,8}$',
      description: 'NCPDP quantity unit of measure (NCI Thesaurus code, e.g. C48542)',
    }),
    description: Text(200),
  },
  closed,
);
export const DispenseUnit = Type.Object({ ncpdp_quantity_qualifier_code: Type.String(), description: Type.String(), created_at: Timestamp });

export const PartnerParams = Type.Object({
  id: Type.String({ pattern: '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$', description: 'Lab partner id' }),
});

/** The query of a plugin's list of a catalogue (`this.data.reference.<catalogue>.list`): a page, and a nested catalogue's parent. */
export const ReferenceReadQuery = Type.Object(
  {
    parent: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: "A nested catalogue's parent (lab_tests: the lab partner's id)" })),
    ...PageParams,
  },
  { additionalProperties: false },
);
