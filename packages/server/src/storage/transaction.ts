// One write = one transaction: the state checks, the change, its audit row and the stored
// Idempotency-Key response commit together or not at all.
import crypto from 'node:crypto';
import { sql, type Insertable, type Kysely } from 'kysely';
import type { Storage } from './db.ts';
import type { Hold } from './holds.ts';
import { nowMicros } from '../lib/time.ts';
import { appendAudit } from './audit-repository.ts';
import { deleteIdempotent, findIdempotent, saveIdempotent } from './idempotency-repository.ts';
import { IdempotencyKeyReusedError } from './errors.ts';
import type { AuditEventTable, Database } from './schema.ts';

export interface AuditEntry {
  action: string;
  entityType: string;
  entityId: string;
  before: unknown;
  after: unknown;
  /** The patient it concerns, where it concerns one: the audit trail's patient filter (docs/operations.md, "Audit trail"). */
  patientKey?: string | null;
  /** The note it concerns, where it concerns one. */
  noteKey?: string | null;
  /**
   * How `before` and `after` are written into the row: JSON.stringify unless the entry says
   * otherwise (a command's view writes its stored data as it is, commands/representation.ts).
   * It must give the same text JSON.stringify would.
   */
  json?: (value: unknown) => string;
}

export interface Outcome<T> {
  status: number;
  body: T;
}

export interface Idempotency {
  key: string;
  /** What the request asked for (method, path, body): a reused key must ask for the same. */
  request: unknown;
}

/**
 * What a write needs to know about the request it serves: where to write, and who and which
 * request the audit row names. An operation's context (src/context.ts) fits it.
 */
export interface WriteContext {
  storage: Storage;
  principal: { credential: string; staffKey: string | null };
  requestId: string;
}

/**
 * What a write's `work` is given: its transaction, its id, `hold` for the checks it waits on, and
 * its audit row.
 *
 * **`work` may run more than once for one write**, and so **a PRE handler may be called more than
 * once for one write**. On SQLite the group commit (storage/group-commit.ts) runs writes in one
 * shared transaction, one savepoint each: when a check a write holds refuses it, every write of the
 * batch made after it is undone (they ran on top of it) and run again; and a write whose check is
 * still running PARK_AFTER_MS after its batch is ready is set aside (undone) and run again in a
 * later batch once the check has settled. Each run calls `work` afresh, with this Writer's `trx`
 * and `hold`, and only the run that commits counts. A check held in a run (a plugin's PRE handler,
 * docs/plugins.md, "Delivery and guarantees") may thus be asked again for the same write: the
 * plugin runtime answers a run whose change is the same from the decision already made, and calls
 * the handlers again when the change differs (the command changed by a refused write before it).
 * So `work` chooses outside itself what must not change between runs (a new row's uuid), decides
 * only from what it reads in `trx`, and leaves what must happen once to after the commit.
 */
export interface Writer {
  trx: Kysely<Database>;
  /** This write, the same in every run of it (the SQLite group commit may run a write again). */
  writeId: number;
  /** Hands a check to the transaction: the write commits only if it resolves (storage/holds.ts). */
  hold: Hold;
  audit(entry: AuditEntry): Promise<void>;
  /** The audit row of `entry`, for a write that inserts it with its change in one statement. */
  auditRow(entry: AuditEntry): Insertable<AuditEventTable>;
}

let writes = 0;

/** Idempotency keys are remembered this long. */
export const IDEMPOTENCY_TTL_MICROS = 24 * 3600 * 1_000_000;

export async function writeTransaction<T>(
  ctx: WriteContext,
  idempotency: Idempotency | undefined,
  work: (w: Writer) => Promise<Outcome<T>>,
): Promise<Outcome<T> & { replayed: boolean }> {
  const fingerprint = idempotency && crypto.createHash('sha256').update(JSON.stringify(idempotency.request)).digest('hex');
  const principal = ctx.principal.credential;
  const writeId = ++writes;
  return ctx.storage.transact(async (trx, hold) => {
    if (idempotency) {
      // Requests sharing a key wait for each other (PostgreSQL; SQLite transactions are serial),
      // so a repeat sent while the first is running replays its answer instead of racing it.
      if (ctx.storage.engine === 'postgres') {
        await sql`SELECT pg_advisory_xact_lock(hashtextextended(${`${principal}\n${idempotency.key}`}, 0))`.execute(trx);
      }
      const replay = await replayed<T>(trx, principal, idempotency.key, fingerprint!);
      if (replay) return replay;
    }
    const auditRow = (e: AuditEntry): Insertable<AuditEventTable> => {
      const json = e.json ?? JSON.stringify;
      return {
        occurred_at: nowMicros(),
        actor: ctx.principal.staffKey,
        credential: ctx.principal.credential,
        action: e.action,
        entity_type: e.entityType,
        entity_id: e.entityId,
        before: e.before === undefined || e.before === null ? null : json(e.before),
        after: e.after === undefined || e.after === null ? null : json(e.after),
        request_id: ctx.requestId,
        patient_key: e.patientKey ?? null,
        note_key: e.noteKey ?? null,
      };
    };
    const writer: Writer = {
      trx,
      writeId,
      hold,
      auditRow,
      audit: async (e) => {
        await appendAudit(trx, auditRow(e));
      },
    };
    const outcome = await work(writer);
    if (idempotency) {
      await saveIdempotent(trx, {
        principal,
        key: idempotency.key,
        fingerprint: fingerprint!,
        status: outcome.status,
        body: JSON.stringify(outcome.body),
        created_at: nowMicros(),
      });
    }
    return { ...outcome, replayed: false };
  });
}

async function replayed<T>(db: Kysely<Database>, principal: string, key: string, fingerprint: string) {
  const stored = await findIdempotent(db, principal, key);
  if (stored === undefined) return undefined;
  if (stored.created_at < nowMicros() - IDEMPOTENCY_TTL_MICROS) {
    await deleteIdempotent(db, principal, key);
    return undefined;
  }
  if (stored.fingerprint !== fingerprint) throw new IdempotencyKeyReusedError();
  return { status: stored.status, body: JSON.parse(stored.body) as T, replayed: true };
}
