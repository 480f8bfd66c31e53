// The admin API of the reference data: who may call it, and each create (one transaction with
// its audit row; a duplicate is a 409, also when two requests race past the check) and list.
import type { Kysely } from 'kysely';
import type { Ctx } from '../context.ts';
import type { Database } from '../storage/schema.ts';
import { invalid, problem } from '../http/problem.ts';
import type { Page } from '../http/pagination.ts';
import { writeTransaction } from '../storage/transaction.ts';
import { isUniqueViolation } from '../storage/db.ts';
import * as repo from '../storage/reference-repository.ts';
import * as add from './catalogue.ts';
import * as view from './representation.ts';

export const ADMIN_SCOPE = 'admin';

/**
 * Reference data is the instance's configuration: it is changed and listed with an API key
 * (scope `admin`), never with a staff user's bearer token (a clinical client must not be able
 * to add a prescriber or a pharmacy).
 */
export function requireAdmin(ctx: Ctx): void {
  if (ctx.principal.kind !== 'api_key' || !ctx.principal.scopes.includes(ADMIN_SCOPE)) {
    throw problem('forbidden', { detail: `The reference data API takes an API key with the scope ${ADMIN_SCOPE}, not a bearer token` });
  }
}

async function create<T>(ctx: Ctx, entityType: string, work: (trx: Kysely<Database>) => Promise<{ id: string; body: T }>) {
  requireAdmin(ctx);
  try {
    const outcome = await writeTransaction<T>(ctx, undefined, async ({ trx, audit }) => {
      const { id, body } = await work(trx);
      await audit({ action: `reference.${entityType}.created`, entityType, entityId: id, before: null, after: body });
      return { status: 201, body };
    });
    return outcome.body;
  } catch (err) {
    if (isUniqueViolation(err)) throw problem('reference_exists');
    throw err;
  }
}

async function list<R, V>(ctx: Ctx, page: Page, rows: (w: Page) => Promise<R[]>, total: () => Promise<number>, toView: (row: R) => V) {
  requireAdmin(ctx);
  const [results, count] = await Promise.all([rows(page), total()]);
  return { count, results: results.map(toView) };
}

const reader = (ctx: Ctx) => ctx.storage.reader;

export const createStaff = (ctx: Ctx, input: add.StaffInput) =>
  create(ctx, 'staff', async (trx) => {
    const row = await add.addStaff(trx, input);
    return { id: row.key, body: view.staffView(row) };
  });
export const listStaff = (ctx: Ctx, page: Page) =>
  list(
    ctx,
    page,
    (w) => repo.listStaff(reader(ctx), w),
    () => repo.countStaff(reader(ctx)),
    view.staffView,
  );

export const createLabPartner = (ctx: Ctx, input: { name: string }) =>
  create(ctx, 'lab_partner', async (trx) => {
    const row = await add.addLabPartner(trx, input);
    return { id: row.id, body: view.labPartnerView(row) };
  });
export const listLabPartners = (ctx: Ctx, page: Page) =>
  list(
    ctx,
    page,
    (w) => repo.listLabPartners(reader(ctx), w),
    () => repo.countLabPartners(reader(ctx)),
    view.labPartnerView,
  );

export const createLabTest = (ctx: Ctx, partnerId: string, input: add.LabTestInput) =>
  create(ctx, 'lab_test', async (trx) => {
    const row = await add.addLabTest(trx, partnerId, input);
    return { id: row.id, body: view.labTestView(row) };
  });
export async function listLabTests(ctx: Ctx, partnerId: string, page: Page) {
  requireAdmin(ctx);
  if ((await repo.labPartnerById(reader(ctx), partnerId)) === undefined) throw problem('lab_partner_not_found');
  return list(
    ctx,
    page,
    (w) => repo.listLabTests(reader(ctx), partnerId, w),
    () => repo.countLabTests(reader(ctx), partnerId),
    view.labTestView,
  );
}

export const createPharmacy = (ctx: Ctx, input: add.PharmacyInput) =>
  create(ctx, 'pharmacy', async (trx) => {
    const row = await add.addPharmacy(trx, input);
    return { id: row.ncpdp_id, body: view.pharmacyView(row) };
  });
export const listPharmacies = (ctx: Ctx, page: Page) =>
  list(
    ctx,
    page,
    (w) => repo.listPharmacies(reader(ctx), w),
    () => repo.countPharmacies(reader(ctx)),
    view.pharmacyView,
  );

export const createReasonForVisit = (ctx: Ctx, input: add.ReasonForVisitInput) =>
  create(ctx, 'reason_for_visit_coding', async (trx) => {
    const row = await add.addReasonForVisit(trx, input);
    return { id: row.id, body: view.reasonForVisitView(row) };
  });
export const listReasonsForVisit = (ctx: Ctx, page: Page) =>
  list(
    ctx,
    page,
    (w) => repo.listReasonsForVisit(reader(ctx), w),
    () => repo.countReasonsForVisit(reader(ctx)),
    view.reasonForVisitView,
  );

export const createQuestionnaire = (ctx: Ctx, input: add.QuestionnaireInput) => {
  requireAdmin(ctx);
  const errors = add.checkQuestionnaire(input);
  if (errors.length > 0) throw invalid(errors);
  return create(ctx, 'questionnaire', async (trx) => {
    const { row, questions } = await add.addQuestionnaire(trx, input);
    return { id: row.id, body: view.questionnaireView(row, questions) };
  });
};
export async function listQuestionnaires(ctx: Ctx, page: Page) {
  requireAdmin(ctx);
  const db = reader(ctx);
  const [rows, count] = await Promise.all([repo.listQuestionnaires(db, page), repo.countQuestionnaires(db)]);
  const questions = await repo.questionsOf(
    db,
    rows.map((r) => r.id),
  );
  return {
    count,
    results: rows.map((r) =>
      view.questionnaireView(
        r,
        questions.filter((q) => q.questionnaire_id === r.id),
      ),
    ),
  };
}

export const createMaterial = (ctx: Ctx, input: add.MaterialInput) => {
  requireAdmin(ctx);
  const errors = add.checkMaterial(input);
  if (errors.length > 0) throw invalid(errors);
  return create(ctx, 'educational_material', async (trx) => {
    const row = await add.addMaterial(trx, input);
    return { id: row.id, body: view.materialView(row) };
  });
};
export const listMaterials = (ctx: Ctx, page: Page) =>
  list(
    ctx,
    page,
    (w) => repo.listMaterials(reader(ctx), w),
    () => repo.countMaterials(reader(ctx)),
    view.materialView,
  );

export const createDispenseUnit = (ctx: Ctx, input: add.DispenseUnitInput) =>
  create(ctx, 'dispense_unit', async (trx) => {
    const row = await add.addDispenseUnit(trx, input);
    return { id: row.code, body: view.dispenseUnitView(row) };
  });
export const listDispenseUnits = (ctx: Ctx, page: Page) =>
  list(
    ctx,
    page,
    (w) => repo.listDispenseUnits(reader(ctx), w),
    () => repo.countDispenseUnits(reader(ctx)),
    view.dispenseUnitView,
  );
