// Adding entries to the catalogues: the checks against what is stored (duplicates, the lab
// partner of a test), the row and its search-index entry — all on the caller's transaction, so
// the admin API (with its audit row) and the demo seed write the same way.
import type { Kysely } from 'kysely';
import type { Database } from '../storage/schema.ts';
import * as repo from '../storage/reference-repository.ts';
import { problem, type FieldProblem } from '../http/problem.ts';
import { newKey, newUuid } from '../lib/ids.ts';
import { nowMicros } from '../lib/time.ts';
import { indexEntries } from './search-index.ts';
import { pharmacyAddress, staffText } from './options.ts';
import { IndexSystems } from './systems.ts';
import { INTERNAL_SYSTEM, type QuestionKind, type StaffRole } from '@charta/api/constants';

type Trx = Kysely<Database>;

const exists = (detail: string) => problem('reference_exists', { detail });

export interface StaffInput {
  first_name: string;
  last_name: string;
  credentials?: string;
  npi?: string | null;
  role: StaffRole;
  active?: boolean;
}

export async function addStaff(trx: Trx, input: StaffInput): Promise<repo.StaffRow> {
  const npi = input.npi ?? null;
  if (npi !== null && (await repo.staffByNpi(trx, npi)) !== undefined) throw exists(`A staff member with NPI ${npi} already exists`);
  const row: repo.StaffRow = {
    key: newKey(),
    name: `${input.first_name} ${input.last_name}`,
    first_name: input.first_name,
    last_name: input.last_name,
    credentials: input.credentials ?? '',
    npi,
    role: input.role,
    active: input.active === false ? 0 : 1,
    created_at: nowMicros(),
  };
  await repo.insertStaffMember(trx, row);
  await indexEntries(trx, [
    {
      system: IndexSystems.staff(row.role),
      id: row.key,
      display: staffText(row),
      code: npi ?? '',
      words: [row.last_name, row.first_name, row.credentials, row.role],
      active: row.active === 1,
    },
  ]);
  return row;
}

export async function addLabPartner(trx: Trx, input: { name: string }): Promise<repo.LabPartnerRow> {
  if ((await repo.labPartnerByName(trx, input.name)) !== undefined) throw exists(`A lab partner named "${input.name}" already exists`);
  const row = { id: newUuid(), name: input.name, created_at: nowMicros() };
  await repo.insertLabPartner(trx, row);
  await indexEntries(trx, [{ system: IndexSystems.labPartner, id: row.id, display: row.name }]);
  return row;
}

export interface LabTestInput {
  order_code: string;
  name: string;
  loinc_code?: string | null;
}

export async function addLabTest(trx: Trx, partnerId: string, input: LabTestInput): Promise<repo.LabTestRow> {
  const partner = await repo.labPartnerById(trx, partnerId);
  if (partner === undefined) throw problem('lab_partner_not_found');
  if ((await repo.labTestByOrderCode(trx, partner.id, input.order_code)) !== undefined) {
    throw exists(`${partner.name} already has a test with order code ${input.order_code}`);
  }
  const row = {
    id: newUuid(),
    partner_id: partner.id,
    order_code: input.order_code,
    name: input.name,
    loinc_code: input.loinc_code ?? null,
    created_at: nowMicros(),
  };
  await repo.insertLabTest(trx, row);
  await indexEntries(trx, [
    { system: IndexSystems.labTest(partner.id), id: row.id, display: row.name, code: row.order_code, words: row.loinc_code ? [row.loinc_code] : [] },
  ]);
  return row;
}

/** A pharmacy as the admin API takes it: its row without the timestamp, the phone optional. */
export type PharmacyInput = Omit<repo.PharmacyRow, 'created_at' | 'phone'> & { phone?: string | null };

export async function addPharmacy(trx: Trx, input: PharmacyInput): Promise<repo.PharmacyRow> {
  if ((await repo.pharmacyById(trx, input.ncpdp_id)) !== undefined) throw exists(`A pharmacy with NCPDP id ${input.ncpdp_id} already exists`);
  const row = { ...input, phone: input.phone ?? null, created_at: nowMicros() };
  await repo.insertPharmacy(trx, row);
  await indexEntries(trx, [{ system: IndexSystems.pharmacy, id: row.ncpdp_id, display: row.name, code: row.ncpdp_id, words: [pharmacyAddress(row)] }]);
  return row;
}

export interface ReasonForVisitInput {
  system?: string;
  code: string;
  display: string;
}

export async function addReasonForVisit(trx: Trx, input: ReasonForVisitInput): Promise<repo.ReasonForVisitRow> {
  const system = input.system ?? INTERNAL_SYSTEM;
  if ((await repo.reasonForVisitByCode(trx, system, input.code)) !== undefined)
    throw exists(`A reason-for-visit coding ${system} ${input.code} already exists`);
  const row = { id: newUuid(), system, code: input.code, display: input.display, created_at: nowMicros() };
  await repo.insertReasonForVisit(trx, row);
  await indexEntries(trx, [{ system: IndexSystems.reasonForVisit, id: row.id, display: row.display, code: row.code }]);
  return row;
}

export interface QuestionnaireInput {
  code: string;
  name: string;
  prologue?: string;
  questions: Array<{ code: string; label: string; kind: QuestionKind; options?: Array<{ code: string; text: string; score?: number }> }>;
}

/** What the body schema cannot say: answer options exactly for SING / MULT, codes unique. */
export function checkQuestionnaire(input: QuestionnaireInput): FieldProblem[] {
  const errors: FieldProblem[] = [];
  const codes = new Set<string>();
  input.questions.forEach((q, i) => {
    const at = `questions[${i}]`;
    if (codes.has(q.code)) errors.push({ field: `${at}.code`, message: `duplicate question code ${q.code}` });
    codes.add(q.code);
    const choice = q.kind === 'SING' || q.kind === 'MULT';
    if (choice && (q.options === undefined || q.options.length < 2))
      errors.push({ field: `${at}.options`, message: `a ${q.kind} question needs at least 2 answer options` });
    if (!choice && q.options !== undefined && q.options.length > 0)
      errors.push({ field: `${at}.options`, message: `a ${q.kind} question takes no answer options` });
    const scored = (q.options ?? []).filter((o) => o.score !== undefined).length;
    if (scored > 0 && q.kind !== 'SING') errors.push({ field: `${at}.options`, message: `only a SING question's answers take a score` });
    else if (scored > 0 && scored < (q.options ?? []).length)
      errors.push({ field: `${at}.options`, message: 'a score on every answer option of the question, or on none' });
    const optionCodes = new Set<string>();
    (q.options ?? []).forEach((o, j) => {
      if (optionCodes.has(o.code)) errors.push({ field: `${at}.options[${j}].code`, message: `duplicate option code ${o.code}` });
      optionCodes.add(o.code);
    });
  });
  return errors;
}

export async function addQuestionnaire(trx: Trx, input: QuestionnaireInput): Promise<{ row: repo.QuestionnaireRow; questions: repo.QuestionRow[] }> {
  if ((await repo.questionnaireByCode(trx, input.code)) !== undefined) throw exists(`A questionnaire with code ${input.code} already exists`);
  const row = { id: newUuid(), code: input.code, name: input.name, prologue: input.prologue ?? '', created_at: nowMicros() };
  // Every question and answer option gets its own id, stored with it: stable for the answers.
  const questions = input.questions.map((q, position) => ({
    id: newUuid(),
    questionnaire_id: row.id,
    position,
    code: q.code,
    label: q.label,
    kind: q.kind,
    options:
      q.kind === 'SING' || q.kind === 'MULT'
        ? JSON.stringify((q.options ?? []).map((o) => ({ id: newUuid(), code: o.code, text: o.text, ...(o.score === undefined ? {} : { score: o.score }) })))
        : null,
  }));
  await repo.insertQuestionnaire(trx, row, questions);
  await indexEntries(trx, [{ system: IndexSystems.questionnaire, id: row.id, display: row.name, code: row.code }]);
  return { row, questions };
}

export interface MaterialInput {
  title: string;
  abstract?: string;
  languages: string[];
}

export function checkMaterial(input: MaterialInput): FieldProblem[] {
  const seen = new Set<string>();
  return input.languages.flatMap((code, i) => {
    if (seen.has(code)) return [{ field: `languages[${i}]`, message: `duplicate language ${code}` }];
    seen.add(code);
    return [];
  });
}

export async function addMaterial(trx: Trx, input: MaterialInput): Promise<repo.MaterialRow> {
  if ((await repo.materialByTitle(trx, input.title)) !== undefined) throw exists(`An educational material titled "${input.title}" already exists`);
  const row = { id: newUuid(), title: input.title, abstract: input.abstract ?? '', languages: JSON.stringify(input.languages), created_at: nowMicros() };
  await repo.insertMaterial(trx, row);
  await indexEntries(trx, [{ system: IndexSystems.educationalMaterial, id: row.id, display: row.title }]);
  return row;
}

export interface DispenseUnitInput {
  ncpdp_quantity_qualifier_code: string;
  description: string;
}

export async function addDispenseUnit(trx: Trx, input: DispenseUnitInput): Promise<repo.DispenseUnitRow> {
  const code = input.ncpdp_quantity_qualifier_code.toUpperCase();
  if ((await repo.dispenseUnitByCode(trx, code)) !== undefined) throw exists(`A dispense unit with code ${code} already exists`);
  const row = { code, description: input.description, created_at: nowMicros() };
  await repo.insertDispenseUnit(trx, row);
  await indexEntries(trx, [{ system: IndexSystems.dispenseUnit, id: row.code, display: row.description, code: row.code }]);
  return row;
}
