// The change stream (docs/api.md, "Change stream"): told of each committed change of a patient's
// (or one note's) commands and notes. Authenticated in the first message (a browser cannot set a
// WebSocket's headers); a lost connection is opened again with back-off (1 s, doubling, at most
// 15 s), and each time it is ready again `onReady` says so, for the caller to read again what it
// shows (changes made while it was away are not replayed). A refusal (4400, 4401, 4403, 4413) is
// not retried.
import { paths } from './paths.ts';
import { REFUSED_CLOSE_CODES, webSocketOrigin, type WebSocketFactory, type WebSocketLike } from './logs.ts';
import type { Transport } from './transport.ts';

/** One change, as the server sends it. */
export interface RecordChange {
  type: 'changed';
  patient_key: string;
  note_key: string;
  target: { type: 'command' | 'note'; id: string };
  action: string;
  /** A staff key, or `plugin:<name>`. */
  actor: string;
}

export interface FollowChangesOptions {
  patientKey: string;
  noteKey?: string;
  /** The bare token for the first message (default: this client's). */
  token?: () => string | undefined | Promise<string | undefined>;
  onChange(change: RecordChange): void;
  /** Ready (again): read again what is shown. */
  onReady?(): void;
  /** The server refused the credentials (4401: expired or revoked). */
  onRefused?(code: number, reason: string): void;
  webSocket?: WebSocketFactory;
}

export class ChangesApi {
  constructor(private readonly transport: Transport) {}

  /** The stream URL: ws(s) on the client's base URL, or on the page's host when the base URL is relative. */
  url(patientKey: string, noteKey?: string): string {
    const origin = webSocketOrigin(this.transport.baseUrl);
    const params = new URLSearchParams({ patient_key: patientKey });
    if (noteKey !== undefined) params.set('note_key', noteKey);
    return `${origin}${paths.changes()}?${params.toString()}`;
  }

  /** Follows the changes until `close()` (or a refusal). */
  follow(options: FollowChangesOptions): { close(): void } {
    const factory: WebSocketFactory = options.webSocket ?? ((url) => new globalThis.WebSocket(url) as unknown as WebSocketLike);
    const token = options.token ?? (async () => (await this.transport.authorization())?.replace(/^Bearer /, ''));
    let ws: WebSocketLike | undefined;
    let stopped = false;
    let attempt = 0;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const connect = async () => {
      timer = undefined;
      if (stopped) return;
      const secret = await token();
      if (stopped || secret === undefined) return;
      const socket = factory(this.url(options.patientKey, options.noteKey));
      ws = socket;
      let ready = false;
      socket.onopen = () => socket.send(JSON.stringify({ type: 'auth', token: secret }));
      socket.onerror = () => {};
      socket.onmessage = (m) => {
        if (typeof m.data !== 'string') return;
        if (!ready) {
          if (m.data !== '{"type":"ready"}') return;
          ready = true;
          attempt = 0;
          options.onReady?.();
          return;
        }
        try {
          const change = JSON.parse(m.data) as RecordChange;
          if (change?.type === 'changed') options.onChange(change);
        } catch {
          // not a change
        }
      };
      socket.onclose = (e) => {
        if (ws !== socket) return;
        ws = undefined;
        if (stopped) return;
        if (REFUSED_CLOSE_CODES.has(e.code)) {
          stopped = true;
          options.onRefused?.(e.code, e.reason);
          return;
        }
        attempt++;
        timer = setTimeout(() => void connect(), Math.min(15_000, 1000 * 2 ** (attempt - 1)));
      };
    };
    void connect();
    return {
      close: () => {
        stopped = true;
        if (timer !== undefined) clearTimeout(timer);
        ws?.close(1000, 'closed');
        ws = undefined;
      },
    };
  }
}
