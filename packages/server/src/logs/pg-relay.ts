// PostgreSQL only: the log stream across processes. Entries emitted here are published with
// NOTIFY on `charta_logs` (payload: the JSON entry plus `origin`, at most 7,900 bytes); entries
// from other processes arrive by LISTEN on a dedicated connection (not the pool) and are
// delivered locally. A process skips its own entries by their origin. A lost connection is
// re-established (retried every second at most) and LISTEN again; entries emitted meanwhile are
// queued (up to MAX_PENDING) and published once it is back. Every entry is counted as relayed or
// dropped, never silently lost; after a reconnection the counts are logged (docs/api.md, "Log stream").
import pg from 'pg';
import { copyOptional, isLevel, type LogBus, type LogEntry } from './bus.ts';

export const CHANNEL = 'charta_logs';
/** PostgreSQL's NOTIFY payload limit is 8,000 bytes; stay below it. */
export const MAX_PAYLOAD_BYTES = 7900;
/** Publishes waiting for the connection at most; beyond it new entries are not relayed. */
const MAX_PENDING = 1000;
/** Entries published by one query. */
const BATCH = 100;

/** Longest wait between reconnection attempts. */
const MAX_RETRY_MS = 1000;

export interface RelayStats {
  /** Entries published with NOTIFY. */
  relayed: number;
  /** Entries not published: the queue was full, or the connection broke while publishing them. */
  dropped: number;
  /** Connections made after the first (each one LISTENs again). */
  reconnections: number;
}

export interface PgRelay {
  readonly stats: RelayStats;
  stop(): Promise<void>;
}

/** The NOTIFY payload of an entry, its event shortened until the whole fits the limit. */
export function payloadOf(entry: LogEntry, origin: string): string {
  let event = entry.event;
  for (;;) {
    const payload = JSON.stringify({ ...entry, event, origin });
    const size = Buffer.byteLength(payload);
    if (size <= MAX_PAYLOAD_BYTES || event.length === 0) return payload;
    // Every character is at least one byte: cutting the excess (and room for "…") converges.
    const keep = event.length - (size - MAX_PAYLOAD_BYTES) - 4;
    event = keep > 0 ? `${event.slice(0, keep)}…` : '';
  }
}

/** A NOTIFY payload from another process as an entry; undefined if it is ours or malformed. */
export function entryOf(payload: string, ownOrigin: string): LogEntry | undefined {
  let raw: unknown;
  try {
    raw = JSON.parse(payload);
  } catch {
    return undefined;
  }
  if (typeof raw !== 'object' || raw === null) return undefined;
  const r = raw as Record<string, unknown>;
  if (r.origin === ownOrigin || typeof r.origin !== 'string') return undefined;
  if (typeof r.event !== 'string' || !isLevel(r.level) || typeof r.timestamp !== 'string') return undefined;
  if (r.source !== 'server' && r.source !== 'plugin') return undefined;
  const entry: LogEntry = { event: r.event, level: r.level, timestamp: r.timestamp, source: r.source };
  copyOptional(r, entry);
  return entry;
}

export async function startPgRelay(
  url: string,
  bus: LogBus,
  onError: (err: unknown) => void = () => undefined,
  onReconnect: (stats: RelayStats) => void = () => undefined,
): Promise<PgRelay> {
  let client: pg.Client | undefined;
  let stopped = false;
  let retryMs = 250;
  let connected = false;
  const stats: RelayStats = { relayed: 0, dropped: 0, reconnections: 0 };
  let retryTimer: NodeJS.Timeout | undefined;
  // One query at a time on the connection (pg wants no overlapping queries): entries that arrive
  // while one is running wait, and the next query publishes up to BATCH of them at once.
  const queue: string[] = [];
  let sending = false;

  const connect = async () => {
    const c = new pg.Client({ connectionString: url, application_name: 'charta-log-relay' });
    c.on('error', (err) => {
      onError(err);
      lost(c);
    });
    c.on('end', () => lost(c));
    c.on('notification', (msg) => {
      if (msg.channel !== CHANNEL || msg.payload === undefined) return;
      const entry = entryOf(msg.payload, bus.origin);
      if (entry !== undefined) bus.receive(entry);
    });
    await c.connect();
    await c.query(`LISTEN ${CHANNEL}`);
    if (stopped) {
      await c.end().catch(() => undefined);
      return;
    }
    client = c;
    retryMs = 250;
    if (connected) {
      stats.reconnections += 1;
      onReconnect({ ...stats });
    }
    connected = true;
    flush(); // entries queued while the connection was away
  };

  const lost = (c: pg.Client) => {
    if (client !== c && client !== undefined) return;
    client = undefined;
    void c.end().catch(() => undefined);
    if (!stopped && retryTimer === undefined) {
      retryTimer = setTimeout(() => {
        retryTimer = undefined;
        if (!stopped && client === undefined)
          connect().catch((err) => {
            onError(err);
            retryMs = Math.min(retryMs * 2, MAX_RETRY_MS);
            lost(c);
          });
      }, retryMs);
      retryTimer.unref();
    }
  };

  await connect();

  function flush(): void {
    const c = client;
    if (sending || c === undefined || queue.length === 0) return;
    sending = true;
    const batch = queue.splice(0, BATCH);
    c.query('SELECT pg_notify($1, payload) FROM unnest($2::text[]) AS payload', [CHANNEL, batch]).then(
      () => {
        sending = false;
        stats.relayed += batch.length;
        flush();
      },
      (err: unknown) => {
        // Whether the NOTIFY went out is unknown; sending again could deliver twice: counted as dropped.
        sending = false;
        stats.dropped += batch.length;
        onError(err);
        flush();
      },
    );
  }
  const off = bus.onLocal((entry) => {
    if (queue.length >= MAX_PENDING) {
      stats.dropped += 1;
      return;
    }
    queue.push(payloadOf(entry, bus.origin));
    flush();
  });

  return {
    stats,
    stop: async () => {
      stopped = true;
      off();
      if (retryTimer !== undefined) clearTimeout(retryTimer);
      const c = client;
      client = undefined;
      // Entries still queued will not be published now.
      stats.dropped += queue.splice(0).length;
      if (c !== undefined) await c.end().catch(() => undefined);
    },
  };
}
