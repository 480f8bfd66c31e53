// The log stream's WebSocket for the live logs page (docs/console.md, "Live logs"): on the page's
// own host (ws: or wss: as the page), authenticated in the first message with the signed-in
// credentials (docs/api.md, "Authenticating in the first message"), never in the URL. A lost
// connection is retried with back-off (1 s, 2 s, 4 s … at most 15 s, ±20 %), asking for the
// entries since the last one received and skipping those it already has. A refusal of the
// credentials (4400, 4401, 4403, 4413) is not retried: retrying would not change it; a 4401 (an
// expired or revoked credential) signs the console out (docs/console.md, "An expired or revoked credential").
import { refused, secretOf, signedIn } from '../session.ts';
import type { LogEntry } from './entry.ts';

const PATH = '/core/api/v1/logging/';
/** The first connection replays the last five minutes the instance keeps (at most 1,000 entries). */
const FIRST_SINCE = '5m';
const FIRST_DELAY_MS = 1000;
const MAX_DELAY_MS = 15_000;
const REFUSED = new Set([4400, 4401, 4403, 4413]);
const UNAUTHORIZED = 4401;

export type StreamStatus =
  | { state: 'connecting'; attempt: number }
  | { state: 'live'; reconnections: number }
  | { state: 'waiting'; attempt: number; retryAt: number; code: number; reason: string }
  | { state: 'refused'; code: number; reason: string };

export interface StreamHandlers {
  onEntry(entry: LogEntry): void;
  onStatus(status: StreamStatus): void;
}

export interface LogStream {
  /** Connects at once if it is waiting to retry. */
  retryNow(): void;
  close(): void;
}

export function openLogStream(handlers: StreamHandlers): LogStream {
  let ws: WebSocket | undefined;
  let stopped = false;
  let attempt = 0;
  let reconnections = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  // Catching up after a reconnection: the last timestamp received and the entries received at it.
  let lastTimestamp: string | undefined;
  let atLast = new Set<string>();
  let catchingUp = false;

  const connect = () => {
    timer = undefined;
    // The first message carries the bare secret, without `Bearer `.
    const who = signedIn();
    if (stopped || who === undefined) return;
    const secret = secretOf(who);
    handlers.onStatus({ state: 'connecting', attempt });
    const since = lastTimestamp ?? FIRST_SINCE;
    const scheme = location.protocol === 'https:' ? 'wss' : 'ws';
    const socket = new WebSocket(`${scheme}://${location.host}${PATH}?since=${encodeURIComponent(since)}`);
    ws = socket;
    let ready = false;
    socket.onopen = () => socket.send(JSON.stringify({ type: 'auth', token: secret }));
    socket.onmessage = (m: MessageEvent) => {
      if (typeof m.data !== 'string') return;
      if (!ready) {
        if (m.data !== '{"type":"ready"}') return;
        ready = true;
        if (attempt > 0) reconnections++;
        attempt = 0;
        catchingUp = lastTimestamp !== undefined;
        handlers.onStatus({ state: 'live', reconnections });
        return;
      }
      let entry: LogEntry;
      try {
        entry = JSON.parse(m.data) as LogEntry;
      } catch {
        return;
      }
      const ts = typeof entry?.timestamp === 'string' ? entry.timestamp : '';
      if (catchingUp && lastTimestamp !== undefined) {
        // The replay starts at the last timestamp seen: skip what was already shown.
        if (ts < lastTimestamp || (ts === lastTimestamp && atLast.has(m.data))) return;
        catchingUp = false;
      }
      // The latest timestamp (entries relayed from other processes may arrive a little out of order).
      if (lastTimestamp === undefined || ts > lastTimestamp) {
        lastTimestamp = ts;
        atLast = new Set();
      }
      if (ts === lastTimestamp && atLast.size < 100) atLast.add(m.data);
      handlers.onEntry(entry);
    };
    socket.onclose = (e: CloseEvent) => {
      if (ws !== socket) return;
      ws = undefined;
      if (stopped) return;
      if (REFUSED.has(e.code)) {
        handlers.onStatus({ state: 'refused', code: e.code, reason: e.reason });
        if (e.code === UNAUTHORIZED) refused(who);
        return;
      }
      attempt++;
      const delay = Math.min(MAX_DELAY_MS, FIRST_DELAY_MS * 2 ** (attempt - 1)) * (0.8 + Math.random() * 0.4);
      handlers.onStatus({ state: 'waiting', attempt, retryAt: Date.now() + delay, code: e.code, reason: e.reason });
      timer = setTimeout(connect, delay);
    };
  };

  const online = () => {
    if (timer !== undefined) {
      clearTimeout(timer);
      connect();
    }
  };
  addEventListener('online', online);
  connect();

  return {
    retryNow: online,
    close: () => {
      stopped = true;
      removeEventListener('online', online);
      if (timer !== undefined) clearTimeout(timer);
      ws?.close(1000, 'page closed');
      ws = undefined;
    },
  };
}
