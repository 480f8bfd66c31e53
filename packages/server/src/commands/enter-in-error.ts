// POST /core/api/v1/commands/{uuid}/enter-in-error/: committed → entered_in_error; what the
// commit did to the patient's chart is undone in the same transaction.
import type { Ctx } from '../context.ts';
import type { Idempotency } from '../storage/transaction.ts';
import { undoInChart } from '../chart/writer.ts';
import { transition, type CommandChange, type TransitionStep, type Preconditions } from './transition.ts';

export function enterInError(ctx: Ctx, uuid: string, pre: Preconditions = {}, idempotency?: Idempotency) {
  return transition(ctx, uuid, { verb: 'entered in error', from: 'committed', change: undo }, pre, idempotency);
}

async function undo({ trx, engine, row, staffKey, now }: TransitionStep): Promise<CommandChange> {
  await undoInChart(trx, engine, row.uuid, now);
  return { state: 'entered_in_error', entered_in_error_by: staffKey };
}
