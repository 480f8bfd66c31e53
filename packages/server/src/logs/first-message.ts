// The log stream authenticated in its first message (docs/api.md, "Log stream"), for clients that
// cannot set a WebSocket's Authorization header (a browser). The upgrade is accepted without it;
// the client must then send, within AUTH_TIMEOUT_MS, one text message
// `{"type":"auth","token":"<API key or bearer token>"}` of at most MAX_AUTH_MESSAGE_BYTES. Until it
// is verified nothing is streamed. Then the server sends `{"type":"ready"}` and the stream follows;
// otherwise the socket is closed with one of CLOSE's codes. Neither the token nor anything of the
// message is ever echoed or logged.
import type { RawData, WebSocket } from 'ws';
import { PLUGIN_SCOPE, type Principal } from '../auth/principal.ts';
import { Problem } from '../http/problem.ts';

export const AUTH_TIMEOUT_MS = 5000;
export const MAX_AUTH_MESSAGE_BYTES = 1024;
/** Sockets waiting for their first message at once, per process; more are closed at once (1013). */
export const MAX_PENDING_AUTH = 100;
/** The longest token accepted (the Authorization header's own limit, auth/authenticate.ts). */
const MAX_TOKEN_CHARS = 512;

/** What the server sends once the first message is verified; log entries never have a `type` member. */
export const READY_MESSAGE = '{"type":"ready"}';

/** Close codes and reasons (each reason well under the 123 bytes a close frame allows). */
export const CLOSE = {
  malformed: { code: 4400, reason: 'The first message must be {"type":"auth","token":"<API key or bearer token>"}' },
  unauthorized: { code: 4401, reason: 'The credentials are not valid or have expired' },
  forbidden: { code: 4403, reason: `The log stream needs the scope ${PLUGIN_SCOPE}` },
  timeout: { code: 4408, reason: `No authentication message within ${AUTH_TIMEOUT_MS / 1000} seconds` },
  tooLarge: { code: 4413, reason: `The first message is over ${MAX_AUTH_MESSAGE_BYTES} bytes` },
  busy: { code: 1013, reason: 'Too many connections waiting to authenticate: try again later' },
  unavailable: { code: 1011, reason: 'The credentials could not be checked: try again later' },
} as const;

type Closing = { code: number; reason: string };

export interface GateOptions {
  timeoutMs?: number;
  maxPending?: number;
  /** The scope the credentials need (the log stream's: system/Plugins.*), and the stream's name in the 4403 reason. */
  scope?: string;
  stream?: string;
}

const OPEN = 1;

function byteLength(data: RawData): number {
  if (Array.isArray(data)) return data.reduce((n, b) => n + b.length, 0);
  return data.byteLength;
}

/** The token of a well-formed first message, or undefined. */
export function tokenOf(text: string): string | undefined {
  let message: unknown;
  try {
    message = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof message !== 'object' || message === null || Array.isArray(message)) return undefined;
  const m = message as Record<string, unknown>;
  if (Object.keys(m).length !== 2 || m.type !== 'auth') return undefined;
  const token = m.token;
  if (typeof token !== 'string' || token.length === 0 || token.length > MAX_TOKEN_CHARS) return undefined;
  return token;
}

/** Admits sockets that authenticate in their first message; one per log stream route. */
export class FirstMessageGate {
  private pendingCount = 0;
  private readonly timeoutMs: number;
  private readonly maxPending: number;
  private readonly scope: string;
  private readonly forbidden: Closing;

  constructor(
    private readonly verify: (token: string) => Promise<Principal>,
    options: GateOptions = {},
  ) {
    this.timeoutMs = options.timeoutMs ?? AUTH_TIMEOUT_MS;
    this.maxPending = options.maxPending ?? MAX_PENDING_AUTH;
    this.scope = options.scope ?? PLUGIN_SCOPE;
    this.forbidden =
      options.scope === undefined ? CLOSE.forbidden : { code: 4403, reason: `The ${options.stream ?? 'stream'} needs the scope ${options.scope}` };
  }

  /** Sockets waiting for (or verifying) their first message. */
  get pending(): number {
    return this.pendingCount;
  }

  /** Waits for the socket's first message; calls `admitted` once it is verified (and the socket still open), after sending READY_MESSAGE. */
  admit(socket: WebSocket, admitted: (principal: Principal) => void): void {
    if (this.pendingCount >= this.maxPending) return close(socket, CLOSE.busy);
    this.pendingCount++;
    let settled = false;
    const settle = () => {
      if (settled) return false;
      settled = true;
      this.pendingCount--;
      clearTimeout(timer);
      socket.off('message', onMessage);
      return true;
    };
    const refuse = (closing: Closing) => {
      if (settle()) close(socket, closing);
    };
    const timer = setTimeout(() => refuse(CLOSE.timeout), this.timeoutMs);
    const onMessage = (data: RawData, isBinary: boolean) => {
      // Only the first message counts; later ones (before or after the verdict) are ignored.
      socket.off('message', onMessage);
      if (byteLength(data) > MAX_AUTH_MESSAGE_BYTES) return refuse(CLOSE.tooLarge);
      const token = isBinary ? undefined : tokenOf(data.toString());
      if (token === undefined) return refuse(CLOSE.malformed);
      this.verify(token).then(
        (principal) => {
          if (!principal.scopes.includes(this.scope)) return refuse(this.forbidden);
          if (!settle() || socket.readyState !== OPEN) return;
          socket.send(READY_MESSAGE);
          admitted(principal);
        },
        (err: unknown) => refuse(err instanceof Problem && err.status === 401 ? CLOSE.unauthorized : CLOSE.unavailable),
      );
    };
    socket.on('message', onMessage);
    socket.once('close', () => settle());
  }
}

function close(socket: WebSocket, { code, reason }: Closing): void {
  if (socket.readyState === OPEN) socket.close(code, reason);
}
