// GET /core/api/v1/commands/{uuid}/fields/ and the per-field autocomplete endpoint.
import type { Ctx } from '../context.ts';
import { invalid, problem } from '../http/problem.ts';
import { searchOptions, toWire } from '../autocomplete/index.ts';
import { fieldsFor, getKind } from './kinds/index.ts';
import type { FieldDef } from './kinds/types.ts';
import { CodeSystems } from '@charta/api/constants';
import { getCommand } from './get.ts';

export interface FieldsView {
  schema: string;
  fields: Array<{
    name: string;
    type: string;
    required: boolean;
    choices: Array<{ value: string; text: string; score?: number }>;
    max_items?: number;
    free_text?: true;
    label?: string;
  }>;
}

export function describeFields(fields: readonly FieldDef[]): FieldsView['fields'] {
  return fields.map((f) => ({
    name: f.name,
    type: f.type,
    required: f.required,
    choices: (f.choices ?? []).map((c) => ({ value: c.value, text: c.text, ...(c.score === undefined ? {} : { score: c.score }) })),
    // A field holding a list of options says how many it takes (docs/api.md, "Fields").
    ...(f.multiple ? { max_items: f.maxItems ?? 1 } : {}),
    // A coded field that also takes free text (an UNSTRUCTURED coding) says so (docs/api.md, "Fields").
    ...(f.codingSystems?.includes(CodeSystems.UNSTRUCTURED) ? { free_text: true as const } : {}),
    // A questionnaire's question carries its text.
    ...(f.label !== undefined ? { label: f.label } : {}),
  }));
}

export async function commandFields(ctx: Ctx, uuid: string): Promise<FieldsView> {
  const command = await getCommand(ctx, uuid);
  return { schema: command.schema_key, fields: describeFields(fieldsFor(getKind(command.schema_key)!, command.data).fields) };
}

export interface AutocompleteOption {
  text: string;
  /** JSON document of {text, disabled, description, annotations, extra, value}. */
  value: string;
}

export const DEFAULT_OPTIONS = 20;
export const MAX_OPTIONS = 100;

/** Options for an AutocompleteField of a command, best first (see src/autocomplete/). */
export async function autocomplete(ctx: Ctx, uuid: string, fieldName: string, searchTerm: string, limitAsked?: number): Promise<AutocompleteOption[]> {
  const limit = limitAsked ?? DEFAULT_OPTIONS;
  if (!Number.isSafeInteger(limit) || limit < 1 || limit > MAX_OPTIONS) {
    throw invalid([{ field: 'limit', message: `must be an integer from 1 to ${MAX_OPTIONS}` }]);
  }
  const command = await getCommand(ctx, uuid);
  const field = getKind(command.schema_key)!.fields.find((f) => f.name === fieldName);
  if (field === undefined) throw problem('field_not_found', { detail: `Field '${fieldName}' not found on ${command.schema_key}` });
  if (field.type !== 'AutocompleteField') throw problem('field_not_autocomplete');
  if (field.source === undefined) return [];
  const context = { db: ctx.storage.reader, engine: ctx.storage.engine, patientKey: command.patient_key, data: command.data };
  const found = await searchOptions({ ...field, source: field.source }, context, searchTerm, limit);
  // The after-search event: enabled plugins may reorder, filter or annotate (docs/plugins.md, "Events").
  const actor = { staffKey: ctx.principal.staffKey ?? ctx.principal.credential, requestId: ctx.requestId, depth: ctx.eventDepth ?? 0 };
  const options =
    ctx.runtime === undefined
      ? found
      : await ctx.runtime.afterSearch({ schemaKey: command.schema_key, field: field.name, term: searchTerm, options: found }, actor);
  return options.map(toWire);
}
