// Reference data that ships in packages/server/data/starter/: the dispense units every instance
// needs (loaded on start while the catalogue is empty) and the demo reference data (reference.json,
// loaded with the demo data; idempotent: an entry already there, by its natural key, is skipped).
import fs from 'node:fs';
import type { Kysely } from 'kysely';
import type { Storage } from '../storage/db.ts';
import type { Database } from '../storage/schema.ts';
import * as repo from '../storage/reference-repository.ts';
import * as add from './catalogue.ts';
import { isUniqueViolation } from '../storage/errors.ts';
import { Problem } from '../http/problem.ts';
import { readStarterRows, STARTER_DIR } from '../terminology/starter.ts';
import { INTERNAL_SYSTEM, type QuestionKind, type StaffRole } from '@charta/api/constants';

/** The rows of dispense-units.tsv (`ncpdp_code`, `display`; header first; may hold no rows). */
export function readDispenseUnits(): add.DispenseUnitInput[] {
  return readStarterRows('dispense-units.tsv', 2).map(([code, description], i) => {
    if (!/^C[0-9]{3,8}$/i.test(code!)) throw new Error(`dispense-units.tsv: line ${i + 2}: ${JSON.stringify(code)} is not an NCI Thesaurus code`);
    return { ncpdp_quantity_qualifier_code: code!, description: description! };
  });
}

const DISPENSE_UNITS = { table: 'dispense_units' } as const;

/** Loads the starter dispense units when the catalogue is empty; returns how many it added. */
export async function loadDispenseUnits(storage: Storage, units = readDispenseUnits()): Promise<number> {
  if (units.length === 0 || (await repo.catalogueCount(storage.db, DISPENSE_UNITS)) > 0) return 0;
  try {
    return await storage.transact(async (trx) => {
      if ((await repo.catalogueCount(trx, DISPENSE_UNITS)) > 0) return 0;
      const seen = new Set<string>();
      for (const unit of units) {
        const code = unit.ncpdp_quantity_qualifier_code.toUpperCase();
        if (seen.has(code)) continue;
        seen.add(code);
        await add.addDispenseUnit(trx, unit);
      }
      return seen.size;
    });
  } catch (err) {
    // Another process loaded them at the same moment: its rows clash with ours at the insert (a
    // unique violation) or, committed just before, at the check before it (reference_exists).
    if (isUniqueViolation(err) || (err instanceof Problem && err.code === 'reference_exists')) return 0;
    throw err;
  }
}

interface DemoReference {
  staff: Array<{ first_name: string; last_name: string; credentials: string; role: StaffRole; npi?: string }>;
  lab_partners: Array<{ name: string; tests: Array<{ order_code: string; name: string; loinc?: string }> }>;
  pharmacies: add.PharmacyInput[];
  reason_for_visit: Array<{ code: string; display: string; system?: string }>;
  questionnaires: Array<{
    code: string;
    name: string;
    prologue?: string;
    questions: Array<{ code: string; label: string; kind: QuestionKind; options?: Array<{ code: string; text: string; score?: number }> }>;
  }>;
  educational_materials: add.MaterialInput[];
}

export type ReferenceCounts = Record<
  'staff' | 'lab_partners' | 'lab_tests' | 'pharmacies' | 'reason_for_visit_codings' | 'questionnaires' | 'educational_materials',
  number
>;

/** Adds the demo reference data that is not there yet (one transaction); returns what it added. */
export async function loadDemoReference(storage: Storage, file = `${STARTER_DIR}reference.json`): Promise<ReferenceCounts> {
  const data = JSON.parse(fs.readFileSync(file, 'utf8')) as DemoReference;
  return storage.transact((trx) => addMissing(trx, data));
}

async function addMissing(trx: Kysely<Database>, data: DemoReference): Promise<ReferenceCounts> {
  const added: ReferenceCounts = {
    staff: 0,
    lab_partners: 0,
    lab_tests: 0,
    pharmacies: 0,
    reason_for_visit_codings: 0,
    questionnaires: 0,
    educational_materials: 0,
  };
  for (const s of data.staff ?? []) {
    if ((await repo.findStaffByName(trx, s.first_name, s.last_name, s.role)) !== undefined) continue;
    if (s.npi && (await repo.staffByNpi(trx, s.npi)) !== undefined) continue;
    await add.addStaff(trx, { first_name: s.first_name, last_name: s.last_name, credentials: s.credentials, role: s.role, npi: s.npi ?? null });
    added.staff++;
  }
  for (const p of data.lab_partners ?? []) {
    let partner = await repo.labPartnerByName(trx, p.name);
    if (partner === undefined) {
      partner = await add.addLabPartner(trx, { name: p.name });
      added.lab_partners++;
    }
    for (const t of p.tests) {
      if ((await repo.labTestByOrderCode(trx, partner.id, t.order_code)) !== undefined) continue;
      await add.addLabTest(trx, partner.id, { order_code: t.order_code, name: t.name, loinc_code: t.loinc ?? null });
      added.lab_tests++;
    }
  }
  for (const p of data.pharmacies ?? []) {
    if ((await repo.pharmacyById(trx, p.ncpdp_id)) !== undefined) continue;
    await add.addPharmacy(trx, p);
    added.pharmacies++;
  }
  for (const r of data.reason_for_visit ?? []) {
    if ((await repo.reasonForVisitByCode(trx, r.system ?? INTERNAL_SYSTEM, r.code)) !== undefined) continue;
    await add.addReasonForVisit(trx, r);
    added.reason_for_visit_codings++;
  }
  for (const q of data.questionnaires ?? []) {
    if ((await repo.questionnaireByCode(trx, q.code)) !== undefined) continue;
    const errors = add.checkQuestionnaire(q);
    if (errors.length > 0) throw new Error(`reference.json: questionnaire ${q.code}: ${errors.map((e) => `${e.field} ${e.message}`).join('; ')}`);
    await add.addQuestionnaire(trx, q);
    added.questionnaires++;
  }
  for (const m of data.educational_materials ?? []) {
    if ((await repo.materialByTitle(trx, m.title)) !== undefined) continue;
    await add.addMaterial(trx, m);
    added.educational_materials++;
  }
  return added;
}
