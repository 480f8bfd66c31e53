// The shape of a command kind: its fields as /fields/ publishes them, the limits and rules the
// server enforces on `values` (on create/PATCH) and at commit, and the kind's own behaviour as
// optional hooks the operations call (docs/command-kinds.md lists the kinds and their fields).
import type { FieldType as ApiFieldType } from '@charta/api/constants';
import type { OptionSource } from '../../autocomplete/types.ts';
import type { ChartWriter, CommittedCommand } from '../../chart/writer.ts';

/** Field type names, as the original Commands API reports them. */
export type FieldType = ApiFieldType;

export interface Choice {
  readonly value: string;
  readonly text: string;
  /** A scored questionnaire's answer: the points it adds to the total. */
  readonly score?: number;
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
  /** AutocompleteField: where its options come from (see src/autocomplete/). */
  readonly source?: OptionSource;
  /** One sentence for the API reference. */
  readonly description: string;
  /** What a form shows as the field's label, when its name does not say it (a questionnaire's question); /fields/ reports it. */
  readonly label?: string;
}

export interface CommandKind {
  /** schema_key, e.g. `medicationStatement`. */
  readonly key: string;
  /** Human label, e.g. "Medication statement". */
  readonly label: string;
  readonly description: string;
  /** In the fixed order /fields/ reports them. */
  readonly fields: readonly FieldDef[];
  /**
   * Fields a command of this kind adds from its data (a questionnaire's questions, once the
   * questionnaire is picked): listed by /fields/ after `fields`, checked on create and PATCH once
   * the data they come from is known. A value of a name the kind `owns` that is no longer among
   * the fields offered is dropped.
   */
  readonly dataFields?: DataFields;
  /**
   * What committing a command of this kind does to the patient's chart, inside the commit
   * transaction; throwing a problem refuses the commit. Entering the command in error undoes it
   * generically (chart/writer.ts, undoInChart), so a kind needs no undo of its own.
   */
  readonly onCommit?: (chart: ChartWriter, command: CommittedCommand) => Promise<void>;
}

export interface DataFields {
  /** Whether a field name is one of these fields (whatever the data). */
  owns(name: string): boolean;
  /** The fields offered for this data. */
  of(data: Record<string, unknown>): readonly FieldDef[];
}
