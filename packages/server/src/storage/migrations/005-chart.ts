// The patient's chart as committed commands keep it: conditions (diagnose), medications
// (medicationStatement, prescribe; stopped by stopMedication) and goals (goal; changed by
// updateGoal), plus what each command's commit changed, so entering it in error can undo it.
import type { Kysely } from 'kysely';
import type { Engine } from '../db.ts';

export async function up(db: Kysely<unknown>, _engine: Engine): Promise<void> {
  const coded = (name: string) =>
    db.schema
      .createTable(name)
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('patient_key', 'text', (c) => c.notNull().references('patients.key'))
      .addColumn('system', 'text', (c) => c.notNull())
      .addColumn('code', 'text', (c) => c.notNull())
      .addColumn('display', 'text', (c) => c.notNull());
  await coded('conditions')
    .addColumn('onset', 'text')
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('source_command', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await coded('medications')
    .addColumn('sig', 'text')
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('source_command', 'text', (c) => c.notNull())
    .addColumn('stopped_by_command', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('goals')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('patient_key', 'text', (c) => c.notNull().references('patients.key'))
    .addColumn('statement', 'text', (c) => c.notNull())
    .addColumn('start_date', 'text')
    .addColumn('due_date', 'text')
    .addColumn('achievement_status', 'text')
    .addColumn('priority', 'text')
    .addColumn('progress', 'text')
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('source_command', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  for (const table of ['conditions', 'medications', 'goals']) {
    await db.schema.createIndex(`${table}_patient`).on(table).columns(['patient_key', 'status', 'created_at']).execute();
  }
  await db.schema
    .createTable('chart_changes')
    .addColumn('command_uuid', 'text', (c) => c.notNull())
    .addColumn('seq', 'integer', (c) => c.notNull())
    .addColumn('entity', 'text', (c) => c.notNull())
    .addColumn('entity_id', 'text', (c) => c.notNull())
    // JSON of the fields the commit changed: their values before (null when it created the row) and after.
    .addColumn('before', 'text')
    .addColumn('after', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('chart_changes_pk', ['command_uuid', 'seq'])
    .execute();
}
