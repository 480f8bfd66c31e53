// Who is calling: resolved from the Authorization header once per request.
export interface Principal {
  /** `token` (OAuth bearer token of a client) or `api_key`. */
  kind: 'token' | 'api_key';
  /** The staff user the credential acts for; what originated_by / edited_by record. */
  staffKey: string | null;
  /** Which credential, for the audit trail: `client:<id>` or `api_key:<id>` (never the secret). */
  credential: string;
  scopes: string[];
  /**
   * When the credential stops being valid (ms since the epoch: a token's expiry, capped at its
   * client's; an API key's), if it ever does. A stream opened with it is closed then (auth/revocation.ts).
   */
  expiresMs?: number;
}

export const PLUGIN_SCOPE = 'system/Plugins.*';
