// Schemas of the Commands API: the command resource, its page, the create and change bodies,
// the fields of a kind and an autocomplete option (docs/api.md, The nine Commands API endpoints).
import { Type, type Static, type TOptional, type TString } from '@sinclair/typebox';
import { Key, Nullable, Timestamp, Uuid, PageOf, PageParams } from './common.ts';
import {
  COMMAND_EVENT_PREFIXES,
  COMMAND_STATES,
  FIELD_TYPES,
  LIST_FILTERS,
  MAX_SEARCH_TERM,
  ORDERINGS,
  TIME_FILTERS,
  type CommandKindKey,
} from './constants.ts';

export const CommandSchema = Type.Object(
  {
    uuid: Uuid,
    state: Type.Union(COMMAND_STATES.map((s) => Type.Literal(s))),
    created_at: Timestamp,
    updated_at: Timestamp,
    schema_key: Type.Union(
      (Object.keys(COMMAND_EVENT_PREFIXES) as CommandKindKey[]).map((k) => Type.Literal(k)),
      { description: 'The command kind' },
    ),
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

export const CommandPageSchema = PageOf(Type.Ref('Command'), 'CommandPage');

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
export type CreateCommandFormBody = Static<typeof CreateCommandForm>;

export const PatchCommandJson = Type.Object({ values: ValuesSchema }, { additionalProperties: false });
export type PatchCommandBody = Static<typeof PatchCommandJson>;

export const FieldsSchema = Type.Object(
  {
    schema: Type.String(),
    fields: Type.Array(
      Type.Object({
        name: Type.String(),
        type: Type.Union(FIELD_TYPES.map((t) => Type.Literal(t))),
        required: Type.Boolean(),
        choices: Type.Array(
          Type.Object({
            value: Type.String(),
            text: Type.String(),
            score: Type.Optional(Type.Integer({ description: 'A scored questionnaire\'s answer: the points it adds to the total (docs/api.md, "Fields")' })),
          }),
        ),
        max_items: Type.Optional(Type.Integer({ minimum: 1, description: 'Only on an AutocompleteField holding a list of options: how many it takes' })),
        free_text: Type.Optional(
          Type.Literal(true, { description: 'Only on an AutocompleteField that also takes free text: an option whose coding has the system UNSTRUCTURED' }),
        ),
        label: Type.Optional(Type.String({ description: "Only on a questionnaire's question field: the question's text" })),
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

/** A concept an option stands for: its code in a code system (free text: the system UNSTRUCTURED, the text as its code). */
export interface Coding {
  code: string;
  display: string;
  system: string;
}

/**
 * An autocomplete option as its JSON document (an AutocompleteOption's `value`, parsed), as a
 * command's `data` stores a picked one, and as an after-search event gives the options to a plugin.
 */
export interface OptionDocument {
  text: string;
  disabled: boolean;
  description: string | null;
  annotations: string[] | null;
  extra: { coding: Coding[] } & Record<string, unknown>;
  value: string | number;
}

/** Registered by the commands plugin so its routes (and /openapi.json) can $ref them. */
export const commandComponents = [CommandSchema, CommandPageSchema, FieldsSchema, AutocompleteOptionSchema];

export const CommandParams = Type.Object({ uuid: Type.String({ description: 'Command UUID' }) });
const IfMatch = Type.Optional(Type.String({ description: 'ETag from a previous response; 412 if the command changed since' }));
export const IfMatchHeaders = Type.Object({ 'if-match': IfMatch });
export const TransitionHeaders = Type.Object({
  'if-match': IfMatch,
  'idempotency-key': Type.Optional(Type.String({ description: 'Replays the first response to a repeated request' })),
});
export const CreateCommandHeaders = Type.Object({ 'idempotency-key': Type.Optional(Type.String()) });

const FILTER_NAMES = [...LIST_FILTERS, ...TIME_FILTERS];
const filters = Object.fromEntries(FILTER_NAMES.map((name) => [name, Type.Optional(Type.String({ maxLength: 100 }))])) as Record<
  (typeof FILTER_NAMES)[number],
  TOptional<TString>
>;
export const ListCommandsQuery = Type.Object(
  {
    ...filters,
    ordering: Type.Optional(Type.Union(ORDERINGS.map((o) => Type.Literal(o)))),
    ...PageParams,
  },
  { additionalProperties: false },
);

export const AutocompleteParams = Type.Object({ uuid: Type.String(), field: Type.String({ maxLength: 100 }) });
export const AutocompleteQuery = Type.Object(
  {
    search_term: Type.Optional(Type.String({ maxLength: MAX_SEARCH_TERM })),
    limit: Type.Optional(Type.Integer({ description: 'Options to answer, 1 to 100 (default 20)' })),
  },
  { additionalProperties: false },
);
