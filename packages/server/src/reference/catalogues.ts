// The catalogues of the reference data (docs/api.md, "Admin API"), one entry each: where the admin
// API serves it, its body and entry schemas, its table, how an entry is added (catalogue.ts, shared
// with the starter data) and how it is shown (representation.ts). The operations
// (create-entry.ts, list-entries.ts) and the routes serve every entry the same way: adding a
// catalogue is one entry here (and its table, schemas and view).
import type { Kysely } from 'kysely';
import type { TSchema } from '@sinclair/typebox';
import type { Database } from '../storage/schema.ts';
import type { FieldProblem } from '../http/problem.ts';
import * as repo from '../storage/reference-repository.ts';
import * as add from './catalogue.ts';
import * as view from './representation.ts';
import * as schemas from '@charta/api';

type Db = Kysely<Database>;

/** One catalogue, its input, row and view types known only inside it. */
export interface Catalogue {
  /** Path under /core/api/v1/admin, e.g. `/staff/`; a nested one has `:id`, its parent's id. */
  path: string;
  /** What the list holds, for the OpenAPI summaries. */
  what: string;
  /** The audit's entity type: an entry is audited as `reference.<entityType>.created`. */
  entityType: string;
  body: TSchema;
  item: TSchema;
  table: repo.CatalogueTable;
  /** A nested catalogue: the path's `:id` names its parent, which must exist (else `notFound`; `add` checks it on its transaction). */
  parent?: { exists: (db: Db, id: string) => Promise<boolean>; notFound: 'lab_partner_not_found' };
  /** Checks of the input alone, before the transaction (the body schema has validated its shape). */
  check: (input: unknown) => FieldProblem[];
  /** Adds an entry on the caller's transaction; answers its id and its view. */
  add: (trx: Db, input: unknown, parentId: string | undefined) => Promise<{ id: string; view: unknown }>;
  /** The views of a page of rows. */
  views: (db: Db, rows: unknown[]) => Promise<unknown[]>;
}

interface Definition<I, R, V> {
  path: string;
  what: string;
  entityType: string;
  body: TSchema;
  item: TSchema;
  table: repo.CatalogueTable;
  parent?: Catalogue['parent'];
  check?: (input: I) => FieldProblem[];
  add: (trx: Db, input: I, parentId: string) => Promise<R>;
  idOf: (row: R) => string;
  toView: (row: R) => V;
  /** The row of a list as `add` answers it, when it differs (a questionnaire and its questions). */
  views?: (db: Db, rows: unknown[]) => Promise<V[]>;
}

/**
 * A catalogue from its typed definition. The casts are where the types are erased: `input` has
 * been validated by the route against `body` (of type I), and the rows are read from `table`.
 */
function catalogue<I, R, V>(d: Definition<I, R, V>): Catalogue {
  return {
    path: d.path,
    what: d.what,
    entityType: d.entityType,
    body: d.body,
    item: d.item,
    table: d.table,
    parent: d.parent,
    check: (input) => d.check?.(input as I) ?? [],
    add: async (trx, input, parentId) => {
      const row = await d.add(trx, input as I, parentId ?? '');
      return { id: d.idOf(row), view: d.toView(row) };
    },
    views: d.views ?? (async (_db, rows) => rows.map((r) => d.toView(r as R))),
  };
}

export const CATALOGUES: readonly Catalogue[] = [
  catalogue({
    path: '/staff/',
    what: 'staff members',
    entityType: 'staff',
    body: schemas.StaffBody,
    item: schemas.Staff,
    table: { table: 'staff', key: 'key' },
    add: (trx, input: add.StaffInput) => add.addStaff(trx, input),
    idOf: (row) => row.key,
    toView: view.staffView,
  }),
  catalogue({
    path: '/lab-partners/',
    what: 'lab partners',
    entityType: 'lab_partner',
    body: schemas.LabPartnerBody,
    item: schemas.LabPartner,
    table: { table: 'lab_partners', key: 'id' },
    add: (trx, input: { name: string }) => add.addLabPartner(trx, input),
    idOf: (row) => row.id,
    toView: view.labPartnerView,
  }),
  catalogue({
    path: '/lab-partners/:id/tests/',
    what: "a lab partner's tests",
    entityType: 'lab_test',
    body: schemas.LabTestBody,
    item: schemas.LabTest,
    table: { table: 'lab_tests', key: 'id', parentColumn: 'partner_id' },
    parent: { exists: async (db, id) => (await repo.labPartnerById(db, id)) !== undefined, notFound: 'lab_partner_not_found' },
    add: (trx, input: add.LabTestInput, partnerId) => add.addLabTest(trx, partnerId, input),
    idOf: (row) => row.id,
    toView: view.labTestView,
  }),
  catalogue({
    path: '/pharmacies/',
    what: 'pharmacies',
    entityType: 'pharmacy',
    body: schemas.PharmacyBody,
    item: schemas.Pharmacy,
    table: { table: 'pharmacies', key: 'ncpdp_id' },
    add: (trx, input: add.PharmacyInput) => add.addPharmacy(trx, input),
    idOf: (row) => row.ncpdp_id,
    toView: view.pharmacyView,
  }),
  catalogue({
    path: '/reason-for-visit-codings/',
    what: 'reason-for-visit codings',
    entityType: 'reason_for_visit_coding',
    body: schemas.ReasonBody,
    item: schemas.Reason,
    table: { table: 'reason_for_visit_codings', key: 'id' },
    add: (trx, input: add.ReasonForVisitInput) => add.addReasonForVisit(trx, input),
    idOf: (row) => row.id,
    toView: view.reasonForVisitView,
  }),
  catalogue({
    path: '/questionnaires/',
    what: 'questionnaires (with their questions)',
    entityType: 'questionnaire',
    body: schemas.QuestionnaireBody,
    item: schemas.Questionnaire,
    table: { table: 'questionnaires', key: 'id' },
    check: add.checkQuestionnaire,
    add: (trx, input: add.QuestionnaireInput) => add.addQuestionnaire(trx, input),
    idOf: ({ row }) => row.id,
    toView: ({ row, questions }) => view.questionnaireView(row, questions),
    views: async (db, rows) => {
      const questionnaires = rows as repo.QuestionnaireRow[];
      const questions = await repo.questionsOf(
        db,
        questionnaires.map((r) => r.id),
      );
      return questionnaires.map((r) =>
        view.questionnaireView(
          r,
          questions.filter((q) => q.questionnaire_id === r.id),
        ),
      );
    },
  }),
  catalogue({
    path: '/educational-materials/',
    what: 'educational materials',
    entityType: 'educational_material',
    body: schemas.MaterialBody,
    item: schemas.Material,
    table: { table: 'educational_materials', key: 'id' },
    check: add.checkMaterial,
    add: (trx, input: add.MaterialInput) => add.addMaterial(trx, input),
    idOf: (row) => row.id,
    toView: view.materialView,
  }),
  catalogue({
    path: '/dispense-units/',
    what: 'dispense units (NCPDP quantity units of measure)',
    entityType: 'dispense_unit',
    body: schemas.DispenseUnitBody,
    item: schemas.DispenseUnit,
    table: { table: 'dispense_units', key: 'code' },
    add: (trx, input: add.DispenseUnitInput) => add.addDispenseUnit(trx, input),
    idOf: (row) => row.code,
    toView: view.dispenseUnitView,
  }),
];

/** The catalogue a plugin names by its table (`this.data.reference.<catalogue>`; @charta/api REFERENCE_CATALOGUES). */
export function catalogueNamed(name: string): Catalogue {
  const found = CATALOGUES.find((c) => c.table.table === name);
  if (found === undefined) throw new Error(`no catalogue named ${name}`);
  return found;
}
