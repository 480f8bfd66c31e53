// The log stream lines of command writes (docs/api.md, "Log stream"), emitted by the sequencer
// (transition.ts) AFTER the write transaction has committed (never for a rolled-back write, nor
// for a replayed Idempotency-Key answer). The log stream is a sink: nothing reacts to these words.
import type { Ctx } from '../context.ts';
import type { CommandView } from './representation.ts';

type Committed<T> = { body: T; replayed: boolean };

/** "command <uuid> (plan) committed in note <uuid>" */
export function logCommand(ctx: Ctx, verb: 'created' | 'updated' | 'committed' | 'entered in error', outcome: Committed<CommandView>): void {
  if (ctx.logs === undefined || outcome.replayed) return;
  const c = outcome.body;
  ctx.logs.emit({ level: 'info', event: `command ${c.uuid} (${c.schema_key}) ${verb} in note ${c.note_key}`, request_id: ctx.requestId });
}

export function logCommandDeleted(ctx: Ctx, uuid: string, outcome: Committed<unknown>): void {
  if (ctx.logs === undefined || outcome.replayed) return;
  ctx.logs.emit({ level: 'info', event: `command ${uuid} deleted`, request_id: ctx.requestId });
}
