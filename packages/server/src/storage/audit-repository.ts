// The append-only audit trail (the database refuses UPDATE and DELETE on it).
import type { Insertable, Kysely, Selectable } from 'kysely';
import type { AuditEventTable, Database } from './schema.ts';
import type { Storage } from './db.ts';
import { insertRow } from './compiled.ts';

type Db = Kysely<Database>;

export const appendAudit = (db: Db, row: Insertable<AuditEventTable>) => insertRow(db, 'audit_events', row);

/** Rows of one INSERT at most (11 columns each: well under either engine's limit on parameters). */
const ROWS_PER_INSERT = 500;

/** Appends rows in order, several to an INSERT (one row: the compiled insert). */
async function appendAuditRows(db: Db, rows: Array<Insertable<AuditEventTable>>): Promise<void> {
  if (rows.length === 1) {
    await appendAudit(db, rows[0]!);
    return;
  }
  for (let i = 0; i < rows.length; i += ROWS_PER_INSERT)
    await db
      .insertInto('audit_events')
      .values(rows.slice(i, i + ROWS_PER_INSERT))
      .execute();
}

/**
 * The audit rows of reads, written together: one write transaction at a time, which takes every
 * row appended while the one before it ran (or, when none runs, those of one turn of the event
 * loop): one write, not one per read, beside the changes of the same moment, and the rows in the
 * trail in the order they were appended (two transactions at once could take their ids in either
 * order on PostgreSQL, and the trail lists newest first by id). Under load the batches grow
 * rather than queue. Each append's promise settles with its write. Plugins' reads
 * (runtime/data-reads.ts) and API clients' reads (audit/reads.ts) are written through one.
 */
export class AuditBatch {
  private rows: Array<Insertable<AuditEventTable>> = [];
  private waiting: Array<{ resolve: () => void; reject: (err: unknown) => void }> = [];
  /** The write begun and not yet settled. */
  private inflight: Promise<void> | undefined;
  /** A flush is due at the next turn. */
  private scheduled = false;

  constructor(private readonly storage: Storage) {}

  append(...rows: Array<Insertable<AuditEventTable>>): Promise<void> {
    if (rows.length === 0) return Promise.resolve();
    return new Promise((resolve, reject) => {
      this.rows.push(...rows);
      this.waiting.push({ resolve, reject });
      // While a write runs, the rows wait for it to end (it flushes them).
      if (this.inflight === undefined && !this.scheduled) {
        this.scheduled = true;
        setImmediate(() => {
          this.scheduled = false;
          this.flush();
        });
      }
    });
  }

  /** Resolves once every row appended so far has been written or refused (before the database closes). */
  async settled(): Promise<void> {
    while (this.waiting.length > 0 || this.inflight !== undefined) {
      this.flush();
      await this.inflight;
    }
  }

  private flush(): void {
    if (this.waiting.length === 0 || this.inflight !== undefined) return; // flushed early, or the write running flushes them after
    const rows = this.rows;
    const waiting = this.waiting;
    this.rows = [];
    this.waiting = [];
    // A named function: a test that fails one write of the database tells this one apart by its name.
    const write = this.storage
      .transact(async function writeAuditBatch(trx) {
        await appendAuditRows(trx, rows);
      })
      .then(
        () => waiting.forEach((w) => w.resolve()),
        (err: unknown) => waiting.forEach((w) => w.reject(err)),
      )
      .finally(() => {
        this.inflight = undefined;
        this.flush();
      });
    this.inflight = write;
  }
}

export const auditFor = (db: Db, entityType: string, entityId: string) =>
  db.selectFrom('audit_events').selectAll().where('entity_type', '=', entityType).where('entity_id', '=', entityId).orderBy('id').execute();

/** The actions of a plugin's reads of the record (runtime/data-reads.ts). */
export const PLUGIN_READ_ACTIONS = ['plugin.read', 'plugin.read_refused'] as const;

/** An actor's reads of the record, newest first, one page, and how many there are (optionally of one patient). */
export async function listReads(db: Db, actor: string, patientKey: string | undefined, limit: number, offset: number) {
  const base = db
    .selectFrom('audit_events')
    .where('actor', '=', actor)
    .where('action', 'in', PLUGIN_READ_ACTIONS)
    .$if(patientKey !== undefined, (q) => q.where('entity_type', '=', 'patient').where('entity_id', '=', patientKey!));
  const [rows, total] = await Promise.all([
    base.selectAll().orderBy('id', 'desc').limit(limit).offset(offset).execute(),
    base.select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow(),
  ]);
  return { rows: rows.map((r) => ({ ...r, id: Number(r.id), occurred_at: Number(r.occurred_at) })), count: Number(total.n) };
}

/** An audit row as read back (numbers as numbers on both engines). */
export type AuditRow = Omit<Selectable<AuditEventTable>, 'id' | 'occurred_at'> & { id: number; occurred_at: number };

export interface AuditListFilters {
  patientKey?: string | undefined;
  noteKey?: string | undefined;
  command?: string | undefined;
  actor?: string | undefined;
  credential?: string | undefined;
  action?: string | undefined;
  /** Microseconds, inclusive. */
  since?: number | undefined;
  /** Microseconds, exclusive. */
  until?: number | undefined;
  /** Rows with a smaller id only (the cursor). */
  before?: number | undefined;
  limit: number;
}

/**
 * The trail newest first, as filtered: one equality filter leads an index of (column, id) that
 * the database walks backwards from `before`, the others are checked on the rows it meets
 * (docs/operations.md, "Audit trail").
 */
export async function listAudit(db: Db, f: AuditListFilters): Promise<AuditRow[]> {
  const rows = await auditListQuery(db, f).execute();
  return rows.map((r) => ({ ...r, id: Number(r.id), occurred_at: Number(r.occurred_at) }));
}

/** The query listAudit runs (its plan is tested over a million rows: test/audit-trail.test.ts). */
export function auditListQuery(db: Db, f: AuditListFilters) {
  return db
    .selectFrom('audit_events')
    .selectAll()
    .$if(f.patientKey !== undefined, (q) => q.where('patient_key', '=', f.patientKey!))
    .$if(f.noteKey !== undefined, (q) => q.where('note_key', '=', f.noteKey!))
    .$if(f.command !== undefined, (q) => q.where('entity_type', '=', 'command').where('entity_id', '=', f.command!))
    .$if(f.actor !== undefined, (q) => q.where('actor', '=', f.actor!))
    .$if(f.credential !== undefined, (q) => q.where('credential', '=', f.credential!))
    .$if(f.action !== undefined, (q) => q.where('action', '=', f.action!))
    .$if(f.since !== undefined, (q) => q.where('occurred_at', '>=', f.since!))
    .$if(f.until !== undefined, (q) => q.where('occurred_at', '<', f.until!))
    .$if(f.before !== undefined, (q) => q.where('id', '<', f.before!))
    .orderBy('id', 'desc')
    .limit(f.limit);
}
