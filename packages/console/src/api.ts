// The one place the console speaks HTTP to its instance: the existing authenticated API, with the
// signed-in credentials (session.ts). A refusal becomes an ApiError carrying the server's problem
// document (docs/errors.md), so pages show the server's own message and reasons. A 401 to the
// signed-in credentials signs the console out (docs/console.md, "An expired or revoked credential").
import { authorizationOf, refused, signedIn, type Credentials } from './session.ts';

export interface FieldProblem {
  field: string;
  message: string;
  /** The plugin whose validation refused the change (docs/errors.md, plugin_validation_failed). */
  plugin?: string;
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string | undefined,
    message: string,
    readonly errors: FieldProblem[],
  ) {
    super(message);
  }
}

export interface CallOptions {
  /** Sent as JSON. */
  json?: unknown;
  /** Sent as is (FormData: multipart; URLSearchParams: form-encoded). */
  body?: FormData | URLSearchParams;
  /** Send no credentials (the token endpoint). */
  anonymous?: boolean;
  /** Send these credentials rather than the signed-in ones (checking an API key before signing in with it). */
  as?: Credentials;
  /** More request headers (If-Match). */
  headers?: Record<string, string>;
}

/** Calls the API; answers the response when it is a success, throws ApiError otherwise. */
export async function call(method: string, path: string, options: CallOptions = {}): Promise<Response> {
  const headers: Record<string, string> = { ...options.headers, accept: 'application/json' };
  const used = options.anonymous ? undefined : (options.as ?? signedIn());
  if (used !== undefined) headers.authorization = authorizationOf(used);
  let body: BodyInit | undefined = options.body;
  if (options.json !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(options.json);
  }
  let res: Response;
  try {
    res = await fetch(path, { method, headers, body, credentials: 'omit', cache: 'no-store' });
  } catch (err) {
    throw new ApiError(0, undefined, `The instance could not be reached (${err instanceof Error ? err.message : String(err)})`, []);
  }
  if (res.ok) return res;
  const problem = await problemOf(res);
  if (res.status === 401 && used !== undefined) refused(used);
  throw problem;
}

/** Calls the API and answers its JSON body. */
export async function callJson<T>(method: string, path: string, options: CallOptions = {}): Promise<T> {
  const res = await call(method, path, options);
  return (await res.json()) as T;
}

async function problemOf(res: Response): Promise<ApiError> {
  const text = await res.text();
  try {
    const p = JSON.parse(text) as { code?: string; detail?: string; title?: string; errors?: FieldProblem[] };
    const errors = Array.isArray(p.errors) ? p.errors.filter((e) => typeof e?.message === 'string') : [];
    return new ApiError(res.status, p.code, withHint(res.status, p.code, p.detail ?? p.title ?? `HTTP ${res.status}`), errors);
  } catch {
    return new ApiError(res.status, undefined, `HTTP ${res.status}: ${text.slice(0, 200)}`, []);
  }
}

/**
 * An API key refused on the clinical endpoints (403 forbidden: they take an OAuth token) gets the
 * server's message and which credentials to sign in with instead (docs/console.md, "Patients and notes").
 */
export const OAUTH_HINT = 'Sign out and sign in with the OAuth client credentials (client id and secret) to use the patients, notes and commands pages.';

function withHint(status: number, code: string | undefined, message: string): string {
  return status === 403 && code === 'forbidden' && signedIn()?.kind === 'api-key' ? `${message.replace(/\.?$/, '.')} ${OAUTH_HINT}` : message;
}

/** The message to show for any failure. */
export function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
