// Schemas of the Patients API (docs/api.md, Patients).
import { Type, type Static } from '@sinclair/typebox';
import { Key, Nullable, Timestamp, PageOf, PageParams } from './common.ts';

export const PatientSchema = Type.Object(
  { key: Key, first_name: Type.String(), last_name: Type.String(), birth_date: Nullable(Type.String({ format: 'date' })), created_at: Timestamp },
  { $id: 'Patient' },
);
export type Patient = Static<typeof PatientSchema>;
export const PatientPageSchema = PageOf(Type.Ref('Patient'), 'PatientPage');

export const CreatePatientBody = Type.Object(
  {
    firstName: Type.String({ minLength: 1, maxLength: 100 }),
    lastName: Type.String({ minLength: 1, maxLength: 100 }),
    birthDate: Type.Optional(Type.String({ format: 'date', description: 'YYYY-MM-DD' })),
  },
  { additionalProperties: false },
);
export type CreatePatient = Static<typeof CreatePatientBody>;

/** Registered by the patients plugin so its routes (and /openapi.json) can $ref them. */
export const patientComponents = [PatientSchema, PatientPageSchema];

export const PatientParams = Type.Object({ key: Type.String() });
export const ListPatientsQuery = Type.Object(
  {
    name: Type.Optional(Type.String({ maxLength: 100, description: 'Words (at most 5) that must each appear in "first last", ignoring case' })),
    ...PageParams,
  },
  { additionalProperties: false },
);
