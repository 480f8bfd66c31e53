// Row types of every table, as Kysely sees them. Timestamps are integer microseconds since
// the Unix epoch on both engines (PostgreSQL's bigint comes back as a string; db.ts parses it).
import type { Generated } from 'kysely';
import type { ChangeTarget } from '@charta/api/constants';

export interface StaffTable {
  key: string;
  name: string;
  created_at: number;
}

/** Columns migration 004 added to `staff` (reference data); defaults keep staff made for credentials valid. */
export interface StaffReferenceColumns {
  first_name: Generated<string>;
  last_name: Generated<string>;
  credentials: Generated<string>;
  npi: string | null;
  /** provider | nurse | staff (src/reference/systems.ts). */
  role: Generated<string>;
  active: Generated<number>;
}

export interface ApiKeyTable {
  id: string;
  key_hash: string;
  label: string;
  staff_key: string | null;
  scopes: string;
  created_at: number;
  /** Microseconds; null: never expires / not revoked / never used (to the minute) (migration 019). */
  expires_at: number | null;
  revoked_at: number | null;
  last_used_at: number | null;
}

export interface OAuthClientTable {
  client_id: string;
  secret_hash: string;
  name: string;
  staff_key: string;
  scopes: string;
  created_at: number;
  /** Microseconds; null: never expires / not revoked / never used (to the minute) (migration 019). */
  expires_at: number | null;
  revoked_at: number | null;
  last_used_at: number | null;
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
  /** female | male | other | unknown (migration 015); null when not given. */
  sex_at_birth: string | null;
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
  /** The patient the row concerns, where it concerns one (migration 018). */
  patient_key: string | null;
  /** The note the row concerns, where it concerns one (migration 018). */
  note_key: string | null;
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
  /** JSON list of the grants an administrator gave it (docs/plugins.md, "Effects"). */
  grants: Generated<string>;
  /** The manifest's `data` as JSON: what the plugin reads of the record (docs/plugins.md, "Reading the record"). */
  data_access: Generated<string>;
  /** JSON: the routes its classes declare, and its schedules (runtime/surface.ts PluginSurface; docs/plugins.md, "HTTP routes", "Scheduled tasks"). */
  routes: Generated<string>;
  schedules: Generated<string>;
  /**
   * The file its metadata came from: 'manifest' (CHARTA_MANIFEST.json), or 'pkg-info' /
   * 'canvas-manifest' for a Python package of the original tool, which can never run here. Null
   * until the server's start has inspected a package installed before migration 014.
   */
  metadata_source: string | null;
  created_at: number;
  updated_at: number;
}

/** A tick of a plugin's schedule claimed by a process (docs/plugins.md, "Scheduled tasks"). */
export interface PluginTickTable {
  plugin_name: string;
  handler: string;
  /** Microseconds since the epoch. */
  tick: number;
  claimed_by: string;
  claimed_at: number;
  outcome: string | null;
  finished_at: number | null;
}

/** A plugin's cache (docs/plugins.md, "Cache"). */
export interface PluginCacheTable {
  plugin_name: string;
  key: string;
  /** JSON. */
  value: string;
  /** Characters of the key and the value: what the plugin's whole cache counts. */
  size: number;
  /** Microseconds; null: until deleted or replaced. */
  expires_at: number | null;
  updated_at: number;
}

export interface PluginSecretTable {
  plugin_name: string;
  name: string;
  /**
   * The value sealed (lib/sealing.ts: `v1:` and base64 of nonce, ciphertext and tag): handlers
   * read it, so it cannot be hashed; no endpoint returns it. Plaintext only while `key_id` is null.
   */
  value: string;
  updated_at: number;
  /** The id of the key that sealed `value` (migration 017); null: plaintext of an earlier version, sealed by the next start. */
  key_id: string | null;
}

/** The outbox of POST events (docs/plugins.md, "Delivery and guarantees"). */
export interface PluginEventTable {
  id: Generated<number>;
  event_id: string;
  /** What the event is about (its `target`): `command`, `note` or `patient` (migration 011). */
  target_type: ChangeTarget;
  /** The command's or note's uuid, the patient's key: one target's events are delivered in order. */
  target_id: string;
  event_type: string;
  payload: string;
  depth: number;
  request_id: string | null;
  /** The process delivering it, until `claimed_until` (microseconds). */
  claimed_by: string | null;
  claimed_until: number | null;
  attempts: Generated<number>;
  created_at: number;
  /** The event id at the root of its chain of changes (its own id at depth 0; null on rows of an earlier version). */
  root_id: string | null;
  /** Not claimed before this time (microseconds): the back-off after a failed attempt. */
  next_attempt_at: number | null;
  /** JSON list of `<plugin>/<entry>:<class>` whose delivery of this event is done. */
  done_handlers: string | null;
  last_error: string | null;
  /** A replayed dead letter goes to this one `<plugin>/<entry>:<class>` only. */
  only_handler: string | null;
}

/** POST events whose handler kept failing (docs/plugins.md, "Delivery and guarantees"). */
export interface PluginDeadLetterTable {
  id: Generated<number>;
  plugin_name: string;
  /** `<entry>:<class>`. */
  handler: string;
  event_id: string;
  event_type: string;
  target_type: ChangeTarget;
  target_id: string;
  payload: string;
  depth: number;
  request_id: string | null;
  root_id: string | null;
  attempts: number;
  last_error: string;
  created_at: number;
  failed_at: number;
}

/** The effects a chain of changes has spent (docs/plugins.md, "Effects"). */
export interface PluginEffectBudgetTable {
  root_id: string;
  used: number;
  created_at: number;
}

export interface BannerAlertTable {
  patient_key: string;
  plugin_name: string;
  key: string;
  narrative: string;
  placement: string;
  intent: string;
  created_at: number;
  updated_at: number;
}

/** A key/value pair a plugin keeps on a patient (docs/plugins.md, "Patient metadata"). */
export interface PatientMetadataTable {
  patient_key: string;
  /** The plugin that wrote it (its name). */
  namespace: string;
  key: string;
  value: string;
  updated_at: number;
  /** `plugin:<name>`. */
  updated_by: string;
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
  /** Place among the most used concepts of the system (1 = most used), from data; null when unranked. */
  usage_rank: number | null;
  updated_at: number;
}

export interface SettingTable {
  key: string;
  value: string;
  updated_at: number;
}

// Reference data of the instance (migration 004; src/reference/).
export interface LabPartnerTable {
  id: string;
  name: string;
  created_at: number;
}

export interface LabTestTable {
  id: string;
  partner_id: string;
  /** The partner's own code for the test (unique within the partner). */
  order_code: string;
  name: string;
  loinc_code: string | null;
  created_at: number;
}

export interface PharmacyTable {
  ncpdp_id: string;
  name: string;
  address: string;
  city: string;
  state: string;
  zip: string;
  phone: string | null;
  created_at: number;
}

export interface ReasonForVisitCodingTable {
  id: string;
  system: string;
  code: string;
  display: string;
  created_at: number;
}

export interface QuestionnaireTable {
  id: string;
  code: string;
  name: string;
  prologue: string;
  created_at: number;
}

export interface QuestionnaireQuestionTable {
  id: string;
  questionnaire_id: string;
  position: number;
  code: string;
  label: string;
  /** TXT | INT | SING | MULT */
  kind: string;
  /** JSON [{id, code, text}] (SING / MULT), else null. */
  options: string | null;
}

export interface EducationalMaterialTable {
  id: string;
  title: string;
  abstract: string;
  /** JSON array of language codes. */
  languages: string;
  created_at: number;
}

export interface DispenseUnitTable {
  /** NCPDP quantity unit of measure code (an NCI Thesaurus code, e.g. C48542). */
  code: string;
  description: string;
  created_at: number;
}

export interface ConditionTable {
  id: string;
  patient_key: string;
  system: string;
  code: string;
  display: string;
  /** Approximate date of onset as the diagnose command gave it (YYYY, YYYY-MM or YYYY-MM-DD). */
  onset: string | null;
  /** active | entered_in_error */
  status: string;
  source_command: string;
  created_at: number;
  updated_at: number;
}

export interface MedicationTable {
  id: string;
  patient_key: string;
  system: string;
  code: string;
  display: string;
  sig: string | null;
  /** active | stopped | entered_in_error */
  status: string;
  source_command: string;
  stopped_by_command: string | null;
  created_at: number;
  updated_at: number;
}

export interface GoalTable {
  id: string;
  patient_key: string;
  statement: string;
  start_date: string | null;
  due_date: string | null;
  achievement_status: string | null;
  priority: string | null;
  progress: string | null;
  /** open | closed | entered_in_error */
  status: string;
  source_command: string;
  created_at: number;
  updated_at: number;
}

export interface ChartChangeTable {
  command_uuid: string;
  seq: number;
  /** condition | medication | goal */
  entity: string;
  entity_id: string;
  before: string | null;
  after: string;
  created_at: number;
}

export interface Database {
  staff: StaffTable & StaffReferenceColumns;
  api_keys: ApiKeyTable;
  oauth_clients: OAuthClientTable;
  access_tokens: AccessTokenTable;
  patients: PatientTable;
  notes: NoteTable;
  commands: CommandTable;
  audit_events: AuditEventTable;
  plugin_cache: PluginCacheTable;
  plugin_ticks: PluginTickTable;
  idempotency_keys: IdempotencyKeyTable;
  plugins: PluginTable;
  plugin_secrets: PluginSecretTable;
  plugin_events: PluginEventTable;
  plugin_dead_letters: PluginDeadLetterTable;
  plugin_effect_budgets: PluginEffectBudgetTable;
  banner_alerts: BannerAlertTable;
  patient_metadata: PatientMetadataTable;
  concepts: ConceptTable;
  conditions: ConditionTable;
  medications: MedicationTable;
  goals: GoalTable;
  chart_changes: ChartChangeTable;
  settings: SettingTable;
  lab_partners: LabPartnerTable;
  lab_tests: LabTestTable;
  pharmacies: PharmacyTable;
  reason_for_visit_codings: ReasonForVisitCodingTable;
  questionnaires: QuestionnaireTable;
  questionnaire_questions: QuestionnaireQuestionTable;
  educational_materials: EducationalMaterialTable;
  dispense_units: DispenseUnitTable;
}
