// The code systems Charta keeps terminologies for, the names `import-terminology --system`
// takes, and the record every importer and the starter set produce.
import { CodeSystems } from '@charta/api/constants';

/** `--system` names of import-terminology, and the coding system string each fills. */
export const TERMINOLOGIES = {
  icd10cm: { system: CodeSystems.ICD10, label: 'ICD-10-CM' },
  rxnorm: { system: CodeSystems.RXNORM, label: 'RxNorm' },
  loinc: { system: CodeSystems.LOINC, label: 'LOINC' },
  hcpcs: { system: CodeSystems.HCPCS, label: 'HCPCS Level II' },
  cpt: { system: CodeSystems.CPT, label: 'CPT' },
  snomed: { system: CodeSystems.SNOMED, label: 'SNOMED CT' },
} as const;

export type TerminologyName = keyof typeof TERMINOLOGIES;

/** One coded concept as an importer reads it from a release file. */
export interface ConceptRecord {
  /** The code as the system writes it: `E11.9`, `197361`, `2345-7`, `G0438`, `99213`, `44054006`. */
  code: string;
  /** The text shown to users: ICD-10-CM long description, RxNorm STR, LOINC long common name… */
  display: string;
  /** False for codes that must not be picked any more (inactive, deprecated, non-billable headers). */
  active: boolean;
  /** Small facts worth keeping (RxNorm term type, LOINC class…); JSON-serialisable. */
  extra?: Record<string, string | number | boolean>;
  /**
   * Place among the most used concepts of the system (1 = the most used), where data says so
   * (the starter set's `usage_rank` column); the search ranks used concepts first among equal
   * matches (docs/api.md, "How a search matches and ranks").
   */
  usageRank?: number;
}
