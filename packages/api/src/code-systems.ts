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
