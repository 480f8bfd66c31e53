// PATCH /core/api/v1/commands/{uuid}/: replace the named field values of a staged command.
import type { Ctx } from '../context.ts';
import type { Idempotency } from '../storage/transaction.ts';
import { getKind } from './kinds/index.ts';
import { applyValues } from './apply-values-patch.ts';
import { transition, type Preconditions } from './transition.ts';

export async function updateCommand(ctx: Ctx, uuid: string, values: unknown, pre: Preconditions = {}, idempotency?: Idempotency) {
  return transition(
    ctx,
    uuid,
    {
      verb: 'updated',
      from: 'staged',
      change: async ({ trx, engine, row }) => {
        const current = JSON.parse(row.data) as Record<string, unknown>;
        const data = await applyValues({ db: trx, engine, patientKey: row.patient_key }, getKind(row.schema_key)!, current, values ?? {});
        return { data: JSON.stringify(data) };
      },
    },
    pre,
    idempotency,
  );
}
