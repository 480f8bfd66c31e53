// The patient's chart: conditions, medications and goals, and the log of what each committed
// command changed in it.
import type { Kysely, Selectable } from 'kysely';
import type { Engine } from './db.ts';
import type { ChartChangeTable, ConditionTable, Database, GoalTable, MedicationTable } from './schema.ts';

type Db = Kysely<Database>;

import type { ChartEntity } from '@charta/api/constants';

export type { ChartEntity };
export const CHART_TABLES = { condition: 'conditions', medication: 'medications', goal: 'goals' } as const;
type ChartTable = (typeof CHART_TABLES)[ChartEntity];

export type ConditionRow = Selectable<ConditionTable>;
export type MedicationRow = Selectable<MedicationTable>;
export type GoalRow = Selectable<GoalTable>;
export interface ChartRows {
  condition: ConditionRow;
  medication: MedicationRow;
  goal: GoalRow;
}

export async function insertChartRow<E extends ChartEntity>(db: Db, entity: E, row: ChartRows[E]): Promise<void> {
  await db
    .insertInto(CHART_TABLES[entity] as ChartTable)
    .values(row as never)
    .execute();
}

/** One chart row by id, locked for the transaction on PostgreSQL. */
export async function getChartRow<E extends ChartEntity>(db: Db, engine: Engine, entity: E, id: string): Promise<ChartRows[E] | undefined> {
  const row = await db
    .selectFrom(CHART_TABLES[entity] as ChartTable)
    .selectAll()
    .where('id', '=', id)
    .$if(engine === 'postgres', (q) => q.forUpdate())
    .executeTakeFirst();
  return row as ChartRows[E] | undefined;
}

export async function updateChartRow(db: Db, entity: ChartEntity, id: string, set: Record<string, unknown>): Promise<void> {
  await db
    .updateTable(CHART_TABLES[entity] as ChartTable)
    .set(set as never)
    .where('id', '=', id)
    .execute();
}

/** A patient's rows of one kind in these states, oldest first. */
export async function listChartRows<E extends ChartEntity>(db: Db, entity: E, patientKey: string, statuses: readonly string[]): Promise<ChartRows[E][]> {
  const rows = await db
    .selectFrom(CHART_TABLES[entity] as ChartTable)
    .selectAll()
    .where('patient_key', '=', patientKey)
    .where('status', 'in', statuses)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  return rows as ChartRows[E][];
}

export const insertChartChange = (db: Db, row: ChartChangeTable) => db.insertInto('chart_changes').values(row).execute();

export const chartChangesOf = (db: Db, commandUuid: string) =>
  db.selectFrom('chart_changes').selectAll().where('command_uuid', '=', commandUuid).orderBy('seq', 'desc').execute();
