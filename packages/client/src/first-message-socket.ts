// One WebSocket stream of the instance followed over lost connections (docs/api.md, "Log stream"
// and "Change stream"): each connection authenticates in its first message (a browser's WebSocket
// cannot set headers) and is live once the server answers `{"type":"ready"}`; a lost connection is
// opened again after a back-off, and a refusal of the credentials (REFUSED_CLOSE_CODES) is not
// retried. The log stream and the change stream differ only in what they do with the messages.

/** What the stream needs of a WebSocket: the browser's interface, which `ws` also offers. */
export interface WebSocketLike {
  onopen: ((event: unknown) => void) | null;
  onmessage: ((event: { data: unknown }) => void) | null;
  onclose: ((event: { code: number; reason: string }) => void) | null;
  onerror: ((event: unknown) => void) | null;
  send(data: string): void;
  close(code?: number, reason?: string): void;
}

export type WebSocketFactory = (url: string) => WebSocketLike;

/** Where a WebSocket of this client goes: ws(s) on its base URL, or on the page's host when the base URL is relative. */
export function webSocketOrigin(baseUrl: string): string {
  if (baseUrl !== '') return baseUrl.replace(/^http/i, 'ws');
  return `${globalThis.location?.protocol === 'https:' ? 'wss' : 'ws'}://${globalThis.location?.host ?? 'localhost'}`;
}

/** Close codes that retrying would not change. */
export const REFUSED_CLOSE_CODES: ReadonlySet<number> = new Set([4400, 4401, 4403, 4413]);

const READY = '{"type":"ready"}';

export interface FirstMessageSocketOptions {
  /** The URL of each connection (the log stream's asks for what it missed). */
  url(): string;
  /** The bare API key or token of the first message; undefined: no connection. */
  token(): string | undefined | Promise<string | undefined>;
  webSocket?: WebSocketFactory;
  /** Reconnect after a lost connection (default true). */
  reconnect?: boolean;
  /** The wait before the `attempt`-th reconnection (from 1), ms. */
  delay(attempt: number): number;
  /** A connection is being opened (`attempt` reconnections failed before it). */
  onConnecting?(attempt: number): void;
  /** The server answered ready: live (again, after lost connections when `afterLoss`). */
  onReady(afterLoss: boolean): void;
  /** A message of the live stream (text only). */
  onMessage(data: string): void;
  /** The credentials were refused: the stream stops. */
  onRefused(code: number, reason: string): void;
  /** Closed, and not reconnecting (`reconnect: false`). */
  onClosed?(code: number, reason: string): void;
  /** Closed; the next connection is opened at `retryAt`. */
  onWaiting?(attempt: number, retryAt: number, code: number, reason: string): void;
}

export interface FirstMessageSocket {
  /** Connects at once if it is waiting to retry. */
  retryNow(): void;
  /** Closes with 1000 and `reason`; nothing is reopened. */
  close(reason: string): void;
}

export function followFirstMessageSocket(options: FirstMessageSocketOptions): FirstMessageSocket {
  const factory: WebSocketFactory = options.webSocket ?? ((url) => new globalThis.WebSocket(url) as unknown as WebSocketLike);
  let ws: WebSocketLike | undefined;
  let stopped = false;
  /** Connections lost in a row since the stream was last live. */
  let attempt = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;

  const connect = async () => {
    timer = undefined;
    if (stopped) return;
    const secret = await options.token();
    if (stopped || secret === undefined) return;
    options.onConnecting?.(attempt);
    const socket = factory(options.url());
    ws = socket;
    let ready = false;
    socket.onopen = () => socket.send(JSON.stringify({ type: 'auth', token: secret }));
    socket.onerror = () => {};
    socket.onmessage = (m) => {
      if (typeof m.data !== 'string') return;
      if (!ready) {
        if (m.data !== READY) return;
        ready = true;
        const afterLoss = attempt > 0;
        attempt = 0;
        options.onReady(afterLoss);
        return;
      }
      options.onMessage(m.data);
    };
    socket.onclose = (e) => {
      if (ws !== socket) return;
      ws = undefined;
      if (stopped) return;
      if (REFUSED_CLOSE_CODES.has(e.code)) {
        stopped = true;
        options.onRefused(e.code, e.reason);
        return;
      }
      if (options.reconnect === false) {
        stopped = true;
        options.onClosed?.(e.code, e.reason);
        return;
      }
      attempt++;
      const delay = options.delay(attempt);
      options.onWaiting?.(attempt, Date.now() + delay, e.code, e.reason);
      timer = setTimeout(() => void connect(), delay);
    };
  };
  void connect();

  return {
    retryNow: () => {
      if (timer === undefined) return;
      clearTimeout(timer);
      void connect();
    },
    close: (reason) => {
      stopped = true;
      if (timer !== undefined) clearTimeout(timer);
      ws?.close(1000, reason);
      ws = undefined;
    },
  };
}
