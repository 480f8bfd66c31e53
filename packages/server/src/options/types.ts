// What an AutocompleteField's options are and where they come from. Each field names its
// source; a provider per source kind searches options and checks that a picked value is one
// of them.
import type { Kysely } from 'kysely';
import type { Engine } from '../storage/db.ts';
import type { Database } from '../storage/schema.ts';

export interface Coding {
  code: string;
  display: string;
  system: string;
}

/** The option document of the spec: what autocomplete offers (as JSON text) and what `data` stores. */
export interface OptionDoc {
  text: string;
  disabled: boolean;
  description: string | null;
  annotations: string[] | null;
  extra: { coding: Coding[] } & Record<string, unknown>;
  value: string | number;
}

/** Where a field's options come from. */
export type OptionSource =
  /** Coded concepts of these systems (searched in this order); free text (UNSTRUCTURED) is accepted too. */
  | { kind: 'terminology'; systems: readonly string[] };

export interface SourceContext {
  db: Kysely<Database>;
  engine: Engine;
  /** The command's patient. */
  patientKey: string;
  /** The command's values as they will be after this change (for fields that depend on another). */
  data: Record<string, unknown>;
}

export interface OptionProvider<S extends OptionSource = OptionSource> {
  /** Up to `limit` options for a search term, best first; '' gives the field's default list (or none). */
  search(source: S, ctx: SourceContext, term: string, limit: number): Promise<OptionDoc[]>;
  /** The stored form of a picked option, or a message saying why it is not an option of this field. */
  resolve(source: S, ctx: SourceContext, picked: PickedOption): Promise<OptionDoc | string>;
}

/** A picked option after the shape check of values.ts. */
export interface PickedOption {
  text: string;
  value: string | number;
  extra: Record<string, unknown> | null;
}
