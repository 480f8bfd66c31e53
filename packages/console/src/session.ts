// Who the page acts for (docs/console.md, "Where credentials live"): held in this module's memory
// only, never in localStorage, sessionStorage, a cookie or the URL. Closing or reloading the tab
// forgets it; signing out forgets it at once.

export type Credentials =
  /** An API key: the plugin and admin pages. */
  | { kind: 'api-key'; key: string }
  /** A bearer token from the OAuth client credentials exchange: the clinical pages (and the plugin pages, with its system/Plugins.* scope). */
  | { kind: 'oauth'; token: string; clientId: string; scope: string };

let current: Credentials | undefined;

export function signedIn(): Credentials | undefined {
  return current;
}

export function remember(credentials: Credentials): void {
  current = credentials;
}

export function forget(): void {
  current = undefined;
}

/** The Authorization header value of the signed-in credentials. */
export function authorization(): string | undefined {
  if (current === undefined) return undefined;
  return `Bearer ${current.kind === 'api-key' ? current.key : current.token}`;
}
