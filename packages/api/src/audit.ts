// The audit trail as an administrator reads it (docs/operations.md, "Audit trail"; docs/api.md,
// "Audit trail"): every write, and every read of patient data by an API client or a plugin,
// newest first, filtered and paged by a cursor.
import { Type, type Static } from '@sinclair/typebox';
import { Key, Nullable, Timestamp, Uuid } from './common.ts';

export const AUDIT_MAX_LIMIT = 200;
export const AUDIT_DEFAULT_LIMIT = 50;

export const AuditQuery = Type.Object(
  {
    patient_key: Type.Optional({ ...Key, description: 'Rows about this patient: its record, notes, commands, chart, metadata, and reads of them' }),
    note_key: Type.Optional({ ...Uuid, description: 'Rows about this note and its commands' }),
    command: Type.Optional({ ...Uuid, description: 'Rows about this command' }),
    actor: Type.Optional(
      Type.String({ maxLength: 120, pattern: '^([0-9a-f]{32}|plugin:[a-z0-9][a-z0-9-]{0,99})$', description: 'A staff key, or plugin:<name>' }),
    ),
    credential: Type.Optional(
      Type.String({
        maxLength: 200,
        pattern: '^(client|api_key|plugin):[A-Za-z0-9][A-Za-z0-9_.-]{0,150}$',
        description: 'client:<client id>, api_key:<key id> or plugin:<name>',
      }),
    ),
    action: Type.Optional(Type.String({ maxLength: 100, pattern: '^[a-z_]+(\\.[a-z_]+)*$', description: 'e.g. command.committed, patient.read, plugin.read' })),
    since: Type.Optional(Type.String({ format: 'date-time', description: 'Rows at or after this instant' })),
    until: Type.Optional(Type.String({ format: 'date-time', description: 'Rows before this instant' })),
    before: Type.Optional(
      Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER, description: 'The cursor: rows older than this id (the `next` link carries it)' }),
    ),
    limit: Type.Optional(
      Type.Integer({ minimum: 1, maximum: AUDIT_MAX_LIMIT, description: `Rows per page, 1 to ${AUDIT_MAX_LIMIT} (default ${AUDIT_DEFAULT_LIMIT})` }),
    ),
  },
  { additionalProperties: false },
);
export type AuditFilters = Static<typeof AuditQuery>;

export const AuditEntrySchema = Type.Object(
  {
    id: Type.Integer(),
    occurred_at: Timestamp,
    actor: Nullable(Type.String({ description: 'The staff key the credential acts for, or plugin:<name>' })),
    credential: Nullable(Type.String({ description: 'client:<id>, api_key:<id> or plugin:<name>' })),
    action: Type.String(),
    entity_type: Type.String(),
    entity_id: Type.String(),
    patient_key: Nullable(Type.String()),
    note_key: Nullable(Type.String()),
    request_id: Nullable(Type.String()),
    before: Type.Unknown({ description: 'What it was (JSON), null for a read or a creation' }),
    after: Type.Unknown({ description: 'What it became (JSON); for a read, what was read' }),
  },
  { $id: 'AuditEntry' },
);
export type AuditEntry = Static<typeof AuditEntrySchema>;

export const AuditPageSchema = Type.Object(
  {
    next: Nullable(Type.String({ description: 'The next (older) page, or null' })),
    results: Type.Array(Type.Ref('AuditEntry')),
  },
  { $id: 'AuditPage' },
);
export type AuditPage = { next: string | null; results: AuditEntry[] };
