// One HTTP exchange with the instance: URL and trailing slash, credentials, body encoding,
// response decoding, and the mapping of failures to ChartaApiError / ChartaNetworkError.
import type { Token } from '@charta/api';
import { ChartaApiError, ChartaNetworkError, toProblem } from './errors.ts';
import { paths, withSlashRule, type Method } from './paths.ts';

export type FetchLike = (input: string, init: RequestInit) => Promise<Response>;

export type QueryValue = string | number | Date | undefined;

export interface SendOptions {
  query?: Record<string, QueryValue>;
  /** Sent as JSON. */
  json?: unknown;
  /** Sent as application/x-www-form-urlencoded. */
  form?: Record<string, string>;
  /** Sent as is: FormData (multipart, the boundary set by fetch) or URLSearchParams (form-encoded). */
  body?: FormData | URLSearchParams;
  /** Read a 2xx answer's body as bytes (`data` is a Uint8Array) rather than as JSON. */
  bytes?: boolean;
  headers?: Record<string, string | null | undefined>;
  /** false: no Authorization header (the token endpoint). */
  authenticate?: boolean;
}

export interface Answer<T> {
  status: number;
  headers: Headers;
  data: T;
  /** The body as text ('' when empty or read as bytes). */
  text: string;
}

/** Supplies the Authorization header; `refresh` forgets a cached token (after a 401). */
export interface Credentials {
  header(transport: Transport): Promise<string | undefined>;
  refresh?(): boolean;
}

/** What the instance answered to one request (the onAnswer hook: logging, a caller wanting the raw body). */
export interface AnswerSeen {
  method: Method;
  url: string;
  status: number;
  headers: Headers;
  /** The body as text ('' when empty or read as bytes). */
  text: string;
}

export const staticCredentials = (header: string | undefined): Credentials => ({ header: async () => header });

/** Seconds before expiry at which a client-credentials token is fetched anew. */
export const TOKEN_REFRESH_MARGIN_SECONDS = 60;

/** OAuth 2.0 client credentials: fetches a token, keeps it, fetches again near expiry. */
export class ClientCredentials implements Credentials {
  private token: string | undefined;
  private expiresAt = 0;
  private pending: Promise<string> | undefined;

  constructor(
    private readonly clientId: string,
    private readonly clientSecret: string,
    private readonly now: () => number = Date.now,
  ) {}

  async header(transport: Transport): Promise<string> {
    if (this.token !== undefined && this.now() < this.expiresAt - TOKEN_REFRESH_MARGIN_SECONDS * 1000) return `Bearer ${this.token}`;
    // Concurrent calls share one token request.
    this.pending ??= this.fetchToken(transport).finally(() => {
      this.pending = undefined;
    });
    return `Bearer ${await this.pending}`;
  }

  refresh(): boolean {
    this.token = undefined;
    this.expiresAt = 0;
    return true;
  }

  private async fetchToken(transport: Transport): Promise<string> {
    const asked = this.now();
    const { data } = await transport.send<Token>('POST', paths.token(), {
      authenticate: false,
      form: { grant_type: 'client_credentials', client_id: this.clientId, client_secret: this.clientSecret },
    });
    this.token = data.access_token;
    this.expiresAt = asked + data.expires_in * 1000;
    return data.access_token;
  }
}

export class Transport {
  readonly baseUrl: string;

  constructor(
    baseUrl: string,
    private readonly fetchImpl: FetchLike,
    private readonly credentials: Credentials,
    /** Added to every fetch (redirect, credentials, cache). */
    private readonly init: RequestInit = {},
    private readonly onAnswer?: (answer: AnswerSeen) => void,
  ) {
    this.baseUrl = baseUrl.replace(/\/+$/, '');
  }

  /** The Authorization header value the credentials give now (the log stream's first message). */
  authorization(): Promise<string | undefined> {
    return this.credentials.header(this);
  }

  async send<T>(method: Method, path: string, options: SendOptions = {}): Promise<Answer<T>> {
    const url = this.baseUrl + withSlashRule(method, path) + queryString(options.query);
    const headers: Record<string, string> = { accept: 'application/json, application/problem+json' };
    for (const [name, value] of Object.entries(options.headers ?? {})) if (value !== undefined && value !== null && value !== '') headers[name] = value;
    let body: BodyInit | undefined = options.body;
    if (options.json !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(options.json);
    } else if (options.form !== undefined) {
      headers['content-type'] = 'application/x-www-form-urlencoded';
      body = new URLSearchParams(options.form).toString();
    }
    const authenticate = options.authenticate !== false;
    for (let attempt = 0; ; attempt++) {
      if (authenticate) {
        const authorization = await this.credentials.header(this);
        if (authorization !== undefined) headers.authorization = authorization;
      }
      const answer = await this.exchange(method, url, headers, body, options.bytes === true);
      this.onAnswer?.({ method, url, status: answer.status, headers: answer.headers, text: answer.text });
      // A 401 means nothing was done: with refreshable credentials, try once more with a new token.
      if (answer.status === 401 && authenticate && attempt === 0 && this.credentials.refresh?.() === true) continue;
      if (answer.status < 200 || answer.status > 299) {
        throw new ChartaApiError(answer.status, toProblem(answer.status, answer.statusText, answer.data, answer.text), answer.headers, answer.text);
      }
      return { status: answer.status, headers: answer.headers, data: answer.data as T, text: answer.text };
    }
  }

  private async exchange(method: Method, url: string, headers: Record<string, string>, body: BodyInit | undefined, bytes: boolean) {
    let response: Response;
    let text = '';
    let data: unknown;
    try {
      response = await this.fetchImpl(url, { ...this.init, method, headers, body });
      if (bytes && response.ok) data = new Uint8Array(await response.arrayBuffer());
      else text = await response.text();
    } catch (cause) {
      throw new ChartaNetworkError(method, url, cause);
    }
    if (text !== '' && /json/i.test(response.headers.get('content-type') ?? '')) {
      try {
        data = JSON.parse(text);
      } catch (cause) {
        // A 2xx answer must be readable; a broken error body still becomes a ChartaApiError.
        if (response.ok) throw new ChartaNetworkError(method, url, cause, 'invalid JSON in response');
      }
    }
    return { status: response.status, statusText: response.statusText, headers: response.headers, text, data };
  }
}

function queryString(query: Record<string, QueryValue> | undefined): string {
  if (query === undefined) return '';
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    if (value === undefined) continue;
    params.set(name, value instanceof Date ? value.toISOString() : String(value));
  }
  const text = params.toString();
  return text === '' ? '' : `?${text}`;
}
