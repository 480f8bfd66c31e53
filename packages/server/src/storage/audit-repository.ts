// The append-only audit trail (the database refuses UPDATE and DELETE on it).
import type { Insertable, Kysely } from 'kysely';
import type { AuditEventTable, Database } from './schema.ts';
import { insertRow } from './compiled.ts';

type Db = Kysely<Database>;

export const appendAudit = (db: Db, row: Insertable<AuditEventTable>) => insertRow(db, 'audit_events', row);

export const auditFor = (db: Db, entityType: string, entityId: string) =>
  db.selectFrom('audit_events').selectAll().where('entity_type', '=', entityType).where('entity_id', '=', entityId).orderBy('id').execute();
