// Names the reference data uses: the namespace systems its entries are indexed under in
// `concepts` (never offered by a terminology field: those search their own systems), the coding
// systems its options carry, and the staff roles. No imports: command kinds import this file.

/** Namespace systems of the search index (`concepts.system`); `code` is the entry's id. */
export const IndexSystems = {
  staff: (role: string) => `charta:staff:${role}`,
  labPartner: 'charta:lab-partner',
  labTest: (partnerId: string) => `charta:lab-test:${partnerId}`,
  pharmacy: 'charta:pharmacy',
  reasonForVisit: 'charta:reason-for-visit',
  questionnaire: 'charta:questionnaire',
  educationalMaterial: 'charta:educational-material',
  dispenseUnit: 'charta:dispense-unit',
} as const;

/** Coding system of a lab partner's order code (the partner is the command's lab_partner). */
export const LAB_ORDER_CODE_SYSTEM = 'charta:lab-order-code';
/** NCPDP quantity units of measure are NCI Thesaurus codes. */
export const NCI_THESAURUS_SYSTEM = 'http://ncicb.nci.nih.gov/xml/owl/EVS/Thesaurus.owl';
