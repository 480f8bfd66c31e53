// The coding system strings (canvas_sdk CodeSystems) that command fields, the terminology store
// and the reference data share; docs/command-kinds.md lists them.

/** Coding system strings (canvas_sdk CodeSystems). */
export const CodeSystems = {
  SNOMED: 'http://snomed.info/sct',
  RXNORM: 'http://www.nlm.nih.gov/research/umls/rxnorm',
  LOINC: 'http://loinc.org',
  FDB: 'http://www.fdbhealth.com/',
  ICD10: 'ICD-10',
  CPT: 'http://www.ama-assn.org/go/cpt',
  HCPCS: 'http://www.cms.gov/medicare/coding/medhcpcsgeninfo',
  NDC: 'http://hl7.org/fhir/sid/ndc',
  UNSTRUCTURED: 'UNSTRUCTURED',
} as const;

/** The short name a person reads for each coding system (docs/command-kinds.md, "Coding systems"). */
export const CODE_SYSTEM_NAMES: Readonly<Record<string, string>> = {
  [CodeSystems.SNOMED]: 'SNOMED CT',
  [CodeSystems.RXNORM]: 'RxNorm',
  [CodeSystems.LOINC]: 'LOINC',
  [CodeSystems.FDB]: 'FDB',
  [CodeSystems.ICD10]: 'ICD-10',
  [CodeSystems.CPT]: 'CPT',
  [CodeSystems.HCPCS]: 'HCPCS',
  [CodeSystems.NDC]: 'NDC',
  [CodeSystems.UNSTRUCTURED]: 'free text',
};

/** A coding system's short name; a system of no known name reads as it is. */
export const codeSystemName = (system: string): string => CODE_SYSTEM_NAMES[system] ?? system;
