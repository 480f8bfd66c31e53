// The two failures a call can end in: the instance answered with a non-2xx status
// (ChartaApiError, carrying the RFC 9457 problem body), or no usable answer arrived at all
// (ChartaNetworkError: connection refused, reset, DNS, aborted, unreadable or non-JSON body).

/** An RFC 9457 problem body as the instance sends it (docs/errors.md lists the codes). */
export interface ProblemDetails {
  type: string;
  title: string;
  status: number;
  detail: string;
  /** Stable snake_case identifier from the instance's error catalog. */
  code: string;
  /** Per-field reasons on validation failures. */
  errors?: Array<{ field: string; message: string }>;
  [extra: string]: unknown;
}

export class ChartaError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = new.target.name;
  }
}

export class ChartaApiError extends ChartaError {
  readonly status: number;
  readonly problem: ProblemDetails;
  readonly type: string;
  readonly title: string;
  readonly detail: string;
  readonly code: string;
  readonly errors: Array<{ field: string; message: string }> | undefined;
  /** The answer's headers (x-request-id, www-authenticate, …). */
  readonly headers: Headers;
  /** The answer's body as it came ('' when empty). */
  readonly body: string;

  constructor(status: number, problem: ProblemDetails, headers: Headers, body = '') {
    super(`${status} ${problem.code}: ${problem.detail}`);
    this.status = status;
    this.problem = problem;
    this.type = problem.type;
    this.title = problem.title;
    this.detail = problem.detail;
    this.code = problem.code;
    this.errors = problem.errors;
    this.headers = headers;
    this.body = body;
  }

  /** The instance's request id, to quote when reporting a problem. */
  get requestId(): string | null {
    return this.headers.get('x-request-id');
  }
}

export class ChartaNetworkError extends ChartaError {
  readonly method: string;
  readonly url: string;

  constructor(method: string, url: string, cause: unknown, what = 'request failed') {
    const reason = cause instanceof Error ? cause.message : String(cause);
    super(`${method} ${url}: ${what}: ${reason}`, { cause });
    this.method = method;
    this.url = url;
  }
}

/** A problem body from whatever a non-2xx answer carried (a proxy may send HTML or nothing). */
export function toProblem(status: number, statusText: string, data: unknown, text: string): ProblemDetails {
  if (isRecord(data) && typeof data.code === 'string') {
    const problem: ProblemDetails = {
      ...data,
      type: typeof data.type === 'string' ? data.type : 'about:blank',
      title: typeof data.title === 'string' ? data.title : statusText,
      status: typeof data.status === 'number' ? data.status : status,
      detail: typeof data.detail === 'string' ? data.detail : statusText,
      code: data.code,
    };
    if (!Array.isArray(data.errors)) delete problem.errors;
    return problem;
  }
  const snippet = text.replace(/\s+/g, ' ').trim().slice(0, 200);
  return { type: 'about:blank', title: statusText || `HTTP ${status}`, status, detail: snippet || statusText || `HTTP ${status}`, code: `http_${status}` };
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
