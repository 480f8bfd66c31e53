// The append-only audit trail (the database refuses UPDATE and DELETE on it).
import type { Insertable, Kysely } from 'kysely';
import type { AuditEventTable, Database } from './schema.ts';
import { insertRow } from './compiled.ts';

type Db = Kysely<Database>;

export const appendAudit = (db: Db, row: Insertable<AuditEventTable>) => insertRow(db, 'audit_events', row);

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
