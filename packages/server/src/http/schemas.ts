// TypeBox schemas of the API: they validate requests, type the handlers, shape the responses
// and generate /openapi.json. @charta/client imports the types from here (type-only).
import { Type, type Static, type TSchema } from '@sinclair/typebox';

const Uuid = Type.String({ pattern: '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$', description: 'Dashed UUID' });
const Key = Type.String({ pattern: '^[0-9a-f]{32}$', description: '32 hexadecimal characters' });
const Timestamp = Type.String({ description: 'ISO 8601 UTC timestamp with microseconds, e.g. 2026-11-22T05:26:28.123456Z' });
const Nullable = <T extends TSchema>(t: T) => Type.Union([t, Type.Null()]);

export const ProblemSchema = Type.Object(
  {
    type: Type.String(),
    title: Type.String(),
    status: Type.Integer(),
    detail: Type.String(),
    code: Type.String({ description: 'Stable identifier from the error catalog (docs/errors.md)' }),
    errors: Type.Optional(Type.Array(Type.Object({ field: Type.String(), message: Type.String() }))),
  },
  { $id: 'Problem', additionalProperties: true, description: 'RFC 9457 problem details' },
);

export const CommandSchema = Type.Object(
  {
    uuid: Uuid,
    state: Type.Union([Type.Literal('staged'), Type.Literal('committed'), Type.Literal('entered_in_error')]),
    created_at: Timestamp,
    updated_at: Timestamp,
    schema_key: Type.String(),
    patient_key: Key,
    note_key: Uuid,
    originated_by: Key,
    edited_by: Type.Array(Key),
    committed_by: Nullable(Key),
    entered_in_error_by: Nullable(Key),
    data: Type.Record(Type.String(), Type.Unknown(), { description: 'Field values keyed by field name' }),
  },
  { $id: 'Command' },
);
export type Command = Static<typeof CommandSchema>;

export const pageOf = <T extends TSchema>(item: T, id: string) =>
  Type.Object(
    {
      count: Type.Integer(),
      next: Nullable(Type.String({ format: 'uri' })),
      previous: Nullable(Type.String({ format: 'uri' })),
      results: Type.Array(item),
    },
    { $id: id },
  );

export const CommandPageSchema = pageOf(Type.Ref('Command'), 'CommandPage');
export interface Paginated<T> {
  count: number;
  next: string | null;
  previous: string | null;
  results: T[];
}

const ValuesSchema = Type.Record(Type.String(), Type.Unknown(), { description: 'Field name → value; see the fields endpoint' });

export const CreateCommandJson = Type.Object(
  {
    schemaKey: Type.String({ description: 'Command kind, e.g. plan' }),
    noteKey: Type.Optional(Type.Unknown({ description: 'UUID of the note (anything else: 400 Note does not exist)' })),
    values: Type.Optional(ValuesSchema),
  },
  { additionalProperties: false },
);
export const CreateCommandForm = Type.Object(
  {
    schemaKey: Type.String(),
    noteKey: Type.Optional(Type.String()),
    values: Type.Optional(Type.String({ description: 'JSON object of values' })),
  },
  { additionalProperties: false },
);
export type CreateCommandBody = Static<typeof CreateCommandJson>;

export const PatchCommandJson = Type.Object({ values: ValuesSchema }, { additionalProperties: false });
export type PatchCommandBody = Static<typeof PatchCommandJson>;

export const FieldsSchema = Type.Object(
  {
    schema: Type.String(),
    fields: Type.Array(
      Type.Object({
        name: Type.String(),
        type: Type.String(),
        required: Type.Boolean(),
        choices: Type.Array(Type.Object({ value: Type.String(), text: Type.String() })),
      }),
    ),
  },
  { $id: 'Fields' },
);
export type Fields = Static<typeof FieldsSchema>;

export const AutocompleteOptionSchema = Type.Object(
  { text: Type.String(), value: Type.String({ description: 'JSON document {text, disabled, description, annotations, extra, value}' }) },
  { $id: 'AutocompleteOption' },
);
export type AutocompleteOption = Static<typeof AutocompleteOptionSchema>;

export const PatientSchema = Type.Object(
  { key: Key, first_name: Type.String(), last_name: Type.String(), birth_date: Nullable(Type.String({ format: 'date' })), created_at: Timestamp },
  { $id: 'Patient' },
);
export type Patient = Static<typeof PatientSchema>;

export const CreatePatientBody = Type.Object(
  {
    firstName: Type.String({ minLength: 1, maxLength: 100 }),
    lastName: Type.String({ minLength: 1, maxLength: 100 }),
    birthDate: Type.Optional(Type.String({ format: 'date', description: 'YYYY-MM-DD' })),
  },
  { additionalProperties: false },
);
export type CreatePatient = Static<typeof CreatePatientBody>;

export const NOTE_TYPES = ['encounter', 'review', 'data_import', 'letter', 'message', 'phone_call'] as const;

export const NoteSchema = Type.Object(
  {
    uuid: Uuid,
    patient_key: Key,
    note_type: Type.Union(NOTE_TYPES.map((t) => Type.Literal(t))),
    title: Type.String(),
    locked: Type.Boolean(),
    deleted: Type.Boolean(),
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  { $id: 'Note' },
);
export type Note = Static<typeof NoteSchema>;
export const NotePageSchema = pageOf(Type.Ref('Note'), 'NotePage');

export const CreateNoteBody = Type.Object(
  {
    patientKey: Key,
    noteType: Type.Union(NOTE_TYPES.map((t) => Type.Literal(t))),
    title: Type.Optional(Type.String({ maxLength: 200 })),
  },
  { additionalProperties: false },
);
export type CreateNote = Static<typeof CreateNoteBody>;

export const TokenRequestBody = Type.Object(
  {
    grant_type: Type.String({ maxLength: 64 }),
    client_id: Type.Optional(Type.String({ maxLength: 200 })),
    client_secret: Type.Optional(Type.String({ maxLength: 500 })),
    scope: Type.Optional(Type.String({ maxLength: 500 })),
  },
  { additionalProperties: false },
);

export const TokenSchema = Type.Object({
  access_token: Type.String(),
  token_type: Type.Literal('Bearer'),
  expires_in: Type.Integer(),
  scope: Type.String(),
});
export type Token = Static<typeof TokenSchema>;

export const UuidParams = Type.Object({ uuid: Uuid });
export const KeyParams = Type.Object({ key: Key });

const ERROR_DESCRIPTIONS: Record<number, string> = {
  400: 'Invalid request or wrong state',
  401: 'Missing or invalid credentials',
  403: 'Credentials may not do this',
  404: 'Not found',
  412: 'If-Match does not match the current ETag',
  413: 'Body too large',
  415: 'Unsupported media type',
  422: 'Idempotency-Key reused with another request',
  429: 'Too many requests',
};

/** Error responses of a route, documented as RFC 9457 problem bodies. */
export function problemResponses(...statuses: number[]) {
  return Object.fromEntries(
    statuses.map((status) => [
      status,
      { description: ERROR_DESCRIPTIONS[status] ?? 'Error', content: { 'application/problem+json': { schema: Type.Ref('Problem') } } },
    ]),
  );
}

/** Schemas registered once with app.addSchema so routes can $ref them. */
export const sharedSchemas = [
  ProblemSchema,
  CommandSchema,
  CommandPageSchema,
  FieldsSchema,
  AutocompleteOptionSchema,
  PatientSchema,
  NoteSchema,
  NotePageSchema,
];
