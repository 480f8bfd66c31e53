// POST /core/api/v1/commands/{uuid}/commit/: staged → committed, once every required field is
// there; the kind's `onCommit` changes the patient's chart in the same transaction.
import type { Ctx } from '../context.ts';
import { problem } from '../http/problem.ts';
import type { Idempotency } from '../storage/transaction.ts';
import { writeChart } from '../chart/writer.ts';
import { getKind } from './kinds/index.ts';
import { missingRequired } from './check-values.ts';
import { transition, type CommandChange, type TransitionStep, type Preconditions } from './transition.ts';

export function commitCommand(ctx: Ctx, uuid: string, pre: Preconditions = {}, idempotency?: Idempotency) {
  return transition(ctx, uuid, { verb: 'committed', from: 'staged', change: commit }, pre, idempotency);
}

async function commit({ trx, engine, row, staffKey, now }: TransitionStep): Promise<CommandChange> {
  const kind = getKind(row.schema_key)!;
  const data = JSON.parse(row.data) as Record<string, unknown>;
  const missing = missingRequired(kind, data);
  if (missing.length > 0) {
    const names = missing.map((m) => m.field.replace(/^values\./, ''));
    throw problem('required_field_missing', { detail: `Required to commit: ${names.map((n) => `'${n}'`).join(', ')}`, errors: missing });
  }
  if (kind.onCommit !== undefined) await writeChart(trx, engine, { ...row, data }, now, kind.onCommit);
  return { state: 'committed', committed_by: staffKey };
}
