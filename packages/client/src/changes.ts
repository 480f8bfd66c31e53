// The change stream (docs/api.md, "Change stream"): told of each committed change of a patient's
// (or one note's) commands and notes. Authenticated in the first message (a browser cannot set a
// WebSocket's headers); a lost connection is opened again with back-off (1 s, doubling, at most
// 15 s), and each time it is ready again `onReady` says so, for the caller to read again what it
// shows (changes made while it was away are not replayed). A refusal (4400, 4401, 4403, 4413) is
// not retried.
import { paths } from './paths.ts';
import { followFirstMessageSocket, webSocketOrigin, type WebSocketFactory } from './first-message-socket.ts';
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
    const socket = followFirstMessageSocket({
      url: () => this.url(options.patientKey, options.noteKey),
      token: options.token ?? (async () => (await this.transport.authorization())?.replace(/^Bearer /, '')),
      webSocket: options.webSocket,
      delay: (attempt) => Math.min(15_000, 1000 * 2 ** (attempt - 1)),
      onReady: () => options.onReady?.(),
      onMessage: (data) => {
        try {
          const change = JSON.parse(data) as RecordChange;
          if (change?.type === 'changed') options.onChange(change);
        } catch {
          // not a change
        }
      },
      onRefused: (code, reason) => options.onRefused?.(code, reason),
    });
    return { close: () => socket.close('closed') };
  }
}
