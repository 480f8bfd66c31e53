// The shape of a command kind: its fields as /fields/ publishes them, plus the limits
// and rules the server enforces on `values` (on create/PATCH) and at commit.
import type { OptionSource } from '../../options/types.ts';

/** Field type names, as the original Commands API reports them. */
export type FieldType =
  | 'MultiLineTextField'
  | 'TextField'
  | 'AutocompleteField'
  | 'ChoiceField'
  | 'MultipleChoiceField'
  | 'DateField'
  | 'ApproximateDateField'
  | 'IntegerField'
  | 'DecimalField'
  | 'CheckboxField';

export interface Choice {
  readonly value: string;
  readonly text: string;
}

export interface FieldDef {
  /** Commands-API field name: the key in `values` / `data`. */
  readonly name: string;
  readonly type: FieldType;
  /** Required to commit (never required on create or PATCH). */
  readonly required: boolean;
  /** ChoiceField / MultipleChoiceField only. */
  readonly choices?: readonly Choice[];
  /** Text fields: maximum length in characters. */
  readonly maxLength?: number;
  /** IntegerField / DecimalField bounds (inclusive). */
  readonly min?: number;
  readonly max?: number;
  /** DecimalField: the value must be strictly greater than `min`. */
  readonly exclusiveMin?: boolean;
  /** AutocompleteField holding a list of options (e.g. prescribe.indications). */
  readonly multiple?: boolean;
  /** Upper bound on the number of picks of a `multiple` field. */
  readonly maxItems?: number;
  /** Coding systems an option of this field may carry (documentation; checked by the autocomplete issue). */
  readonly codingSystems?: readonly string[];
  /** AutocompleteField: where its options come from (see src/options/). */
  readonly source?: OptionSource;
  /** One sentence for the API reference. */
  readonly description: string;
}

export interface CommandKind {
  /** schema_key, e.g. `medicationStatement`. */
  readonly key: string;
  /** Human label, e.g. "Medication statement". */
  readonly label: string;
  readonly description: string;
  /** In the fixed order /fields/ reports them. */
  readonly fields: readonly FieldDef[];
}
