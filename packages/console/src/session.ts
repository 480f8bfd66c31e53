// Who the page acts for (docs/console.md, "Where credentials live"): held in this module's memory
// only, never in localStorage, sessionStorage, a cookie or the URL. Closing or reloading the tab
// forgets it; signing out forgets it at once, and so does the instance refusing it (an expired
// token, a deleted key): the frame then shows the sign-in form with a notice
// (docs/console.md, "An expired or revoked credential").

export type Credentials =
  /** An API key: the plugin and admin pages. */
  | { kind: 'api-key'; key: string }
  /** A bearer token from the OAuth client credentials exchange: the clinical pages (and the plugin pages, with its system/Plugins.* scope). */
  | { kind: 'oauth'; token: string; clientId: string; scope: string };

let current: Credentials | undefined;
let onRefused: (() => void) | undefined;

export function signedIn(): Credentials | undefined {
  return current;
}

export function remember(credentials: Credentials): void {
  current = credentials;
}

export function forget(): void {
  current = undefined;
}

/** The bare secret of credentials: an API key or a token. */
export function secretOf(credentials: Credentials): string {
  return credentials.kind === 'api-key' ? credentials.key : credentials.token;
}

/** The Authorization header value of credentials. */
export function authorizationOf(credentials: Credentials): string {
  return `Bearer ${secretOf(credentials)}`;
}

/** Who is told when the instance refuses the signed-in credentials (the frame: back to the sign-in form). */
export function whenRefused(listener: (() => void) | undefined): void {
  onRefused = listener;
}

/**
 * The instance refused `used` (a 401, or the log stream's 4401): forgets them if they are still
 * the signed-in credentials, and tells the listener. A refusal of credentials already forgotten
 * (another request of the same moment, or before signing in again) changes nothing.
 */
export function refused(used: Credentials): void {
  if (current !== used) return;
  current = undefined;
  onRefused?.();
}
