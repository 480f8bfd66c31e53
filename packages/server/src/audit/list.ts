// GET /core/api/v1/audit/ (docs/operations.md, "Audit trail"): the trail newest first, filtered
// by patient, note, command, actor, credential, action and time, one page at a time by a cursor
// (the id of the last row shown), so that a page of a trail of millions is read from an index
// (audit_patient, audit_note, audit_entity, audit_actor, audit_credential, audit_action, or the
// primary key alone; migration 018), never counted or skipped through.
import { AUDIT_DEFAULT_LIMIT, type AuditEntry, type AuditFilters } from '@charta/api';
import type { Ctx } from '../context.ts';
import { requireAdmin } from '../auth/admin.ts';
import { invalid } from '../http/problem.ts';
import { isoMicros, parseTimestampMicros } from '../lib/time.ts';
import { listAudit, type AuditRow } from '../storage/audit-repository.ts';

const parseJson = (text: string | null): unknown => (text === null ? null : (JSON.parse(text) as unknown));

export function auditView(row: AuditRow): AuditEntry {
  return {
    id: row.id,
    occurred_at: isoMicros(row.occurred_at),
    actor: row.actor,
    credential: row.credential,
    action: row.action,
    entity_type: row.entity_type,
    entity_id: row.entity_id,
    patient_key: row.patient_key,
    note_key: row.note_key,
    request_id: row.request_id,
    before: parseJson(row.before),
    after: parseJson(row.after),
  };
}

/** One page of the trail and the cursor of the next (older) one, or null when this is the last. */
export async function listAuditEntries(ctx: Ctx, filters: AuditFilters): Promise<{ results: AuditEntry[]; before: number | null }> {
  requireAdmin(ctx, 'The audit trail');
  const since = filters.since === undefined ? undefined : parseTimestampMicros(filters.since);
  const until = filters.until === undefined ? undefined : parseTimestampMicros(filters.until);
  const errors = [
    ...(filters.since !== undefined && since === undefined ? [{ field: 'since', message: 'must be an ISO 8601 instant, e.g. 2026-11-26T09:00:00Z' }] : []),
    ...(filters.until !== undefined && until === undefined ? [{ field: 'until', message: 'must be an ISO 8601 instant, e.g. 2026-11-26T18:00:00Z' }] : []),
    ...(since !== undefined && until !== undefined && since >= until ? [{ field: 'until', message: 'must be after since' }] : []),
  ];
  if (errors.length > 0) throw invalid(errors);
  const limit = filters.limit ?? AUDIT_DEFAULT_LIMIT;
  const rows = await listAudit(ctx.storage.reader, {
    patientKey: filters.patient_key,
    noteKey: filters.note_key?.toLowerCase(),
    command: filters.command?.toLowerCase(),
    actor: filters.actor,
    credential: filters.credential,
    action: filters.action,
    since,
    until,
    before: filters.before,
    limit: limit + 1,
  });
  const page = rows.slice(0, limit);
  return { results: page.map(auditView), before: rows.length > limit ? page[page.length - 1]!.id : null };
}
