// What committing a command does to the patient's chart, and how entering it in error undoes
// that. Runs inside the commit / enter-in-error transaction. Every change is logged in
// chart_changes (the fields it changed, before and after), so the undo touches only what the
// command did and leaves alone what later commands changed since.
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
} from '../storage/chart-repository.ts';
import { newUuid } from '../lib/ids.ts';
import { lockPatient } from '../storage/clinical-repository.ts';
import { problem } from '../http/problem.ts';
import type { OptionDoc } from '../options/types.ts';
import { PICKABLE } from './options.ts';
import { CodeSystems } from '../terminology/code-systems.ts';

export interface CommittedCommand {
  uuid: string;
  schema_key: string;
  patient_key: string;
  data: Record<string, unknown>;
}

/** The kinds whose commit changes the chart. */
const CHANGES_CHART = new Set(['diagnose', 'medicationStatement', 'prescribe', 'stopMedication', 'goal', 'updateGoal']);

/** Goals end with these achievement statuses. */
const CLOSING = new Set(['achieved', 'not-achieved', 'not-attainable']);
const goalStatus = (achievement: unknown) => (typeof achievement === 'string' && CLOSING.has(achievement) ? 'closed' : 'open');

const text = (value: unknown): string | null => (typeof value === 'string' && value !== '' ? value : null);

/**
 * The coding of a stored option. Options stored before picks were checked against their source
 * (or by hand) may have none: their text stands as free text then.
 */
function codingOf(doc: unknown): { system: string; code: string; display: string } {
  const option = (doc ?? {}) as Partial<OptionDoc>;
  const coding = option.extra?.coding?.[0];
  const text = String(option.text ?? option.value ?? '');
  if (coding === undefined || typeof coding.code !== 'string' || typeof coding.system !== 'string')
    return { system: CodeSystems.UNSTRUCTURED, code: text, display: text };
  return { system: coding.system, code: coding.code, display: coding.display || text };
}

class ChartWriter {
  private seq = 0;
  constructor(
    private readonly trx: Kysely<Database>,
    private readonly engine: Engine,
    private readonly command: CommittedCommand,
    private readonly now: number,
  ) {}

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

/** Applies a committed command to its patient's chart. */
export async function applyToChart(trx: Kysely<Database>, engine: Engine, command: CommittedCommand, now: number): Promise<void> {
  if (!CHANGES_CHART.has(command.schema_key)) return;
  // One chart change per patient at a time: on PostgreSQL two commits could otherwise both see no
  // active condition and both add it (SQLite runs write transactions one after another anyway).
  if (engine === 'postgres') await lockPatient(trx, command.patient_key);
  const w = new ChartWriter(trx, engine, command, now);
  const d = command.data;
  switch (command.schema_key) {
    case 'diagnose': {
      const coding = codingOf(d['diagnose']);
      const active = await listChartRows(trx, 'condition', command.patient_key, ['active']);
      const same = active.find((c) => c.system === coding.system && c.code === coding.code);
      if (same !== undefined) {
        throw problem('condition_already_active', {
          detail: `The patient already has the active condition ${same.display} (${same.code}); assess it instead`,
          errors: [{ field: 'values.diagnose', message: 'already an active condition of this patient' }],
        });
      }
      await w.create('condition', { ...coding, onset: text(d['approximate_date_of_onset']), status: 'active' });
      return;
    }
    case 'medicationStatement':
    case 'prescribe': {
      const field = command.schema_key === 'prescribe' ? 'prescribe' : 'medication';
      await w.create('medication', { ...codingOf(d[field]), sig: text(d['sig']), status: 'active', stopped_by_command: null });
      return;
    }
    case 'stopMedication': {
      const id = String((d['medication'] as OptionDoc).value);
      await w.change('medication', 'medication', id, { status: 'stopped', stopped_by_command: command.uuid });
      return;
    }
    case 'goal': {
      await w.create('goal', {
        statement: String(d['goal_statement']),
        start_date: text(d['start_date']),
        due_date: text(d['due_date']),
        achievement_status: text(d['achievement_status']),
        priority: text(d['priority']),
        progress: text(d['progress']),
        status: goalStatus(d['achievement_status']),
      });
      return;
    }
    case 'updateGoal': {
      const id = String((d['goal_statement'] as OptionDoc).value);
      const set: Record<string, unknown> = {};
      for (const field of ['due_date', 'achievement_status', 'priority', 'progress']) if (text(d[field]) !== null) set[field] = d[field];
      if (set['achievement_status'] !== undefined) set['status'] = goalStatus(set['achievement_status']);
      await w.change('goal', 'goal_statement', id, set);
      return;
    }
    default:
      return;
  }
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
