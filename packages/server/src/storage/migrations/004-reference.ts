// Reference data of the instance (issue 4): the catalogues AutocompleteFields offer — staff
// (the existing table, extended), lab partners and their tests, pharmacies, reason-for-visit
// codings, questionnaires with their questions, educational materials and dispense units.
// Each entry is also indexed in `concepts` under a `charta:` namespace system (written in the
// same transaction as its row; see src/reference/search-index.ts) so searching it is indexed.
import { sql, type Kysely } from 'kysely';
import type { Engine } from '../db.ts';

export async function up(db: Kysely<unknown>, _engine: Engine): Promise<void> {
  // Existing staff rows (made for credentials) stay valid: names empty, role `staff`, active.
  for (const [name, type, fallback] of [
    ['first_name', 'text', sql`''`],
    ['last_name', 'text', sql`''`],
    ['credentials', 'text', sql`''`],
    ['role', 'text', sql`'staff'`],
    ['active', 'integer', sql`1`],
  ] as const) {
    await db.schema
      .alterTable('staff')
      .addColumn(name, type, (c) => c.notNull().defaultTo(fallback))
      .execute();
  }
  await db.schema.alterTable('staff').addColumn('npi', 'text').execute();
  // NULLs are distinct on both engines: many staff without an NPI, no NPI twice.
  await db.schema.createIndex('staff_npi').on('staff').column('npi').unique().execute();

  await db.schema
    .createTable('lab_partners')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull().unique())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('lab_tests')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('partner_id', 'text', (c) => c.notNull().references('lab_partners.id'))
    .addColumn('order_code', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('loinc_code', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addUniqueConstraint('lab_tests_partner_order_code', ['partner_id', 'order_code'])
    .execute();
  await db.schema
    .createTable('pharmacies')
    .addColumn('ncpdp_id', 'text', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('address', 'text', (c) => c.notNull())
    .addColumn('city', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('zip', 'text', (c) => c.notNull())
    .addColumn('phone', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('reason_for_visit_codings')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('system', 'text', (c) => c.notNull())
    .addColumn('code', 'text', (c) => c.notNull())
    .addColumn('display', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addUniqueConstraint('reason_for_visit_codings_system_code', ['system', 'code'])
    .execute();
  await db.schema
    .createTable('questionnaires')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('code', 'text', (c) => c.notNull().unique())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('prologue', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  // The default list of the questionnaire field (empty search term) reads this index.
  await db.schema.createIndex('questionnaires_name').on('questionnaires').columns(['name', 'id']).execute();
  await db.schema
    .createTable('questionnaire_questions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('questionnaire_id', 'text', (c) => c.notNull().references('questionnaires.id'))
    .addColumn('position', 'integer', (c) => c.notNull())
    .addColumn('code', 'text', (c) => c.notNull())
    .addColumn('label', 'text', (c) => c.notNull())
    /** TXT | INT | SING | MULT */
    .addColumn('kind', 'text', (c) => c.notNull())
    /** JSON [{id, code, text}] for SING / MULT, null otherwise. */
    .addColumn('options', 'text')
    .addUniqueConstraint('questionnaire_questions_code', ['questionnaire_id', 'code'])
    .execute();
  await db.schema.createIndex('questionnaire_questions_position').on('questionnaire_questions').columns(['questionnaire_id', 'position']).execute();
  await db.schema
    .createTable('educational_materials')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('title', 'text', (c) => c.notNull().unique())
    .addColumn('abstract', 'text', (c) => c.notNull())
    /** JSON array of language codes, e.g. ["en-us", "es-us"]. */
    .addColumn('languages', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('dispense_units')
    .addColumn('code', 'text', (c) => c.primaryKey())
    .addColumn('description', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  // Admin lists are ordered by creation.
  for (const table of [
    'lab_partners',
    'lab_tests',
    'pharmacies',
    'reason_for_visit_codings',
    'questionnaires',
    'educational_materials',
    'dispense_units',
    'staff',
  ]) {
    await db.schema.createIndex(`${table}_created`).on(table).column('created_at').execute();
  }
}
