// The output envelope (docs/cli.md, "Output and exit codes"): one JSON line per result,
// {"success": bool, "message"?: object|string, "status_code"?: int, ...extra keys},
// and the exit codes that go with it. Expected failures are thrown as CliError subclasses
// and turned into a line by the program; they never print a stack trace.

/** 0 success, 1 the operation failed (instance, network, or local state), 2 usage error. */
export const EXIT = { ok: 0, failure: 1, usage: 2 } as const;
export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

export interface Envelope {
  success: boolean;
  message?: unknown;
  status_code?: number;
  [key: string]: unknown;
}

export interface LineWriter {
  write(chunk: string): unknown;
}

/**
 * Builds an envelope like the original's `print.json`: a string holding a JSON object or array
 * becomes that value, other strings stay strings, an empty message is left out; extra keys are
 * merged at the top level (they cannot replace `success`).
 */
export function envelope(success: boolean, message?: unknown, extra: Record<string, unknown> = {}): Envelope {
  const out: Envelope = { success };
  const value = typeof message === 'string' ? parseJsonish(message) : message;
  if (value !== undefined && value !== null && value !== '') out.message = value;
  for (const [key, v] of Object.entries(extra)) {
    if (key !== 'success' && v !== undefined) out[key] = v;
  }
  return out;
}

/** An HTTP result as an envelope: the body (JSON if it parses, else text) and its status. */
export function responseEnvelope(success: boolean, status: number, body: string, extra: Record<string, unknown> = {}): Envelope {
  let message: unknown = body;
  try {
    message = body.trim() === '' ? undefined : JSON.parse(body);
  } catch {
    // not JSON: keep the text
  }
  const out = envelope(success, undefined, extra);
  if (message !== undefined && message !== '') out.message = message;
  out.status_code = status;
  return out;
}

export function printLine(stream: LineWriter, value: Envelope): void {
  stream.write(`${JSON.stringify(value)}\n`);
}

function parseJsonish(text: string): unknown {
  const trimmed = text.trim();
  if (!(trimmed.startsWith('{') || trimmed.startsWith('['))) return text;
  try {
    return JSON.parse(trimmed);
  } catch {
    return text;
  }
}

/** An expected failure: printed as a `success: false` line, never with a stack trace. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: ExitCode,
    readonly extra: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = new.target.name;
  }

  toEnvelope(): Envelope {
    return envelope(false, this.message, this.extra);
  }
}

/** Bad arguments, a missing value that could not be prompted for, an invalid host: exit 2. */
export class UsageError extends CliError {
  constructor(message: string, extra: Record<string, unknown> = {}) {
    super(message, EXIT.usage, extra);
  }
}

/** The operation did not happen (not found, declined, instance or network failure): exit 1. */
export class Failure extends CliError {
  constructor(message: string, extra: Record<string, unknown> = {}) {
    super(message, EXIT.failure, extra);
  }
}
