// PostgreSQL only: one NOTIFY channel between the processes on a database, the machinery the log
// stream's relay (logs/pg-relay.ts) and the signal relay (signals/pg-relay.ts) share
// (docs/architecture.md, "Signals"). Payloads published here go out with NOTIFY on the channel;
// payloads from other processes arrive by LISTEN on a dedicated connection (not the pool). A lost
// connection is re-established (retried every second at most) and LISTENs again; payloads
// published meanwhile are queued (up to `maxPending`) and sent once it is back. Every payload is
// counted as relayed, dropped or (a channel that publishes only when heard) unheard, never silently
// lost. What a payload means is the caller's; a process's own payloads come back from PostgreSQL
// and are skipped here.
import pg from 'pg';

/** PostgreSQL's NOTIFY payload limit is 8,000 bytes; stay below it. */
export const MAX_PAYLOAD_BYTES = 7900;
/** Payloads published by one query. */
const BATCH = 100;
/** Longest wait between reconnection attempts. */
const MAX_RETRY_MS = 1000;
/** What a channel that publishes only when heard says on the channel when it connects. */
export const HELLO = '{"charta":"listening"}';
/** Whether a process other than this connection's is connected with the same application name. */
const OTHERS =
  'SELECT EXISTS (SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND application_name = $1 AND pid <> pg_backend_pid()) AS others';

export interface RelayStats {
  /** Payloads published with NOTIFY. */
  relayed: number;
  /** Payloads not published: the queue was full, or the connection broke while publishing them. */
  dropped: number;
  /** Connections made after the first (each one LISTENs again). */
  reconnections: number;
  /** Payloads not published because no other process was listening (onlyWhenHeard). */
  unheard: number;
}

export interface NotifyChannelOptions {
  url: string;
  /** The channel's name (an SQL identifier). */
  channel: string;
  /** The connection's application_name (how pg_stat_activity shows it). */
  applicationName: string;
  /** A payload NOTIFYed on the channel by another connection (this channel's own come back from PostgreSQL and are skipped unread). */
  onPayload(payload: string): void;
  /** Payloads waiting for the connection at most; beyond it new ones are dropped. */
  maxPending: number;
  /** A payload equal to one still waiting is not queued again (for payloads that say "look again"). */
  coalesce?: boolean;
  onError?(err: unknown): void;
  /** After a reconnection (the channel LISTENs again), with the counts so far. */
  onReconnect?(stats: RelayStats): void;
  /**
   * Publish only while another process is on the channel: one connected with the same
   * application name (as the same role: pg_stat_activity shows it), or one whose payload just
   * arrived. A channel announces itself when it connects (HELLO), so that the processes already
   * there publish again at once, and looks every `checkMs` whether another is still connected.
   * Until it knows, it publishes. For the log relay, whose lines only other processes read.
   */
  onlyWhenHeard?: boolean;
  /** How often an onlyWhenHeard channel looks for the others, ms (default 5,000). */
  checkMs?: number;
  /** How long a payload not sent while alone is kept, to be sent if another process turns up meanwhile, ms (default 2,000). */
  unheardKeptMs?: number;
}

/** A payload, or what makes it when it is sent. */
export type Payload = string | (() => string);

/** The payload's text; undefined when making it failed (counted as dropped by the caller). */
function textOf(payload: Payload): string | undefined {
  if (typeof payload === 'string') return payload;
  try {
    return payload();
  } catch {
    return undefined;
  }
}

/**
 * Of the payloads kept while alone, those to send when another process turns up: the ones kept
 * since `since`, the newest of them, at most `room` (what the queue has room for; none when it is
 * full). The others stay counted as unheard.
 */
export function keptToSend<T extends { at: number }>(kept: readonly T[], since: number, room: number): T[] {
  if (room <= 0) return [];
  const recent = kept.filter((k) => k.at >= since);
  return recent.length <= room ? recent : recent.slice(recent.length - room);
}

export interface NotifyChannel {
  readonly stats: RelayStats;
  /**
   * Queues the payload (at most MAX_PAYLOAD_BYTES) for NOTIFY; never throws. Given as a function,
   * it is made only if it is sent (an onlyWhenHeard channel alone sends nothing).
   */
  publish(payload: Payload): void;
  /** Ends the connection; payloads still queued are counted as dropped. */
  stop(): Promise<void>;
}

/** Connects and LISTENs (rejects when the first connection fails), then publishes and receives. */
export async function openNotifyChannel(options: NotifyChannelOptions): Promise<NotifyChannel> {
  const { url, channel, applicationName, onPayload, maxPending, coalesce = false } = options;
  const onError = options.onError ?? (() => undefined);
  let client: pg.Client | undefined;
  let stopped = false;
  let retryMs = 250;
  let connected = false;
  const stats: RelayStats = { relayed: 0, dropped: 0, reconnections: 0, unheard: 0 };
  const onlyWhenHeard = options.onlyWhenHeard === true;
  // onlyWhenHeard: whether another process is on the channel, as last seen; `arrivals` counts
  // the payloads of others, so that a look begun before one arrived does not undo what it says.
  let heard = true;
  let arrivals = 0;
  // Payloads not sent while alone, kept `keptMs`: when another process turns up they go out after
  // all, so that lines emitted while its announcement was on its way reach it too.
  const keptMs = options.unheardKeptMs ?? 2000;
  // Kept as made by the caller, not encoded: most are never sent.
  let unsent: Array<{ payload: Payload; at: number }> = [];
  const hear = (others: boolean) => {
    const was = heard;
    heard = others;
    if (!heard || was) return;
    const again = keptToSend(unsent, performance.now() - keptMs, maxPending - queue.length);
    unsent = [];
    stats.unheard -= again.length;
    for (const u of again) {
      const text = textOf(u.payload);
      if (text === undefined) stats.dropped += 1;
      else queue.push(text);
    }
    flush();
  };
  let looking = false;
  const look = async (c: pg.Client) => {
    if (looking) return;
    looking = true;
    const before = arrivals;
    try {
      const { rows } = await c.query<{ others: boolean }>(OTHERS, [applicationName]);
      if (arrivals === before) hear(rows[0]?.others !== false);
    } catch {
      hear(true);
    } finally {
      looking = false;
    }
  };
  const looker = onlyWhenHeard
    ? setInterval(() => {
        if (client !== undefined) void look(client);
      }, options.checkMs ?? 5000)
    : undefined;
  looker?.unref();
  let retryTimer: NodeJS.Timeout | undefined;
  // One query at a time on the connection (pg wants no overlapping queries): payloads that arrive
  // while one is running wait, and the next query publishes up to BATCH of them at once.
  const queue: string[] = [];
  let sending = false;

  const connect = async () => {
    const c = new pg.Client({ connectionString: url, application_name: applicationName });
    c.on('error', (err) => {
      onError(err);
      lost(c);
    });
    c.on('end', () => lost(c));
    c.on('notification', (msg) => {
      // The connection LISTENs on the channel it publishes to, so PostgreSQL hands back every
      // payload this process sent: skipped by the sending backend's pid, unread (the receivers'
      // origin check stays for payloads of an earlier connection of ours).
      if (msg.processId === (c as pg.Client & { processID: number | null }).processID) return;
      if (msg.channel !== channel) return;
      arrivals += 1;
      hear(true);
      if (msg.payload !== undefined && msg.payload !== HELLO) onPayload(msg.payload);
    });
    await c.connect();
    await c.query(`LISTEN ${channel}`);
    if (stopped) {
      await c.end().catch(() => undefined);
      return;
    }
    client = c;
    retryMs = 250;
    if (connected) {
      stats.reconnections += 1;
      options.onReconnect?.({ ...stats });
    }
    connected = true;
    if (onlyWhenHeard) {
      c.query('SELECT pg_notify($1, $2)', [channel, HELLO]).catch(onError);
      void look(c);
    }
    flush(); // payloads queued while the connection was away
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

  function flush(): void {
    const c = client;
    if (sending || c === undefined || queue.length === 0) return;
    sending = true;
    const batch = queue.splice(0, BATCH);
    c.query('SELECT pg_notify($1, payload) FROM unnest($2::text[]) AS payload', [channel, batch]).then(
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

  await connect();

  return {
    stats,
    publish: (made) => {
      if (stopped) return;
      if (onlyWhenHeard && !heard) {
        stats.unheard += 1;
        const now = performance.now();
        while (unsent.length > 0 && (unsent.length >= maxPending || unsent[0]!.at < now - keptMs)) unsent.shift();
        unsent.push({ payload: made, at: now });
        return;
      }
      const payload = textOf(made);
      if (payload === undefined) {
        stats.dropped += 1;
        return;
      }
      if (coalesce && queue.includes(payload)) return;
      if (queue.length >= maxPending) {
        stats.dropped += 1;
        return;
      }
      queue.push(payload);
      flush();
    },
    stop: async () => {
      stopped = true;
      if (retryTimer !== undefined) clearTimeout(retryTimer);
      if (looker !== undefined) clearInterval(looker);
      const c = client;
      client = undefined;
      // Payloads still queued will not be published now.
      stats.dropped += queue.splice(0).length;
      if (c !== undefined) await c.end().catch(() => undefined);
    },
  };
}

/** A process's bus of things relayed between processes (log entries, signals). */
export interface RelayedBus<T> {
  /** Names this process: a payload it published comes back to it and is skipped. */
  readonly origin: string;
  /** Hands an item of another process to this process's listeners. */
  receive(item: T): void;
  /** Items emitted by this process, to publish; returns the stop function. */
  onLocal(listener: (item: T) => void): () => void;
}

export interface Relay {
  readonly stats: RelayStats;
  stop(): Promise<void>;
}

/**
 * Relays `bus` over a NOTIFY channel: its local items go out as `encode` makes them, the payloads
 * of other processes come in as `decode` reads them (undefined: this process's own, or malformed).
 */
export async function startRelay<T>(
  bus: RelayedBus<T>,
  options: Omit<NotifyChannelOptions, 'onPayload'> & {
    encode(item: T, origin: string): string;
    decode(payload: string, ownOrigin: string): T | undefined;
  },
): Promise<Relay> {
  const { encode, decode, ...channelOptions } = options;
  const channel = await openNotifyChannel({
    ...channelOptions,
    onPayload: (payload) => {
      const item = decode(payload, bus.origin);
      if (item !== undefined) bus.receive(item);
    },
  });
  const off = bus.onLocal((item) => channel.publish(() => encode(item, bus.origin)));
  return {
    stats: channel.stats,
    stop: async () => {
      off();
      await channel.stop();
    },
  };
}
