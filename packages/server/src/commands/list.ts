// GET /core/api/v1/commands: filtered, ordered, paginated.
import type { Ctx } from '../context.ts';
import { KEY_RE, UUID_RE } from '../lib/ids.ts';
import { DAY_MICROS, parseDateMicros, parseTimestampMicros } from '../lib/time.ts';
import { invalid, type FieldProblem } from '../http/problem.ts';
import type { List, Page } from '../http/pagination.ts';
import { listCommands as queryCommands, type CommandFilter, type CommandOrder } from '../storage/commands-repository.ts';
import { kindKeys } from './kinds/index.ts';
import { toView, type CommandView } from './representation.ts';
import { COMMAND_STATES, ORDERINGS, TIME_FILTERS } from '@charta/api/constants';
import { actingStaff } from '../auth/acting-staff.ts';

/** The filters and ordering of the querystring (its page is parsed apart). */
export type ListQuery = Partial<Record<string, string>>;

export type CommandList = List<CommandView>;

export async function listCommands(ctx: Ctx, query: ListQuery, page: Page, countCap: number): Promise<CommandList> {
  actingStaff(ctx);
  const errors: FieldProblem[] = [];
  const filter: CommandFilter = { times: [] };
  const need = (name: string, ok: boolean, message: string) => {
    if (!ok) errors.push({ field: name, message });
  };
  const q = query;
  if (q.patient_key !== undefined) need('patient_key', KEY_RE.test(q.patient_key), 'must be 32 lowercase hexadecimal characters');
  if (q.originator_key !== undefined) need('originator_key', KEY_RE.test(q.originator_key), 'must be 32 lowercase hexadecimal characters');
  if (q.committer_key !== undefined) need('committer_key', KEY_RE.test(q.committer_key), 'must be 32 lowercase hexadecimal characters');
  if (q.note_key !== undefined) need('note_key', UUID_RE.test(q.note_key), 'must be a dashed lowercase UUID');
  if (q.schema_key !== undefined) need('schema_key', kindKeys.includes(q.schema_key), `must be one of ${kindKeys.join(', ')}`);
  if (q.state !== undefined) need('state', (COMMAND_STATES as readonly string[]).includes(q.state), `must be one of ${COMMAND_STATES.join(', ')}`);
  filter.patient_key = q.patient_key;
  filter.note_uuid = q.note_key;
  filter.originated_by = q.originator_key;
  filter.committed_by = q.committer_key;
  filter.schema_key = q.schema_key;
  filter.state = q.state;
  for (const name of TIME_FILTERS) {
    const text = q[name];
    if (text === undefined) continue;
    const conditions = timeConditions(name, text);
    if (conditions === undefined)
      errors.push({ field: name, message: 'must be a date (2026-11-22) or an ISO 8601 timestamp with a zone (2026-11-22T05:26:28.123456Z)' });
    else filter.times.push(...conditions);
  }
  const ordering = q.ordering ?? 'created_at';
  need('ordering', (ORDERINGS as readonly string[]).includes(ordering), `must be one of ${ORDERINGS.join(', ')}`);
  if (errors.length > 0) throw invalid(errors);
  const order: CommandOrder = {
    column: ordering.replace('-', '') as CommandOrder['column'],
    direction: ordering.startsWith('-') ? 'desc' : 'asc',
  };
  const list = await queryCommands(ctx.storage.reader, filter, order, page.limit, page.offset, countCap);
  return { page, hasNext: list.hasNext, count: list.count, countIsEstimate: list.countIsEstimate, results: list.rows.map(toView) };
}

/**
 * `created_at__gte=2026-11-22` etc. A date means the whole UTC day: the bare name matches
 * within that day, `__lt`/`__gte` compare with its start, `__lte`/`__gt` with its end.
 */
function timeConditions(name: string, text: string): CommandFilter['times'] | undefined {
  const [column, suffix = ''] = name.split('__') as ['created_at' | 'updated_at', string?];
  const day = parseDateMicros(text);
  if (day !== undefined) {
    const end = day + DAY_MICROS;
    switch (suffix) {
      case '':
        return [
          { column, op: '>=', value: day },
          { column, op: '<', value: end },
        ];
      case 'lt':
        return [{ column, op: '<', value: day }];
      case 'lte':
        return [{ column, op: '<', value: end }];
      case 'gt':
        return [{ column, op: '>=', value: end }];
      default:
        return [{ column, op: '>=', value: day }];
    }
  }
  const at = parseTimestampMicros(text);
  if (at === undefined) return undefined;
  const op = ({ '': '=', lt: '<', lte: '<=', gt: '>', gte: '>=' } as const)[suffix as '' | 'lt' | 'lte' | 'gt' | 'gte'];
  return [{ column, op, value: at }];
}
