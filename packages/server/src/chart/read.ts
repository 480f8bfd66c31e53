// GET /core/api/v1/patients/{key}/conditions/ | medications/ | goals/: the patient's chart as
// committed commands made it, oldest first, filtered by status (default: the active / open ones).
import type { Ctx } from '../context.ts';
import { KEY_RE } from '../lib/ids.ts';
import { isoMicros } from '../lib/time.ts';
import { invalid, problem } from '../http/problem.ts';
import { exactList, type List, type Page } from '../http/pagination.ts';
import { actingStaff } from '../auth/acting-staff.ts';
import { getPatient as findPatient } from '../storage/clinical-repository.ts';
import { listChartRows, type ChartEntity, type ChartRows } from '../storage/chart-repository.ts';
import type { FieldProblem } from '../http/problem.ts';
import { PICKABLE } from './options.ts';
import { CHART_STATUSES } from '@charta/api/constants';

const STATUSES: Record<ChartEntity, readonly string[]> = CHART_STATUSES;

function view<E extends ChartEntity>(entity: E, row: ChartRows[E]): Record<string, unknown> {
  const base = {
    id: row.id,
    patient_key: row.patient_key,
    status: row.status,
    source_command: row.source_command,
    created_at: isoMicros(row.created_at),
    updated_at: isoMicros(row.updated_at),
  };
  if (entity === 'goal') {
    const g = row as ChartRows['goal'];
    return {
      ...base,
      statement: g.statement,
      start_date: g.start_date,
      due_date: g.due_date,
      achievement_status: g.achievement_status,
      priority: g.priority,
      progress: g.progress,
    };
  }
  const c = row as ChartRows['condition'] | ChartRows['medication'];
  const coding = { system: c.system, code: c.code, display: c.display };
  if (entity === 'condition') return { ...base, coding, onset: (c as ChartRows['condition']).onset };
  const m = c as ChartRows['medication'];
  return { ...base, coding, sig: m.sig, stopped_by_command: m.stopped_by_command };
}

export async function readChart(
  ctx: Ctx,
  entity: ChartEntity,
  patientKey: string,
  query: { status?: string },
  page: Page,
): Promise<List<Record<string, unknown>>> {
  actingStaff(ctx);
  const errors: FieldProblem[] = [];
  const asked = query.status ?? PICKABLE[entity];
  const statuses = asked === 'all' ? STATUSES[entity] : asked.split(',');
  const unknown = statuses.filter((s) => !STATUSES[entity].includes(s));
  if (unknown.length > 0) errors.push({ field: 'status', message: `must be 'all' or a comma-separated list of ${STATUSES[entity].join(', ')}` });
  if (errors.length > 0) throw invalid(errors);
  if (!KEY_RE.test(patientKey) || (await findPatient(ctx.storage.reader, patientKey)) === undefined) throw problem('patient_not_found');
  const rows = await listChartRows(ctx.storage.reader, entity, patientKey, statuses);
  return exactList(
    page,
    rows.length,
    rows.slice(page.offset, page.offset + page.limit).map((r) => view(entity, r)),
  );
}
