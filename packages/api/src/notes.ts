// Schemas of the Notes API (docs/api.md, Notes).
import { Type, type Static } from '@sinclair/typebox';
import { Key, Timestamp, Uuid, PageOf, PageParams } from './common.ts';
import { NOTE_TYPES, NOTE_TYPES_TAKING_COMMANDS } from './constants.ts';

export const NoteSchema = Type.Object(
  {
    uuid: Uuid,
    patient_key: Key,
    note_type: Type.Union(NOTE_TYPES.map((t) => Type.Literal(t))),
    title: Type.String(),
    locked: Type.Boolean(),
    deleted: Type.Boolean(),
    takes_commands: Type.Boolean({
      description: `Whether commands can be added to the note or changed in it now: a note of type ${NOTE_TYPES_TAKING_COMMANDS.join(', ')}, neither locked nor deleted`,
    }),
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
