// Row types of every table, as Kysely sees them. Timestamps are integer microseconds since
// the Unix epoch on both engines (PostgreSQL's bigint comes back as a string; db.ts parses it).
import type { Generated } from 'kysely';

export interface StaffTable {
  key: string;
  name: string;
  created_at: number;
}

export interface ApiKeyTable {
  id: string;
  key_hash: string;
  label: string;
  staff_key: string | null;
  scopes: string;
  created_at: number;
}

export interface OAuthClientTable {
  client_id: string;
  secret_hash: string;
  name: string;
  staff_key: string;
  scopes: string;
  created_at: number;
}

export interface AccessTokenTable {
  token_hash: string;
  client_id: string;
  staff_key: string;
  scope: string;
  expires_at: number;
  created_at: number;
}

export interface PatientTable {
  key: string;
  first_name: string;
  last_name: string;
  birth_date: string | null;
  created_at: number;
}

export interface NoteTable {
  uuid: string;
  patient_key: string;
  note_type: string;
  title: string;
  locked: number;
  deleted: number;
  created_at: number;
  updated_at: number;
}

export interface CommandTable {
  uuid: string;
  schema_key: string;
  note_uuid: string;
  patient_key: string;
  state: string;
  /** JSON object of field values. */
  data: string;
  originated_by: string;
  /** JSON array of staff keys. */
  edited_by: string;
  committed_by: string | null;
  entered_in_error_by: string | null;
  created_at: number;
  /** Strictly increasing per change: also the command's ETag. */
  updated_at: number;
}

export interface AuditEventTable {
  id: Generated<number>;
  occurred_at: number;
  actor: string | null;
  credential: string | null;
  action: string;
  entity_type: string;
  entity_id: string;
  before: string | null;
  after: string | null;
  request_id: string | null;
}

export interface IdempotencyKeyTable {
  principal: string;
  key: string;
  fingerprint: string;
  status: number;
  body: string;
  created_at: number;
}

export interface PluginTable {
  /** Slug: lower case letters, digits and '-'. */
  name: string;
  description: string;
  version: string;
  /** 'wheel' or 'tar.gz' (found from the content). */
  format: string;
  /** sha256 hex of `package`. */
  checksum: string;
  package: Buffer;
  is_enabled: number;
  /** The package this one replaced, kept for a rollback. */
  previous_version: string | null;
  previous_format: string | null;
  previous_checksum: string | null;
  previous_package: Buffer | null;
  created_at: number;
  updated_at: number;
}

export interface ConceptTable {
  id: Generated<number>;
  /** Coding system string: `ICD-10`, `http://www.nlm.nih.gov/research/umls/rxnorm`… */
  system: string;
  code: string;
  /** The code upper-cased, letters and digits only: what an exact code search compares. */
  code_key: string;
  display: string;
  /** normalizeText(display): the start-of-display search runs on it. */
  display_key: string;
  /** normalizeText(code + display): the word search runs on it. */
  search_text: string;
  active: number;
  /** JSON object of small facts (term type, class…), or null. */
  extra: string | null;
  updated_at: number;
}

export interface SettingTable {
  key: string;
  value: string;
  updated_at: number;
}

export interface Database {
  staff: StaffTable;
  api_keys: ApiKeyTable;
  oauth_clients: OAuthClientTable;
  access_tokens: AccessTokenTable;
  patients: PatientTable;
  notes: NoteTable;
  commands: CommandTable;
  audit_events: AuditEventTable;
  idempotency_keys: IdempotencyKeyTable;
  plugins: PluginTable;
  concepts: ConceptTable;
  settings: SettingTable;
}
