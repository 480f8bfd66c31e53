// DELETE /core/api/v1/commands/{uuid}/: remove a staged command (kept only in the audit trail).
import type { Ctx } from '../context.ts';
import type { Idempotency } from '../storage/transaction.ts';
import { transition, type Preconditions } from './transition.ts';

export async function deleteCommand(ctx: Ctx, uuid: string, pre: Preconditions = {}, idempotency?: Idempotency) {
  return transition(ctx, uuid, { verb: 'deleted', from: 'staged', change: () => Promise.resolve(null) }, pre, idempotency);
}
