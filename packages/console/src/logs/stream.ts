// The log stream's WebSocket for the live logs page (docs/console.md, "Live logs"): on the page's
// own host (ws: or wss: as the page), authenticated in the first message with the signed-in
// credentials (docs/api.md, "Authenticating in the first message"), never in the URL. A lost
// connection is retried with back-off (1 s, 2 s, 4 s … at most 15 s, ±20 %), asking for the
// entries since the last one received and skipping those it already has. A refusal of the
// credentials (4400, 4401, 4403, 4413) is not retried: retrying would not change it; a 4401 (an
// expired or revoked credential) signs the console out (docs/console.md, "An expired or revoked credential").
import type { LogStream, StreamStatus } from '@charta/client';
import { clientOf } from '../api.ts';
import { refused, secretOf, signedIn, type Credentials } from '../session.ts';
import type { LogEntry } from './entry.ts';

export type { LogStream, StreamStatus } from '@charta/client';

/** The first connection replays the last five minutes the instance keeps (at most 1,000 entries). */
const FIRST_SINCE = '5m';
const UNAUTHORIZED = 4401;

export interface StreamHandlers {
  onEntry(entry: LogEntry): void;
  onStatus(status: StreamStatus): void;
}

/** The stream of @charta/client on the page's own host, with the signed-in credentials of each connection. */
export function openLogStream(handlers: StreamHandlers): LogStream {
  // The credentials the current connection was opened with (a 4401 refuses those).
  let who: Credentials | undefined;
  const stream = clientOf(undefined).logs.stream({
    since: FIRST_SINCE,
    // The first message carries the bare secret, without `Bearer `.
    token: () => {
      who = signedIn();
      return who === undefined ? undefined : secretOf(who);
    },
    onEntry: (entry) => handlers.onEntry(entry as unknown as LogEntry),
    onStatus: handlers.onStatus,
    onRefused: (code) => {
      if (code === UNAUTHORIZED && who !== undefined) refused(who);
    },
  });
  const online = () => stream.retryNow();
  addEventListener('online', online);
  return {
    retryNow: stream.retryNow,
    close: () => {
      removeEventListener('online', online);
      stream.close('page closed');
    },
  };
}
