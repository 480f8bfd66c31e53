// The console's adapter to @charta/client, the one HTTP client (docs/architecture.md): every call
// goes through a ChartaClient on the page's own origin with the signed-in credentials
// (session.ts), sent as `Bearer <key or token>`, never with cookies or the HTTP cache. A refusal
// becomes an ApiError carrying the server's problem document (docs/errors.md), so pages show the
// server's own message and reasons. A 401 to the signed-in credentials signs the console out
// (docs/console.md, "An expired or revoked credential").
import { ChartaApiError, ChartaClient, ChartaNetworkError } from '@charta/client';
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
  /** Send no credentials (the token endpoint). */
  anonymous?: boolean;
  /** Send these credentials rather than the signed-in ones (checking an API key before signing in with it). */
  as?: Credentials;
}

const requestInit: RequestInit = { credentials: 'omit', cache: 'no-store' };
const clients = new WeakMap<Credentials, ChartaClient>();
const anonymousClient = new ChartaClient({ baseUrl: '', requestInit });

/** The client acting for `who` (one per credentials, kept while they are); without credentials, the anonymous one. */
export function clientOf(who: Credentials | undefined): ChartaClient {
  if (who === undefined) return anonymousClient;
  let client = clients.get(who);
  if (client === undefined) {
    client = new ChartaClient({ baseUrl: '', apiKey: authorizationOf(who), requestInit });
    clients.set(who, client);
  }
  return client;
}

/** Makes one call of the client with the signed-in credentials; answers its result, throws ApiError on a refusal. */
export async function api<T>(call: (charta: ChartaClient) => Promise<T>, options: CallOptions = {}): Promise<T> {
  const used = options.anonymous ? undefined : (options.as ?? signedIn());
  try {
    return await call(clientOf(used));
  } catch (err) {
    if (err instanceof ChartaApiError) {
      if (err.status === 401 && used !== undefined) refused(used);
      throw problemOf(err.status, err.body);
    }
    if (err instanceof ChartaNetworkError) {
      const cause = err.cause instanceof Error ? err.cause.message : String(err.cause);
      throw new ApiError(0, undefined, `The instance could not be reached (${cause})`, []);
    }
    throw err;
  }
}

/** api() for a result the console reads as its own type (the wire's, as the page renders it). */
export const apiAs = <T>(call: (charta: ChartaClient) => Promise<unknown>, options: CallOptions = {}): Promise<T> => api(call, options) as Promise<T>;

function problemOf(status: number, text: string): ApiError {
  try {
    const p = JSON.parse(text) as { code?: string; detail?: string; title?: string; errors?: FieldProblem[] };
    const errors = Array.isArray(p.errors) ? p.errors.filter((e) => typeof e?.message === 'string') : [];
    return new ApiError(status, p.code, withHint(status, p.code, p.detail ?? p.title ?? `HTTP ${status}`), errors);
  } catch {
    return new ApiError(status, undefined, `HTTP ${status}: ${text.slice(0, 200)}`, []);
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
