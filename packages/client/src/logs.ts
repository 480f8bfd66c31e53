// The instance's log (docs/api.md, "Log stream"): the recent entries over HTTP, and the live
// stream over a WebSocket, authenticated in the first message (a browser's WebSocket cannot set
// headers) and reconnected with back-off after a lost connection, asking for the entries since
// the last one received and skipping those it already has. A refusal of the credentials (4400,
// 4401, 4403, 4413) is not retried: retrying would not change it.
//
// The socket comes from a factory (the transport seam): the global WebSocket by default (a
// browser; Node 22), `ws` in Node 20 (`webSocket: (url) => new WebSocket(url)` with
// `import WebSocket from 'ws'`), so what the browser bundles never pulls `ws`.
import type { LogEntry, LogLevel } from '@charta/api';
import { paths } from './paths.ts';
import type { Transport } from './transport.ts';
import { followFirstMessageSocket, webSocketOrigin, type WebSocketFactory } from './first-message-socket.ts';

export { REFUSED_CLOSE_CODES, webSocketOrigin, type WebSocketFactory, type WebSocketLike } from './first-message-socket.ts';

export interface LogFilter {
  /** Only entries of this plugin. */
  plugin?: string;
  /** Minimum level. */
  level?: LogLevel;
  /** A duration back from now (30s, 5m, 1h, 2d) or an ISO 8601 timestamp with zone. */
  since?: string;
}

export interface RecentLogOptions extends LogFilter {
  /** 1–1000, default 100. */
  limit?: number;
}

export type StreamStatus =
  | { state: 'connecting'; attempt: number }
  | { state: 'live'; reconnections: number }
  | { state: 'waiting'; attempt: number; retryAt: number; code: number; reason: string }
  | { state: 'refused'; code: number; reason: string }
  | { state: 'closed'; code: number; reason: string };

export interface LogStreamOptions extends LogFilter {
  onEntry(entry: LogEntry, raw: string): void;
  onStatus?(status: StreamStatus): void;
  /** The refused close codes (4400, 4401, 4403, 4413): the stream stops. */
  onRefused?(code: number, reason: string): void;
  /** The bare API key or token of the first message (default: the client's credentials, without `Bearer `). */
  token?: () => string | undefined | Promise<string | undefined>;
  /** Default: the global WebSocket. */
  webSocket?: WebSocketFactory;
  /** Reconnect after a lost connection (default true); false: a close ends the stream ('closed'). */
  reconnect?: boolean;
  /** Back-off: the first delay (default 1 s), doubled up to the maximum (default 15 s), ±20 %. */
  firstDelayMs?: number;
  maxDelayMs?: number;
}

export interface LogStream {
  /** Connects at once if it is waiting to retry. */
  retryNow(): void;
  /** Closes with 1000 and `reason` (default 'closed'). */
  close(reason?: string): void;
}

export class LogsApi {
  constructor(private readonly transport: Transport) {}

  /** GET /core/api/v1/logging/recent/: the most recent entries, oldest first. */
  async recent(options: RecentLogOptions = {}): Promise<LogEntry[]> {
    const query = { plugin: options.plugin, level: options.level, since: options.since, limit: options.limit };
    return (await this.transport.send<{ results: LogEntry[] }>('GET', paths.logRecent(), { query })).data.results;
  }

  /** The stream URL: ws(s) on the client's base URL, or on the page's host when the base URL is relative. */
  streamUrl(filter: LogFilter = {}): string {
    const origin = webSocketOrigin(this.transport.baseUrl);
    const params = new URLSearchParams();
    for (const name of ['plugin', 'level', 'since'] as const) if (filter[name] !== undefined) params.set(name, filter[name]);
    const query = params.toString();
    return `${origin}${paths.logStream()}${query === '' ? '' : `?${query}`}`;
  }

  /** Follows the stream until `close()` (or a refusal). */
  stream(options: LogStreamOptions): LogStream {
    const firstDelay = options.firstDelayMs ?? 1000;
    const maxDelay = options.maxDelayMs ?? 15_000;
    const status = (s: StreamStatus) => options.onStatus?.(s);
    let reconnections = 0;
    // Catching up after a reconnection: the last timestamp received and the entries received at it.
    let lastTimestamp: string | undefined;
    let atLast = new Set<string>();
    let catchingUp = false;
    const socket = followFirstMessageSocket({
      url: () => this.streamUrl({ plugin: options.plugin, level: options.level, since: lastTimestamp ?? options.since }),
      token: options.token ?? (async () => (await this.transport.authorization())?.replace(/^Bearer /, '')),
      webSocket: options.webSocket,
      reconnect: options.reconnect,
      delay: (attempt) => Math.min(maxDelay, firstDelay * 2 ** (attempt - 1)) * (0.8 + Math.random() * 0.4),
      onConnecting: (attempt) => status({ state: 'connecting', attempt }),
      onReady: (afterLoss) => {
        if (afterLoss) reconnections++;
        catchingUp = lastTimestamp !== undefined;
        status({ state: 'live', reconnections });
      },
      onMessage: (data) => {
        let entry: LogEntry;
        try {
          entry = JSON.parse(data) as LogEntry;
        } catch {
          return;
        }
        const ts = typeof entry?.timestamp === 'string' ? entry.timestamp : '';
        if (catchingUp && lastTimestamp !== undefined) {
          // The replay starts at the last timestamp seen: skip what was already given.
          if (ts < lastTimestamp || (ts === lastTimestamp && atLast.has(data))) return;
          catchingUp = false;
        }
        // The latest timestamp (entries relayed from other processes may arrive a little out of order).
        if (lastTimestamp === undefined || ts > lastTimestamp) {
          lastTimestamp = ts;
          atLast = new Set();
        }
        if (ts === lastTimestamp && atLast.size < 100) atLast.add(data);
        options.onEntry(entry, data);
      },
      onRefused: (code, reason) => {
        status({ state: 'refused', code, reason });
        options.onRefused?.(code, reason);
      },
      onClosed: (code, reason) => status({ state: 'closed', code, reason }),
      onWaiting: (attempt, retryAt, code, reason) => status({ state: 'waiting', attempt, retryAt, code, reason }),
    });
    return { retryNow: () => socket.retryNow(), close: (reason = 'closed') => socket.close(reason) };
  }
}
