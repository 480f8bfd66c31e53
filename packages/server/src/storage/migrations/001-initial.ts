// The first schema: auth, patients, notes, commands, the append-only audit trail, idempotency keys.
import { sql, type Kysely } from 'kysely';
import type { Engine } from '../db.ts';

export async function up(db: Kysely<unknown>, engine: Engine): Promise<void> {
  const serial = engine === 'sqlite' ? 'integer' : 'bigserial';
  await db.schema
    .createTable('staff')
    .addColumn('key', 'text', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('api_keys')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('key_hash', 'text', (c) => c.notNull().unique())
    .addColumn('label', 'text', (c) => c.notNull())
    .addColumn('staff_key', 'text', (c) => c.references('staff.key'))
    .addColumn('scopes', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('oauth_clients')
    .addColumn('client_id', 'text', (c) => c.primaryKey())
    .addColumn('secret_hash', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('staff_key', 'text', (c) => c.notNull().references('staff.key'))
    .addColumn('scopes', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('access_tokens')
    .addColumn('token_hash', 'text', (c) => c.primaryKey())
    .addColumn('client_id', 'text', (c) => c.notNull().references('oauth_clients.client_id').onDelete('cascade'))
    .addColumn('staff_key', 'text', (c) => c.notNull())
    .addColumn('scope', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('access_tokens_expires').on('access_tokens').column('expires_at').execute();
  await db.schema
    .createTable('patients')
    .addColumn('key', 'text', (c) => c.primaryKey())
    .addColumn('first_name', 'text', (c) => c.notNull())
    .addColumn('last_name', 'text', (c) => c.notNull())
    .addColumn('birth_date', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('notes')
    .addColumn('uuid', 'text', (c) => c.primaryKey())
    .addColumn('patient_key', 'text', (c) => c.notNull().references('patients.key'))
    .addColumn('note_type', 'text', (c) => c.notNull())
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('locked', 'integer', (c) => c.notNull())
    .addColumn('deleted', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('notes_patient').on('notes').columns(['patient_key', 'created_at', 'uuid']).execute();
  await db.schema
    .createTable('commands')
    .addColumn('uuid', 'text', (c) => c.primaryKey())
    .addColumn('schema_key', 'text', (c) => c.notNull())
    .addColumn('note_uuid', 'text', (c) => c.notNull().references('notes.uuid'))
    .addColumn('patient_key', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('data', 'text', (c) => c.notNull())
    .addColumn('originated_by', 'text', (c) => c.notNull())
    .addColumn('edited_by', 'text', (c) => c.notNull())
    .addColumn('committed_by', 'text')
    .addColumn('entered_in_error_by', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  // Every list filter leads an index that also serves the default order (created_at, uuid),
  // so a filtered page is an index range scan at any table size.
  const listIndexes: Array<[string, string[]]> = [
    ['commands_created', ['created_at', 'uuid']],
    ['commands_updated', ['updated_at', 'uuid']],
    ['commands_patient', ['patient_key', 'created_at', 'uuid']],
    ['commands_note', ['note_uuid', 'created_at', 'uuid']],
    ['commands_schema', ['schema_key', 'created_at', 'uuid']],
    ['commands_state', ['state', 'created_at', 'uuid']],
    ['commands_originator', ['originated_by', 'created_at', 'uuid']],
    ['commands_committer', ['committed_by', 'created_at', 'uuid']],
  ];
  for (const [name, columns] of listIndexes) await db.schema.createIndex(name).on('commands').columns(columns).execute();

  await db.schema
    .createTable('audit_events')
    .addColumn('id', serial, (c) => (engine === 'sqlite' ? c.primaryKey().autoIncrement() : c.primaryKey()))
    .addColumn('occurred_at', 'bigint', (c) => c.notNull())
    .addColumn('actor', 'text')
    .addColumn('credential', 'text')
    .addColumn('action', 'text', (c) => c.notNull())
    .addColumn('entity_type', 'text', (c) => c.notNull())
    .addColumn('entity_id', 'text', (c) => c.notNull())
    .addColumn('before', 'text')
    .addColumn('after', 'text')
    .addColumn('request_id', 'text')
    .execute();
  await db.schema.createIndex('audit_entity').on('audit_events').columns(['entity_type', 'entity_id', 'id']).execute();
  // Append-only: the database itself refuses to change or remove an audit row.
  if (engine === 'sqlite') {
    await sql`CREATE TRIGGER audit_events_no_update BEFORE UPDATE ON audit_events BEGIN SELECT RAISE(ABORT, 'audit_events is append-only'); END`.execute(db);
    await sql`CREATE TRIGGER audit_events_no_delete BEFORE DELETE ON audit_events BEGIN SELECT RAISE(ABORT, 'audit_events is append-only'); END`.execute(db);
  } else {
    await sql`CREATE FUNCTION audit_events_append_only() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'audit_events is append-only'; END $$`.execute(
      db,
    );
    await sql`CREATE TRIGGER audit_events_no_change BEFORE UPDATE OR DELETE ON audit_events FOR EACH ROW EXECUTE FUNCTION audit_events_append_only()`.execute(
      db,
    );
  }

  await db.schema
    .createTable('idempotency_keys')
    .addColumn('principal', 'text', (c) => c.notNull())
    .addColumn('key', 'text', (c) => c.notNull())
    .addColumn('fingerprint', 'text', (c) => c.notNull())
    .addColumn('status', 'integer', (c) => c.notNull())
    .addColumn('body', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('idempotency_keys_pk', ['principal', 'key'])
    .execute();
}
