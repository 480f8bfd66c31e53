// Reference entries as autocomplete options (the option document of the spec). What a search
// offers and what a picked value is stored as are built here, from the stored rows only.
import { CodeSystems } from '@charta/api/constants';
import { optionDoc } from '../autocomplete/option.ts';
import type { OptionDoc } from '../autocomplete/types.ts';
import type {
  DispenseUnitRow,
  LabPartnerRow,
  LabTestRow,
  MaterialRow,
  PharmacyRow,
  QuestionRow,
  QuestionnaireRow,
  ReasonForVisitRow,
  StaffRow,
} from '../storage/reference-repository.ts';
import { languageName } from '@charta/api/constants';
import { LAB_ORDER_CODE_SYSTEM, NCI_THESAURUS_SYSTEM } from './systems.ts';
import { INTERNAL_SYSTEM } from '@charta/api/constants';

/** "Alex Demo, MD" (no credentials: "Alex Demo"); staff made for credentials have only `name`. */
export function staffText(row: Pick<StaffRow, 'first_name' | 'last_name' | 'credentials' | 'name'>): string {
  const name = `${row.first_name} ${row.last_name}`.trim() || row.name;
  return row.credentials ? `${name}, ${row.credentials}` : name;
}

export const staffOption = (row: StaffRow): OptionDoc =>
  optionDoc(staffText(row), row.key, [], {
    description: row.role,
    annotations: row.npi ? [row.npi] : null,
    extra: { staff: { key: row.key, first_name: row.first_name, last_name: row.last_name, credentials: row.credentials, npi: row.npi, role: row.role } },
  });

export const labPartnerOption = (row: LabPartnerRow): OptionDoc => optionDoc(row.name, row.id, []);

/** LOINC coding first (when the test has one), then the partner's order code. */
export const labTestOption = (row: LabTestRow): OptionDoc =>
  optionDoc(
    row.name,
    row.id,
    [
      ...(row.loinc_code ? [{ code: row.loinc_code, display: row.name, system: CodeSystems.LOINC }] : []),
      { code: row.order_code, display: row.name, system: LAB_ORDER_CODE_SYSTEM },
    ],
    { annotations: [row.order_code], extra: { lab_partner: row.partner_id, order_code: row.order_code } },
  );

export const pharmacyAddress = (row: PharmacyRow) => `${row.address}, ${row.city}, ${row.state} ${row.zip}`;

export const pharmacyOption = (row: PharmacyRow): OptionDoc =>
  optionDoc(`${row.name}, ${pharmacyAddress(row)}`, row.ncpdp_id, [], {
    description: row.phone,
    annotations: [row.ncpdp_id],
    extra: { pharmacy: { ncpdp_id: row.ncpdp_id, name: row.name, address: row.address, city: row.city, state: row.state, zip: row.zip, phone: row.phone } },
  });

export const reasonForVisitOption = (row: ReasonForVisitRow): OptionDoc =>
  optionDoc(row.display, row.id, [{ code: row.code, display: row.display, system: row.system }], { annotations: [row.code] });

export interface QuestionDefinition {
  pk: string;
  code: string;
  label: string;
  type: string;
  options: Array<{ pk: string; code: string; text: string; score?: number }>;
}

export function questionDefinition(row: QuestionRow): QuestionDefinition {
  const options = row.options === null ? [] : (JSON.parse(row.options) as Array<{ id: string; code: string; text: string; score?: number }>);
  return {
    pk: row.id,
    code: row.code,
    label: row.label,
    type: row.kind,
    options: options.map((o) => ({ pk: o.id, code: o.code, text: o.text, ...(o.score === undefined ? {} : { score: o.score }) })),
  };
}

/** The questionnaire with its whole definition in `extra`, like the original. */
export const questionnaireOption = (row: QuestionnaireRow, questions: QuestionRow[]): OptionDoc =>
  optionDoc(row.name, row.id, [{ code: row.code, display: row.name, system: INTERNAL_SYSTEM }], {
    annotations: [row.code],
    extra: { pk: row.id, code: row.code, name: row.name, prologue: row.prologue, carry_forward_on_init: false, questions: questions.map(questionDefinition) },
  });

export const materialLanguages = (row: MaterialRow): string[] => JSON.parse(row.languages) as string[];

export const materialOption = (row: MaterialRow): OptionDoc =>
  optionDoc(row.title, row.id, [], { description: row.abstract || null, extra: { languages: materialLanguages(row) } });

export const languageOption = (code: string): OptionDoc => optionDoc(languageName(code), code, [], { annotations: [code] });

/** ClinicalQuantity as far as the catalogue knows it: no representative NDC. */
export const dispenseUnitOption = (row: DispenseUnitRow): OptionDoc =>
  optionDoc(row.description, row.code, [{ code: row.code, display: row.description, system: NCI_THESAURUS_SYSTEM }], {
    annotations: [row.code],
    extra: { clinical_quantity: { ncpdp_quantity_qualifier_code: row.code, description: row.description } },
  });
