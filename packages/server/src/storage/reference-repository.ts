// Reference data of the instance: rows of the catalogues (migration 004) and the staff columns
// they added. Lookups are by primary key or a unique natural key; lists are by creation order.
import { sql, type Kysely, type Selectable } from 'kysely';
import type {
  Database,
  DispenseUnitTable,
  EducationalMaterialTable,
  LabPartnerTable,
  LabTestTable,
  PharmacyTable,
  QuestionnaireQuestionTable,
  QuestionnaireTable,
  ReasonForVisitCodingTable,
  StaffReferenceColumns,
  StaffTable,
} from './schema.ts';

type Db = Kysely<Database>;

export type StaffRow = Selectable<StaffTable & StaffReferenceColumns>;
export type LabPartnerRow = LabPartnerTable;
export type LabTestRow = LabTestTable;
export type PharmacyRow = PharmacyTable;
export type ReasonForVisitRow = ReasonForVisitCodingTable;
export type QuestionnaireRow = QuestionnaireTable;
export type QuestionRow = QuestionnaireQuestionTable;
export type MaterialRow = EducationalMaterialTable;
export type DispenseUnitRow = DispenseUnitTable;

export interface Window {
  limit: number;
  offset: number;
}

const count = (row: { n: unknown } | undefined) => Number(row?.n ?? 0);

/** A catalogue's table, the column that breaks ties of `created_at` in its order, and the column of its parent (a lab test's partner). */
export interface CatalogueTable {
  table: 'staff' | 'lab_partners' | 'lab_tests' | 'pharmacies' | 'reason_for_visit_codings' | 'questionnaires' | 'educational_materials' | 'dispense_units';
  key: string;
  parentColumn?: string;
}

const parentClause = (t: Omit<CatalogueTable, 'key'>, parentId: string | undefined) =>
  t.parentColumn === undefined || parentId === undefined ? sql`` : sql`where ${sql.ref(t.parentColumn)} = ${parentId}`;

/** One page of a catalogue's rows, by creation order (`parentId`: only a parent's entries). */
export const catalogueRows = async <R>(db: Db, t: CatalogueTable, w: Window, parentId?: string): Promise<R[]> =>
  (
    await sql<R>`select * from ${sql.table(t.table)} ${parentClause(t, parentId)} order by created_at, ${sql.ref(t.key)} limit ${w.limit} offset ${w.offset}`.execute(
      db,
    )
  ).rows;

/** How many rows a catalogue holds (`parentId`: a parent's entries). */
export const catalogueCount = async (db: Db, t: Omit<CatalogueTable, 'key'>, parentId?: string): Promise<number> =>
  count((await sql<{ n: unknown }>`select count(*) as n from ${sql.table(t.table)} ${parentClause(t, parentId)}`.execute(db)).rows[0]);

/** One entry of a catalogue by its key, or undefined. */
export const catalogueRow = async <R>(db: Db, t: CatalogueTable, id: string): Promise<R | undefined> =>
  (await sql<R>`select * from ${sql.table(t.table)} where ${sql.ref(t.key)} = ${id}`.execute(db)).rows[0];

// Staff ------------------------------------------------------------------------------------

export const insertStaffMember = (db: Db, row: Omit<StaffRow, never>) => db.insertInto('staff').values(row).execute();
export const staffByKey = (db: Db, key: string) => db.selectFrom('staff').selectAll().where('key', '=', key).executeTakeFirst();
export const staffByNpi = (db: Db, npi: string) => db.selectFrom('staff').selectAll().where('npi', '=', npi).executeTakeFirst();
export const staffByKeys = (db: Db, keys: string[]) =>
  keys.length === 0 ? Promise.resolve([]) : db.selectFrom('staff').selectAll().where('key', 'in', keys).execute();
export const findStaffByName = (db: Db, firstName: string, lastName: string, role: string) =>
  db.selectFrom('staff').selectAll().where('first_name', '=', firstName).where('last_name', '=', lastName).where('role', '=', role).executeTakeFirst();

// Lab partners and their tests ---------------------------------------------------------------

export const insertLabPartner = (db: Db, row: LabPartnerRow) => db.insertInto('lab_partners').values(row).execute();
export const labPartnerById = (db: Db, id: string) => db.selectFrom('lab_partners').selectAll().where('id', '=', id).executeTakeFirst();
export const labPartnerByName = (db: Db, name: string) => db.selectFrom('lab_partners').selectAll().where('name', '=', name).executeTakeFirst();
export const labPartnersByIds = (db: Db, ids: string[]) =>
  ids.length === 0 ? Promise.resolve([]) : db.selectFrom('lab_partners').selectAll().where('id', 'in', ids).execute();

export const insertLabTest = (db: Db, row: LabTestRow) => db.insertInto('lab_tests').values(row).execute();
export const labTestById = (db: Db, id: string) => db.selectFrom('lab_tests').selectAll().where('id', '=', id).executeTakeFirst();
export const labTestByOrderCode = (db: Db, partnerId: string, orderCode: string) =>
  db.selectFrom('lab_tests').selectAll().where('partner_id', '=', partnerId).where('order_code', '=', orderCode).executeTakeFirst();
export const labTestsByIds = (db: Db, ids: string[]) =>
  ids.length === 0 ? Promise.resolve([]) : db.selectFrom('lab_tests').selectAll().where('id', 'in', ids).execute();

// Pharmacies ---------------------------------------------------------------------------------

export const insertPharmacy = (db: Db, row: PharmacyRow) => db.insertInto('pharmacies').values(row).execute();
export const pharmacyById = (db: Db, ncpdpId: string) => db.selectFrom('pharmacies').selectAll().where('ncpdp_id', '=', ncpdpId).executeTakeFirst();
export const pharmaciesByIds = (db: Db, ids: string[]) =>
  ids.length === 0 ? Promise.resolve([]) : db.selectFrom('pharmacies').selectAll().where('ncpdp_id', 'in', ids).execute();

// Reason-for-visit codings -------------------------------------------------------------------

export const insertReasonForVisit = (db: Db, row: ReasonForVisitRow) => db.insertInto('reason_for_visit_codings').values(row).execute();
export const reasonForVisitById = (db: Db, id: string) => db.selectFrom('reason_for_visit_codings').selectAll().where('id', '=', id).executeTakeFirst();
export const reasonForVisitByCode = (db: Db, system: string, code: string) =>
  db.selectFrom('reason_for_visit_codings').selectAll().where('system', '=', system).where('code', '=', code).executeTakeFirst();
export const reasonsForVisitByIds = (db: Db, ids: string[]) =>
  ids.length === 0 ? Promise.resolve([]) : db.selectFrom('reason_for_visit_codings').selectAll().where('id', 'in', ids).execute();

// Questionnaires -----------------------------------------------------------------------------

export async function insertQuestionnaire(db: Db, row: QuestionnaireRow, questions: QuestionRow[]): Promise<void> {
  await db.insertInto('questionnaires').values(row).execute();
  if (questions.length > 0) await db.insertInto('questionnaire_questions').values(questions).execute();
}
export const questionnaireById = (db: Db, id: string) => db.selectFrom('questionnaires').selectAll().where('id', '=', id).executeTakeFirst();
export const questionnaireByCode = (db: Db, code: string) => db.selectFrom('questionnaires').selectAll().where('code', '=', code).executeTakeFirst();
export const questionnairesByIds = (db: Db, ids: string[]) =>
  ids.length === 0 ? Promise.resolve([]) : db.selectFrom('questionnaires').selectAll().where('id', 'in', ids).execute();
/** The default list of the questionnaire field: by name, from the index on (name, id). */
export const questionnairesByName = (db: Db, limit: number) => db.selectFrom('questionnaires').selectAll().orderBy('name').orderBy('id').limit(limit).execute();
export const questionsOf = (db: Db, questionnaireIds: string[]) =>
  questionnaireIds.length === 0
    ? Promise.resolve([])
    : db
        .selectFrom('questionnaire_questions')
        .selectAll()
        .where('questionnaire_id', 'in', questionnaireIds)
        .orderBy('questionnaire_id')
        .orderBy('position')
        .execute();

// Educational materials ----------------------------------------------------------------------

export const insertMaterial = (db: Db, row: MaterialRow) => db.insertInto('educational_materials').values(row).execute();
export const materialById = (db: Db, id: string) => db.selectFrom('educational_materials').selectAll().where('id', '=', id).executeTakeFirst();
export const materialByTitle = (db: Db, title: string) => db.selectFrom('educational_materials').selectAll().where('title', '=', title).executeTakeFirst();
export const materialsByIds = (db: Db, ids: string[]) =>
  ids.length === 0 ? Promise.resolve([]) : db.selectFrom('educational_materials').selectAll().where('id', 'in', ids).execute();

// Dispense units -----------------------------------------------------------------------------

export const insertDispenseUnit = (db: Db, row: DispenseUnitRow) => db.insertInto('dispense_units').values(row).execute();
export const dispenseUnitByCode = (db: Db, code: string) => db.selectFrom('dispense_units').selectAll().where('code', '=', code).executeTakeFirst();
export const dispenseUnitsByCodes = (db: Db, codes: string[]) =>
  codes.length === 0 ? Promise.resolve([]) : db.selectFrom('dispense_units').selectAll().where('code', 'in', codes).execute();
