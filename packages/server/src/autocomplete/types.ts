// What an AutocompleteField's options are and where they come from. Each field names its
// source; a provider per source kind searches options and checks that a picked value is one
// of them. The providers live with the features whose data they offer (terminology/,
// reference/, chart/) and are registered with the framework when the app is assembled
// (src/autocomplete-providers.ts).
import type { Kysely } from 'kysely';
import type { Engine } from '../storage/db.ts';
import type { Database } from '../storage/schema.ts';
import type { StaffRole } from '@charta/api/constants';
import type { Coding, OptionDocument } from '@charta/api';

/** The option document of the wire (@charta/api): what autocomplete offers (as JSON text) and what `data` stores. */
export type OptionDoc = OptionDocument;
export type { Coding };

/** Where a field's options come from. */
export type OptionSource =
  /**
   * Coded concepts of these systems (searched in this order); free text (UNSTRUCTURED) is accepted too.
   * `conditionsFirst`: the patient's active conditions coded in these systems come first (all of
   * them for an empty term), as a clinician justifying an order means one of them most often.
   */
  | { kind: 'terminology'; systems: readonly string[]; conditionsFirst?: boolean }
  // Reference data of the instance (src/reference/, reference/autocomplete-provider.ts):
  /** Active staff members (of this role only, when given); value = staff key. */
  | { kind: 'staff'; role?: StaffRole }
  /** Lab partners; value = partner id. */
  | { kind: 'labPartner' }
  /** Tests of the lab partner picked in the field `partnerField`; value = test id. */
  | { kind: 'labTest'; partnerField: string }
  /** Pharmacies; value = NCPDP id. */
  | { kind: 'pharmacy' }
  /** The instance's reason-for-visit codings; value = coding id. */
  | { kind: 'reasonForVisit' }
  /** Questionnaires (an empty term lists them); value = questionnaire id, extra = its definition. */
  | { kind: 'questionnaire' }
  /** Educational materials; value = material id. */
  | { kind: 'educationalMaterial' }
  /** The languages of the material picked in the field `materialField`; value = language code. */
  | { kind: 'materialLanguage'; materialField: string }
  /** Dispense units (NCPDP quantity units of measure); value = the code. */
  | { kind: 'dispenseUnit' }
  /** The patient's chart (src/chart/, chart/autocomplete-provider.ts): active conditions or medications, open goals; value = its id. */
  | { kind: 'chart'; entity: 'condition' | 'medication' | 'goal' };

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

/** One provider per source kind: what the app registers with the framework (autocomplete/index.ts). */
export type OptionProviders = { [K in OptionSource['kind']]: OptionProvider<Extract<OptionSource, { kind: K }>> };

/**
 * What the framework needs of a field definition: its name, its source and whether it holds a
 * list of options. A command kind's FieldDef (commands/kinds/types.ts) satisfies it.
 */
export interface CodedField {
  readonly name: string;
  readonly source?: OptionSource;
  readonly multiple?: boolean;
}

/** A picked option after the shape check of check-values.ts. */
export interface PickedOption {
  text: string;
  value: string | number;
  extra: Record<string, unknown> | null;
}
