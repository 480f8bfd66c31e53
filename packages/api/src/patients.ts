// Schemas of the Patients API (docs/api.md, Patients).
import { Type, type Static } from '@sinclair/typebox';
import { Key, Nullable, Timestamp, PageOf, PageParams } from './common.ts';
import { SEXES_AT_BIRTH, type SexAtBirth } from './constants.ts';
import { PATIENT_METADATA_KEY_MAX, PATIENT_METADATA_KEY_PATTERN, PATIENT_METADATA_VALUE_MAX } from './effects.ts';

export const PatientSchema = Type.Object(
  {
    key: Key,
    first_name: Type.String(),
    last_name: Type.String(),
    birth_date: Nullable(Type.String({ format: 'date' })),
    sex_at_birth: Type.Unsafe<SexAtBirth | null>({
      type: ['string', 'null'],
      enum: [...SEXES_AT_BIRTH, null],
      description: 'female, male, other or unknown (FHIR administrative gender); null when not given',
    }),
    created_at: Timestamp,
  },
  { $id: 'Patient' },
);
export type Patient = Static<typeof PatientSchema>;
export const PatientPageSchema = PageOf(Type.Ref('Patient'), 'PatientPage');

export const CreatePatientBody = Type.Object(
  {
    firstName: Type.String({ minLength: 1, maxLength: 100 }),
    lastName: Type.String({ minLength: 1, maxLength: 100 }),
    birthDate: Type.Optional(Type.String({ format: 'date', description: 'YYYY-MM-DD' })),
    sexAtBirth: Type.Optional(
      Type.Union(
        SEXES_AT_BIRTH.map((s) => Type.Literal(s)),
        { description: 'female, male, other or unknown' },
      ),
    ),
  },
  { additionalProperties: false },
);
export type CreatePatient = Static<typeof CreatePatientBody>;

/**
 * A key/value pair a plugin keeps on a patient (docs/api.md, "Patient metadata"), written by the
 * UPSERT_PATIENT_METADATA effect in the plugin's own namespace (its name).
 */
export const PatientMetadataSchema = Type.Object(
  {
    namespace: Type.String({ description: 'The plugin that wrote it (its name)' }),
    key: Type.String({ pattern: PATIENT_METADATA_KEY_PATTERN, maxLength: PATIENT_METADATA_KEY_MAX, description: 'The key within the namespace' }),
    value: Type.String({ maxLength: PATIENT_METADATA_VALUE_MAX }),
    updated_at: Timestamp,
    updated_by: Type.String({ description: 'Who wrote the value last: `plugin:<name>`' }),
  },
  { $id: 'PatientMetadata' },
);
export type PatientMetadata = Static<typeof PatientMetadataSchema>;
export const PatientMetadataPageSchema = PageOf(Type.Ref('PatientMetadata'), 'PatientMetadataPage');

/** Registered by the patients plugin so its routes (and /openapi.json) can $ref them. */
export const patientComponents = [PatientSchema, PatientPageSchema, PatientMetadataSchema, PatientMetadataPageSchema];

export const PatientParams = Type.Object({ key: Type.String() });
export const ListPatientsQuery = Type.Object(
  {
    name: Type.Optional(Type.String({ maxLength: 100, description: 'Words (at most 5) that must each appear in "first last", ignoring case' })),
    ...PageParams,
  },
  { additionalProperties: false },
);
