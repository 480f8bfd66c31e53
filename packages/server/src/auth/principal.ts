// Who is calling: resolved from the Authorization header once per request.
export interface Principal {
  /** `token` (OAuth bearer token of a client) or `api_key`. */
  kind: 'token' | 'api_key';
  /** The staff user the credential acts for; what originated_by / edited_by record. */
  staffKey: string | null;
  /** Which credential, for the audit trail: `client:<id>` or `api_key:<id>` (never the secret). */
  credential: string;
  scopes: string[];
}

export const PLUGIN_SCOPE = 'system/Plugins.*';
