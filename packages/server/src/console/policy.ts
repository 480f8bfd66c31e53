// The Content-Security-Policy of the console's pages (docs/console.md, "Content-Security-Policy"):
// scripts and styles only from the instance's own files (no 'unsafe-inline', no eval), API calls
// and the log stream's WebSocket only to the instance, and never framed.

/** A Host header fit to be written into the policy (a name or address and an optional port), else undefined. */
function safeHost(host: string | undefined): string | undefined {
  return host !== undefined && /^[A-Za-z0-9.-]{1,253}(:\d{1,5})?$|^\[[0-9A-Fa-f:.]{2,45}\](:\d{1,5})?$/.test(host) ? host : undefined;
}

export function contentSecurityPolicy(host: string | undefined): string {
  const h = safeHost(host);
  // 'self' covers ws:/wss: of the same host in CSP Level 3; older browsers need them named.
  const connect = h === undefined ? "'self'" : `'self' ws://${h} wss://${h}`;
  return [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    "font-src 'self'",
    `connect-src ${connect}`,
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
}
