// PostgreSQL only: the log stream across processes. Entries emitted here are published with
// NOTIFY on `charta_logs` (payload: the JSON entry plus `origin`, at most 7,900 bytes); entries
// from other processes arrive by LISTEN on a dedicated connection (not the pool) and are
// delivered locally. A process skips its own entries by their origin. The connection, its
// reconnection and the queue of entries waiting for it are storage/pg-notify.ts's, shared with the
// signal relay (signals/pg-relay.ts): entries emitted while the connection is away are queued (up
// to MAX_PENDING) and published once it is back. Every entry is counted as relayed, dropped or
// unheard (no other process on the channel: none is sent then, though the last 2 s of them go out
// if one turns up), never silently lost; after a reconnection the counts are logged (docs/api.md,
// "Log stream").
// The log stream is a sink: nothing reacts to what an entry says (docs/architecture.md, "Signals").
import { startRelay, MAX_PAYLOAD_BYTES, type Relay, type RelayStats } from '../storage/pg-notify.ts';
import { copyOptional, isLevel, type LogBus, type LogEntry } from './bus.ts';

export { MAX_PAYLOAD_BYTES, type RelayStats };

export const CHANNEL = 'charta_logs';
/** Publishes waiting for the connection at most; beyond it new entries are not relayed. */
const MAX_PENDING = 1000;

export type PgRelay = Relay;

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

export const startPgRelay = (
  url: string,
  bus: LogBus,
  onError: (err: unknown) => void = () => undefined,
  onReconnect: (stats: RelayStats) => void = () => undefined,
): Promise<PgRelay> =>
  startRelay(bus, {
    url,
    channel: CHANNEL,
    applicationName: 'charta-log-relay',
    maxPending: MAX_PENDING,
    // Lines only other processes' streams read: none sent while no other process is on the
    // channel (docs/performance.md, "The log line's NOTIFY, only when heard").
    onlyWhenHeard: true,
    encode: payloadOf,
    decode: entryOf,
    onError,
    onReconnect,
  });
