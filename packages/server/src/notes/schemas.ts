// Schemas of the Notes API (docs/api.md, Notes).
import { PageParams } from '../http/pagination.ts';
import { Type, type Static } from '@sinclair/typebox';
import { Key, Timestamp, Uuid, PageOf } from '../http/schemas.ts';

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
export const NotePageSchema = PageOf(Type.Ref('Note'), 'NotePage');

export const CreateNoteBody = Type.Object(
  {
    patientKey: Key,
    noteType: Type.Union(NOTE_TYPES.map((t) => Type.Literal(t))),
    title: Type.Optional(Type.String({ maxLength: 200 })),
  },
  { additionalProperties: false },
);
export type CreateNote = Static<typeof CreateNoteBody>;

/** Registered by the notes plugin so its routes (and /openapi.json) can $ref them. */
export const noteComponents = [NoteSchema, NotePageSchema];

export const NoteParams = Type.Object({ uuid: Type.String({ description: 'Note UUID' }) });
export const ListNotesQuery = Type.Object(
  {
    patient_key: Type.Optional(Type.String({ maxLength: 64 })),
    deleted: Type.Optional(Type.String({ maxLength: 5, description: 'true: only deleted notes; false: only notes not deleted; absent: both' })),
    ...PageParams,
  },
  { additionalProperties: false },
);
