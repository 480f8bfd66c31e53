// The one place where a command changes: every write of a command is a transition (origination
// from nothing to staged, PATCH, commit, enter-in-error, delete), and `transition` runs each of
// them in one transaction with its audit row, in one order, reaching the log stream only once that
// transaction has committed. The states and transitions are in docs/api.md ("States and
// transitions"); docs/architecture.md ("Code layout") says why this is the one place.
//
// The order, the same for every transition:
//   1. where it starts: a stored command is loaded and locked with its note, in one statement
//      (404); the caller's preconditions are checked on the locked row (If-Match: 412; the kind an
//      effect names: 400); its note must take commands and its state allow the transition (400).
//      An origination starts from nothing: there is no row to load;
//   2. the transition's own checks and effects (`change`: values, required fields, the chart;
//      `originate`: the note, the values, the new row);
//   3. the PRE event of the plugin runtime, from the locked row and the change, held by the
//      transaction (storage/holds.ts): the write goes on while the plugins run, and commits only
//      once they have answered; a plugin's validation error is a 400 that rolls everything back
//      (docs/plugins.md, "Delivery and guarantees"). The transaction may run all of this more than
//      once for one write (storage/transaction.ts, `Writer`);
//   4. write the command (insert, update or delete) with its audit row and the POST event's outbox
//      row (one statement on PostgreSQL where it can); the transaction commits;
//   5. emit to the log stream, and signal `outbox-written` when the POST event's outbox row was
//      written (docs/architecture.md, "Signals": the delivery, here or on another process, wakes).
import type { Kysely } from 'kysely';
import type { Ctx } from '../context.ts';
import { nowMicros } from '../lib/time.ts';
import { problem } from '../http/problem.ts';
import type { Engine } from '../storage/db.ts';
import type { CommandTable, Database } from '../storage/schema.ts';
import { deleteCommand, updateCommandWithAudit } from '../storage/commands-repository.ts';
import { insertPluginEvent, type NewPluginEvent } from '../storage/plugin-events-repository.ts';
import { writeTransaction, type AuditEntry, type Idempotency, type Outcome, type Writer } from '../storage/transaction.ts';
import { eventActor } from '../lib/event-actor.ts';
import { actingStaff } from '../auth/acting-staff.ts';
import { logCommand, logCommandDeleted } from './log-lines.ts';
import { loadForWrite, withEditor, type Preconditions } from './rules.ts';
import { commandJson, toView, type CommandView } from './representation.ts';
import type { CommandChangeEvent } from './plugin-events.ts';

export type { Preconditions } from './rules.ts';

/** What a write did to a command, as the log stream and the audit trail (`command.<verb>`) name it. */
export type CommandVerb = 'created' | 'updated' | 'committed' | 'entered in error' | 'deleted';

/** The verbs of a transition of a stored command. */
type StoredVerb = Exclude<CommandVerb, 'created'>;

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

/** A transition of a stored command. */
export interface Transition<V extends StoredVerb> {
  verb: V;
  /** The state the command must be in. */
  from: 'staged' | 'committed';
  /** The transition's own checks and effects; returns the columns to change, or null to delete the command. */
  change(step: TransitionStep): Promise<V extends 'deleted' ? null : CommandChange>;
}

/** What an origination's `originate` gets: no row yet, the rest as a transition's step. */
export type OriginationStep = Omit<TransitionStep, 'row'>;

/** The transition from nothing to staged: a new command (create.ts). */
export interface Origination {
  verb: 'created';
  /** Nothing: the command does not exist before. */
  from: null;
  /** Its own checks and effects (the note takes commands, the values); returns the new command's row (staged, with the uuid given to `transition`). */
  originate(step: OriginationStep): Promise<CommandTable>;
  /**
   * Inserts the row with its audit row and, when there is one, its outbox row (step 4). create.ts
   * keeps the one statement that inserts a command (test/command-seam.test.ts); the sequence says
   * when it runs.
   */
  insert(w: Writer, row: CommandTable, audit: AuditEntry, outbox: WithOutbox): Promise<void>;
}

/** The POST event's outbox row written with the command, when a plugin handler listens. */
type WithOutbox = { outbox: NewPluginEvent } | Record<string, never>;

/** What steps 1 and 2 leave for the rest: the command before and after, and how to write it with its audit entry and outbox row. */
interface Prepared {
  before: CommandView | null;
  after: CommandView | null;
  write(audit: AuditEntry, outbox: WithOutbox): Promise<void>;
}

const NOT_IN_STATE = { staged: 'command_not_staged', committed: 'command_not_committed' } as const;

/** Originates the command `uuid` (see the steps above); a new command has no preconditions. */
export function transition(ctx: Ctx, uuid: string, t: Origination, pre: undefined, idempotency?: Idempotency): Promise<Committed<CommandView>>;
/** Performs a transition of the stored command `uuid` (see the steps above). */
export function transition<V extends StoredVerb>(
  ctx: Ctx,
  uuid: string,
  t: Transition<V>,
  pre?: Preconditions,
  idempotency?: Idempotency,
): Promise<Committed<V extends 'deleted' ? null : CommandView>>;
export async function transition(
  ctx: Ctx,
  uuid: string,
  t: Origination | Transition<StoredVerb>,
  pre: Preconditions = {},
  idempotency?: Idempotency,
): Promise<Committed<CommandView | null>> {
  const staffKey = actingStaff(ctx);
  let outboxWritten = false;
  let subject: CommandView | null = null;
  const outcome = await writeTransaction<CommandView | null>(ctx, idempotency, async (w) => {
    outboxWritten = false; // a write run again (storage/group-commit.ts) starts over
    const { before, after, write } = t.from === null ? await originated(ctx, t, w, staffKey) : await changed(ctx, uuid, t, pre, w, staffKey);
    subject = after ?? before;
    const events = commandEvents(ctx, staffKey, { action: ACTIONS[t.verb], command: (after ?? before)!, previous: before }, w.writeId);
    w.hold(events.pre(w.trx));
    const post = events.post();
    await write(commandAudit(t.verb, uuid, before, after), post === null ? {} : { outbox: post });
    outboxWritten = post !== null;
    return { status: t.from === null ? 201 : 200, body: after };
  });
  if (t.verb === 'deleted') logCommandDeleted(ctx, uuid, outcome);
  else logCommand(ctx, t.verb, outcome as Committed<CommandView>);
  if (!outcome.replayed && outboxWritten) ctx.signals?.emit({ type: 'outbox-written' });
  // The change stream: whoever follows the patient or the note looks again (docs/api.md, "Change stream").
  const changedCommand = subject as CommandView | null;
  if (!outcome.replayed && changedCommand !== null) {
    ctx.signals?.emit({
      type: 'record-changed',
      patient: changedCommand.patient_key,
      note: changedCommand.note_key,
      target: { type: 'command', id: changedCommand.uuid },
      action: t.verb,
      actor: staffKey,
    });
  }
  return outcome;
}

/** Steps 1 and 2 of an origination: nothing to load; its own step gives the new row. */
async function originated(ctx: Ctx, t: Origination, w: Writer, staffKey: string): Promise<Prepared> {
  const row = await t.originate({ trx: w.trx, engine: ctx.storage.engine, staffKey, now: nowMicros() });
  return { before: null, after: toView(row), write: (audit, outbox) => t.insert(w, row, audit, outbox) };
}

/** Steps 1 and 2 of a transition of a stored command: the locked row, its preconditions and state, then its own step. */
async function changed(ctx: Ctx, uuid: string, t: Transition<StoredVerb>, pre: Preconditions, w: Writer, staffKey: string): Promise<Prepared> {
  const { trx } = w;
  const engine = ctx.storage.engine;
  const row = await loadForWrite(trx, engine, uuid, pre);
  if (row.state !== t.from) throw problem(NOT_IN_STATE[t.from]);
  const now = nowMicros();
  const change = await t.change({ trx, engine, row, staffKey, now });
  const before = toView(row);
  if (change === null) {
    return {
      before,
      after: null,
      write: async (audit, { outbox }) => {
        await deleteCommand(trx, uuid);
        await w.audit(audit);
        if (outbox !== undefined) await insertPluginEvent(trx, outbox);
      },
    };
  }
  const set = { ...change, edited_by: withEditor(row.edited_by, staffKey), updated_at: now };
  return {
    before,
    after: toView({ ...row, ...set }),
    write: (audit, outbox) => updateCommandWithAudit(trx, engine, uuid, set, { audit: w.auditRow(audit), ...outbox }),
  };
}

/** The plugin runtime's name of each verb's action (`PLAN_COMMAND__PRE_COMMIT`…). */
const ACTIONS = { created: 'ORIGINATE', updated: 'UPDATE', committed: 'COMMIT', 'entered in error': 'ENTER_IN_ERROR', deleted: 'DELETE' } as const;

/** The PRE and POST events of one command change made by the write `writeId`, for its transaction to run (nothing without a runtime). */
function commandEvents(ctx: Ctx, staffKey: string, change: CommandChangeEvent, writeId: number) {
  const actor = eventActor(ctx, staffKey, writeId);
  return {
    pre: (trx: Kysely<Database>) => ctx.runtime?.pre(trx, change, actor) ?? Promise.resolve(),
    /** The POST event's outbox row, for the write to insert; null when no handler listens. */
    post: (): NewPluginEvent | null => ctx.runtime?.post(change, actor) ?? null,
  };
}

/** The audit entry of a command write: `command.<verb>`, the command before and after. */
function commandAudit(verb: CommandVerb, uuid: string, before: CommandView | null, after: CommandView | null): AuditEntry {
  const command = after ?? before;
  return {
    action: `command.${verb.replaceAll(' ', '_')}`,
    entityType: 'command',
    entityId: uuid,
    before,
    after,
    patientKey: command?.patient_key ?? null,
    noteKey: command?.note_key ?? null,
    // The views' stored data written as it is, not parsed and written again (docs/performance.md, "One JSON of a view").
    json: (view) => commandJson(view as CommandView),
  };
}
