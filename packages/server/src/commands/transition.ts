// The one place where a command changes: every write of a command (create, PATCH, commit,
// enter-in-error, delete) runs here, in one transaction with its audit row, and reaches the log
// stream only once that transaction has committed. The states and transitions are in
// docs/api.md ("States and transitions").
//
// `transition` performs a state transition of an existing command, in this order:
//   1. load and lock the command with its note, in one statement (404), check the caller's
//      preconditions on the locked row (If-Match: 412; the kind an effect names: 400);
//   2. check its note takes commands and its state allows the transition (400);
//   3. the transition's own checks and effects (`change`: values, required fields, the chart);
//   4. the PRE event of the plugin runtime, from the locked row and the change, held by the
//      transaction (storage/holds.ts): the write goes on while the plugins run, and commits only
//      once they have answered; a plugin's validation error is a 400 that rolls everything back
//      (docs/plugins.md, "Delivery and guarantees");
//   5. write the command (or delete it) with its audit row (one statement on PostgreSQL), then
//      the POST event's outbox row; the transaction commits;
//   6. emit to the log stream and wake the delivery of POST events.
// Create (create.ts) has no prior state to check; it shares the events, write, audit and emit
// below (`commandEvents`, `commandWrite`, `commandAudit`).
import type { Kysely } from 'kysely';
import type { Ctx } from '../context.ts';
import { nowMicros } from '../lib/time.ts';
import { problem } from '../http/problem.ts';
import type { Engine } from '../storage/db.ts';
import type { CommandTable, Database } from '../storage/schema.ts';
import { deleteCommand, updateCommandWithAudit } from '../storage/commands-repository.ts';
import { writeTransaction, type AuditEntry, type Idempotency, type Outcome, type Writer } from '../storage/transaction.ts';
import { actingStaff } from '../auth/acting-staff.ts';
import { logCommand, logCommandDeleted } from '../logs/events.ts';
import { loadForWrite, withEditor, type Preconditions } from './rules.ts';
import { toView, type CommandView } from './representation.ts';
import type { CommandChangeEvent } from '../runtime/types.ts';

export type { Preconditions } from './rules.ts';

/** What a write did to a command, as the log stream and the audit trail (`command.<verb>`) name it. */
export type CommandVerb = 'created' | 'updated' | 'committed' | 'entered in error' | 'deleted';

type Committed<T> = Outcome<T> & { replayed: boolean };

/** What a transition's `change` gets: the transaction, the locked row (a snapshot: the helper writes), who, and when. */
export interface TransitionStep {
  trx: Kysely<Database>;
  engine: Engine;
  row: Readonly<CommandTable>;
  staffKey: string;
  /** The command's new updated_at, and the time of every change the transition makes. */
  now: number;
}

/** The columns a transition changes (edited_by and updated_at are the helper's). */
export type CommandChange = Partial<Pick<CommandTable, 'state' | 'data' | 'committed_by' | 'entered_in_error_by'>>;

export interface Transition<V extends Exclude<CommandVerb, 'created'>> {
  verb: V;
  /** The state the command must be in. */
  from: 'staged' | 'committed';
  /** The transition's own checks and effects; returns the columns to change, or null to delete the command. */
  change(step: TransitionStep): Promise<V extends 'deleted' ? null : CommandChange>;
}

const NOT_IN_STATE = { staged: 'command_not_staged', committed: 'command_not_committed' } as const;

/** Performs a state transition of the command `uuid` (see the steps above). */
export async function transition<V extends Exclude<CommandVerb, 'created'>>(
  ctx: Ctx,
  uuid: string,
  t: Transition<V>,
  pre: Preconditions = {},
  idempotency?: Idempotency,
): Promise<Committed<V extends 'deleted' ? null : CommandView>> {
  const staffKey = actingStaff(ctx);
  const engine = ctx.storage.engine;
  return commandWrite(ctx, t.verb, uuid, idempotency, async ({ trx, writeId, hold, audit, auditRow }) => {
    const row = await loadForWrite(trx, engine, uuid, pre);
    if (row.state !== t.from) throw problem(NOT_IN_STATE[t.from]);
    const now = nowMicros();
    const change = await t.change({ trx, engine, row, staffKey, now });
    const before = toView(row);
    const set = change === null ? null : { ...change, edited_by: withEditor(row.edited_by, staffKey), updated_at: now };
    const after = set === null ? null : toView({ ...row, ...set });
    const events = commandEvents(ctx, staffKey, { action: ACTIONS[t.verb], command: after ?? before, previous: before }, writeId);
    hold(events.pre(trx));
    if (set === null) {
      await deleteCommand(trx, uuid);
      await audit(commandAudit(t.verb, uuid, before, after));
    } else {
      await updateCommandWithAudit(trx, engine, uuid, set, auditRow(commandAudit(t.verb, uuid, before, after)));
    }
    await events.post(trx);
    return { status: 200, body: after as V extends 'deleted' ? null : CommandView };
  });
}

/**
 * One write of a command: `work` runs in a write transaction (with the Idempotency-Key), and the
 * log stream hears of it after the commit (never of a rolled-back write nor of a replayed answer).
 */
export async function commandWrite<T extends CommandView | null>(
  ctx: Ctx,
  verb: CommandVerb,
  uuid: string,
  idempotency: Idempotency | undefined,
  work: (w: Writer) => Promise<Outcome<T>>,
): Promise<Committed<T>> {
  const outcome = await writeTransaction<T>(ctx, idempotency, work);
  if (verb === 'deleted') logCommandDeleted(ctx, uuid, outcome);
  else logCommand(ctx, verb, outcome as Committed<CommandView>);
  if (!outcome.replayed) ctx.runtime?.committed();
  return outcome;
}

/** The plugin runtime's name of each verb's action (`PLAN_COMMAND__PRE_COMMIT`…). */
const ACTIONS = { created: 'ORIGINATE', updated: 'UPDATE', committed: 'COMMIT', 'entered in error': 'ENTER_IN_ERROR', deleted: 'DELETE' } as const;

/** The PRE and POST events of one command change made by the write `writeId`, for its transaction to run (nothing without a runtime). */
export function commandEvents(ctx: Ctx, staffKey: string, change: CommandChangeEvent, writeId: number) {
  const actor = { staffKey, requestId: ctx.requestId, depth: ctx.eventDepth ?? 0, rootId: ctx.eventRoot, write: writeId };
  return {
    pre: (trx: Kysely<Database>) => ctx.runtime?.pre(trx, change, actor) ?? Promise.resolve(),
    post: (trx: Kysely<Database>) => ctx.runtime?.post(trx, change, actor) ?? Promise.resolve(),
  };
}

/** The audit entry of a command write: `command.<verb>`, the command before and after. */
export function commandAudit(verb: CommandVerb, uuid: string, before: CommandView | null, after: CommandView | null): AuditEntry {
  return { action: `command.${verb.replaceAll(' ', '_')}`, entityType: 'command', entityId: uuid, before, after };
}
