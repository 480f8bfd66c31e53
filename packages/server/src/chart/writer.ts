// The chart API a command kind's commit uses (ChartWriter), and the generic undo of entering a
// command in error. What committing each kind does to the chart lives in the kind's own file
// (commands/kinds/, its `onCommit`; docs/command-kinds.md). Runs inside the commit /
// enter-in-error transaction. Every change is logged in chart_changes (the fields it changed,
// before and after), so the undo touches only what the command did and leaves alone what later
// commands changed since.
import type { Kysely } from 'kysely';
import type { Engine } from '../storage/db.ts';
import type { Database } from '../storage/schema.ts';
import {
  chartChangesOf,
  getChartRow,
  insertChartChange,
  insertChartRow,
  listChartRows,
  updateChartRow,
  type ChartEntity,
  type ChartRows,
} from '../storage/chart-repository.ts';
import { newUuid } from '../lib/ids.ts';
import { lockPatient } from '../storage/clinical-repository.ts';
import { problem } from '../http/problem.ts';
import type { OptionDoc } from '../autocomplete/types.ts';
import { PICKABLE } from './options.ts';
import { CodeSystems } from '@charta/api/constants';

export type { ChartEntity } from '../storage/chart-repository.ts';

export interface CommittedCommand {
  uuid: string;
  schema_key: string;
  patient_key: string;
  data: Record<string, unknown>;
}

/** A text value, or null when it is absent or empty. */
export const textOf = (value: unknown): string | null => (typeof value === 'string' && value !== '' ? value : null);

/**
 * The coding of a stored option. Options stored before picks were checked against their source
 * (or by hand) may have none: their text stands as free text then.
 */
export function codingOf(doc: unknown): { system: string; code: string; display: string } {
  const option = (doc ?? {}) as Partial<OptionDoc>;
  const coding = option.extra?.coding?.[0];
  const text = String(option.text ?? option.value ?? '');
  if (coding === undefined || typeof coding.code !== 'string' || typeof coding.system !== 'string')
    return { system: CodeSystems.UNSTRUCTURED, code: text, display: text };
  return { system: coding.system, code: coding.code, display: coding.display || text };
}

/** What a command's commit may do to its patient's chart; every change is logged for the undo. */
export class ChartWriter {
  private seq = 0;
  constructor(
    private readonly trx: Kysely<Database>,
    private readonly engine: Engine,
    private readonly command: CommittedCommand,
    private readonly now: number,
  ) {}

  /** The patient's rows of an entity in these statuses. */
  async rows<E extends ChartEntity>(entity: E, statuses: string[]): Promise<Array<ChartRows[E]>> {
    return listChartRows(this.trx, entity, this.command.patient_key, statuses);
  }

  /** Adds a row to the patient's chart, created by this command. */
  async create(entity: ChartEntity, row: Record<string, unknown>): Promise<void> {
    const id = newUuid();
    const full = { id, patient_key: this.command.patient_key, source_command: this.command.uuid, created_at: this.now, updated_at: this.now, ...row };
    await insertChartRow(this.trx, entity, full as never);
    await this.log(entity, id, null, { status: row['status'] });
  }

  /** Changes a row the command picked; it must still be pickable (another commit may have got there first). */
  async change(entity: ChartEntity, field: string, id: string, set: Record<string, unknown>): Promise<void> {
    const row = (await getChartRow(this.trx, this.engine, entity, id)) as Record<string, unknown> | undefined;
    if (row === undefined || row['patient_key'] !== this.command.patient_key || row['status'] !== PICKABLE[entity]) {
      throw problem('chart_entry_not_active', {
        detail: `The ${entity} picked in '${field}' is no longer ${PICKABLE[entity]}; pick another one`,
        errors: [{ field: `values.${field}`, message: `the ${entity} is no longer ${PICKABLE[entity]}` }],
      });
    }
    const before = Object.fromEntries(Object.keys(set).map((k) => [k, row[k] ?? null]));
    await updateChartRow(this.trx, entity, id, { ...set, updated_at: this.now });
    await this.log(entity, id, before, set);
  }

  private async log(entity: ChartEntity, id: string, before: Record<string, unknown> | null, after: Record<string, unknown>): Promise<void> {
    await insertChartChange(this.trx, {
      command_uuid: this.command.uuid,
      seq: this.seq++,
      entity,
      entity_id: id,
      before: before === null ? null : JSON.stringify(before),
      after: JSON.stringify(after),
      created_at: this.now,
    });
  }
}

/** Applies a committed command's effect (its kind's `onCommit`) to its patient's chart. */
export async function writeChart(
  trx: Kysely<Database>,
  engine: Engine,
  command: CommittedCommand,
  now: number,
  effect: (chart: ChartWriter, command: CommittedCommand) => Promise<void>,
): Promise<void> {
  // One chart change per patient at a time: on PostgreSQL two commits could otherwise both see no
  // active condition and both add it (SQLite runs write transactions one after another anyway).
  if (engine === 'postgres') await lockPatient(trx, command.patient_key);
  await effect(new ChartWriter(trx, engine, command, now), command);
}

/**
 * Undoes what a command's commit did to the chart, newest change first: a row it created is
 * marked entered in error; a field it changed gets its old value back unless a later command
 * changed it again.
 */
export async function undoInChart(trx: Kysely<Database>, engine: Engine, commandUuid: string, now: number): Promise<void> {
  for (const change of await chartChangesOf(trx, commandUuid)) {
    const entity = change.entity as ChartEntity;
    const row = (await getChartRow(trx, engine, entity, change.entity_id)) as Record<string, unknown> | undefined;
    if (row === undefined) continue;
    if (change.before === null) {
      await updateChartRow(trx, entity, change.entity_id, { status: 'entered_in_error', updated_at: now });
      continue;
    }
    const before = JSON.parse(change.before) as Record<string, unknown>;
    const after = JSON.parse(change.after) as Record<string, unknown>;
    const restore = Object.fromEntries(
      Object.keys(after)
        .filter((k) => row[k] === after[k])
        .map((k) => [k, before[k]]),
    );
    if (Object.keys(restore).length > 0) await updateChartRow(trx, entity, change.entity_id, { ...restore, updated_at: now });
  }
}
