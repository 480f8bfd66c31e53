// The one error catalog: every problem the API can answer, named once with its status and
// message. Handlers throw `problem(code, …)`; the error handler renders RFC 9457 bodies.
// docs/errors.md lists the same codes; a test keeps the two in step.

export interface FieldProblem {
  field: string;
  message: string;
  /** The plugin that raised it (plugin_validation_failed, plugin_unavailable). */
  plugin?: string;
}

interface Entry {
  status: number;
  title: string;
  /** The spec's exact wording where it gives one. */
  detail: string;
}

export const catalog = {
  // Commands (the spec's messages)
  command_not_found: { status: 404, title: 'Not found', detail: 'Command not found' },
  command_not_staged: { status: 400, title: 'Wrong state', detail: 'Command is not staged' },
  command_not_committed: { status: 400, title: 'Wrong state', detail: 'Command is not committed' },
  command_kind_mismatch: { status: 400, title: 'Wrong kind', detail: 'The command is of another kind than the one named' },
  note_invalid: { status: 400, title: 'Note not writable', detail: 'Note has an invalid type or state' },
  note_does_not_exist: { status: 400, title: 'Bad note', detail: 'Note does not exist' },
  field_not_autocomplete: { status: 400, title: 'Not an autocomplete field', detail: 'Field does not support autocomplete' },
  field_not_found: { status: 404, title: 'Not found', detail: 'Field not found' },
  unknown_schema_key: { status: 400, title: 'Unknown command kind', detail: 'Unknown schemaKey' },
  required_field_missing: { status: 400, title: 'Required field missing', detail: 'A field required to commit is missing' },
  plugin_validation_failed: { status: 400, title: 'Refused by a plugin', detail: 'A plugin refused the change' },
  plugin_unavailable: { status: 503, title: 'Plugin unavailable', detail: 'A plugin that must check this change could not run; nothing was written' },
  // The patient's chart (commit)
  condition_already_active: { status: 400, title: 'Condition already active', detail: 'The patient already has this active condition' },
  chart_entry_not_active: { status: 400, title: 'Chart entry not active', detail: 'The chart entry picked is no longer active' },
  // Notes and patients
  note_not_found: { status: 404, title: 'Not found', detail: 'Note not found' },
  note_deleted: { status: 400, title: 'Wrong state', detail: 'Note is deleted' },
  patient_not_found: { status: 404, title: 'Not found', detail: 'Patient not found' },
  staff_not_found: { status: 404, title: 'Not found', detail: 'Staff member not found' },
  patient_does_not_exist: { status: 400, title: 'Bad patient', detail: 'Patient does not exist' },
  // Plugins
  plugin_not_found: { status: 404, title: 'Not found', detail: 'Plugin not found' },
  plugin_exists: { status: 400, title: 'Plugin exists', detail: 'A plugin with this name already exists; update it instead' },
  plugin_package_invalid: { status: 400, title: 'Invalid package', detail: 'The package is not valid' },
  plugin_package_too_large: { status: 413, title: 'Package too large', detail: 'The package is larger than the upload limit' },
  plugin_package_missing: { status: 400, title: 'No package', detail: 'Send the package as the multipart file field `package`' },
  plugin_name_mismatch: { status: 400, title: 'Wrong plugin', detail: 'The package is another plugin than the one named in the path' },
  plugin_enabled: { status: 400, title: 'Plugin enabled', detail: 'Disable the plugin before deleting it, or delete with force=true' },
  plugin_disabled: { status: 400, title: 'Plugin disabled', detail: 'Enable the plugin before replaying its dead letters' },
  dead_letter_not_found: { status: 404, title: 'Not found', detail: 'Dead letter not found' },
  // Reference data (admin API)
  credential_not_found: { status: 404, title: 'Not found', detail: 'No such API key or OAuth client' },
  credential_in_use: {
    status: 409,
    title: 'Credential in use',
    detail: 'This is the API key making the request: revoke it with another admin key, or add force=true',
  },
  reference_exists: { status: 409, title: 'Already exists', detail: 'An entry with the same identifier already exists' },
  lab_partner_not_found: { status: 404, title: 'Not found', detail: 'Lab partner not found' },
  // Request shape
  validation_failed: { status: 400, title: 'Invalid request', detail: 'The request is not valid' },
  malformed_body: { status: 400, title: 'Malformed body', detail: 'The request body could not be parsed' },
  unsupported_media_type: { status: 415, title: 'Unsupported media type', detail: 'Send application/json' },
  body_too_large: { status: 413, title: 'Body too large', detail: 'The request body is too large' },
  trailing_slash_required: { status: 404, title: 'Not found', detail: 'A trailing slash is required on POST, PUT, PATCH and DELETE paths' },
  route_not_found: { status: 404, title: 'Not found', detail: 'No such endpoint' },
  method_not_allowed: { status: 405, title: 'Method not allowed', detail: 'This path does not take this method; Allow lists those it takes' },
  // Plugin routes (docs/plugins.md, "HTTP routes")
  plugin_route_not_found: { status: 404, title: 'Not found', detail: 'No enabled plugin serves this route' },
  plugin_failed: { status: 502, title: 'Plugin failed', detail: 'The plugin serving this route failed; the request id names it in the log stream' },
  console_not_built: {
    status: 503,
    title: 'Console not built',
    detail: 'The console has not been built: run `npm run build -w @charta/console` (npm ci runs it) and restart',
  },
  upgrade_required: { status: 426, title: 'Upgrade required', detail: 'This endpoint is a WebSocket: connect with Upgrade: websocket' },
  // Auth
  unauthorized: { status: 401, title: 'Unauthorized', detail: 'Missing or invalid credentials' },
  forbidden: { status: 403, title: 'Forbidden', detail: 'These credentials may not do this' },
  invalid_client: { status: 401, title: 'Invalid client', detail: 'Unknown client or wrong secret' },
  unsupported_grant_type: { status: 400, title: 'Unsupported grant type', detail: 'Only grant_type=client_credentials is supported' },
  invalid_scope: { status: 400, title: 'Invalid scope', detail: 'A requested scope is not granted to this client' },
  invalid_request: { status: 400, title: 'Invalid token request', detail: 'client_id and client_secret are required' },
  // Safe retries
  precondition_failed: { status: 412, title: 'Precondition failed', detail: 'The resource has changed since the ETag in If-Match' },
  idempotency_key_reused: { status: 422, title: 'Idempotency key reused', detail: 'This Idempotency-Key was used with a different request' },
  // The database (storage's own errors, mapped in http/storage-errors.ts)
  database_unavailable: { status: 503, title: 'Database unavailable', detail: 'The database cannot be reached; retry after the time in Retry-After' },
  write_outcome_unknown: {
    status: 503,
    title: 'Write outcome unknown',
    detail: 'The connection to the database broke while the write was being committed; retry with the same Idempotency-Key',
  },
  storage_full: { status: 507, title: 'Storage full', detail: 'The database has no room left; nothing was written' },
  database_read_only: { status: 503, title: 'Database read-only', detail: 'The database refuses writes; nothing was written' },
  database_busy: { status: 503, title: 'Database busy', detail: 'The database was locked by another writer for too long; nothing was written' },
  // Anything else
  too_many_requests: { status: 429, title: 'Too many requests', detail: 'Slow down' },
  internal_error: { status: 500, title: 'Internal error', detail: 'Something went wrong on our side; it has been logged' },
} as const satisfies Record<string, Entry>;

export type ProblemCode = keyof typeof catalog;

export class Problem extends Error {
  readonly code: ProblemCode;
  readonly status: number;
  readonly title: string;
  readonly detail: string;
  readonly errors?: FieldProblem[];
  readonly extra?: Record<string, unknown>;
  readonly headers?: Record<string, string>;

  constructor(
    code: ProblemCode,
    options: { detail?: string; errors?: FieldProblem[]; extra?: Record<string, unknown>; headers?: Record<string, string> } = {},
  ) {
    const entry: Entry = catalog[code];
    super(options.detail ?? entry.detail);
    this.code = code;
    this.status = entry.status;
    this.title = entry.title;
    this.detail = options.detail ?? entry.detail;
    this.errors = options.errors;
    this.extra = options.extra;
    this.headers = options.headers;
  }

  /**
   * The same problem answered with another status: only where a route's contract says so
   * (plugin_exists is 409 under /plugin-io/plugins/, docs/errors.md).
   */
  withStatus(status: number): Problem {
    const copy = new Problem(this.code, { detail: this.detail, errors: this.errors, extra: this.extra, headers: this.headers });
    (copy as { status: number }).status = status;
    return copy;
  }

  body(): Record<string, unknown> {
    return {
      type: `urn:charta:problem:${this.code}`,
      title: this.title,
      status: this.status,
      detail: this.detail,
      code: this.code,
      ...(this.errors ? { errors: this.errors } : {}),
      ...this.extra,
    };
  }
}

export function problem(code: ProblemCode, options?: ConstructorParameters<typeof Problem>[1]): Problem {
  return new Problem(code, options);
}

/** At most this many field problems are reported (a hostile body can produce thousands). */
export const MAX_FIELD_PROBLEMS = 50;

/** 400 for invalid input: one entry per offending field (duplicates dropped, capped); `detail` names them. */
export function invalid(errors: FieldProblem[]): Problem {
  const seen = new Set<string>();
  const unique = errors.filter((e) => {
    const key = `${e.field}\u0000${e.message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
  const shown = unique.slice(0, MAX_FIELD_PROBLEMS);
  const more = unique.length - shown.length;
  const detail = shown.map((e) => `${e.field}: ${e.message}`).join('; ') + (more > 0 ? `; and ${more} more` : '');
  return new Problem('validation_failed', { detail, errors: shown });
}
