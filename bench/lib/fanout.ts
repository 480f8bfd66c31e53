// The log fan-out scenario: many WebSocket subscribers in the bench process, entries emitted at
// a steady rate inside the server process. Every measured entry carries its emit time in its
// text ("bench fan-out <tag> #<seq> at <ms>"), read from the emitting process's high-resolution
// clock (performance.timeOrigin + performance.now()); the receiver compares it with its own,
// corrected by the offset between the two processes' clocks (measured over the IPC channel).
import WebSocket from 'ws';
import type { Child } from './child.ts';

/** Milliseconds since the epoch at sub-millisecond resolution, from this process's monotonic clock. */
export const clockMs = () => performance.timeOrigin + performance.now();

export interface PaceResult {
  emitted: number;
  /** From the first emit to the last. */
  seconds: number;
}

/**
 * Calls `emit(seq)` `rate` times a second for `seconds`, on a 2 ms timer: each tick emits
 * whatever has fallen due since the last (about 2 entries a tick at 1,000/s), as requests
 * arriving in bursts would.
 */
export function paced(rate: number, seconds: number, emit: (seq: number) => void): Promise<PaceResult> {
  return new Promise((resolve) => {
    const total = Math.max(1, Math.round(rate * seconds));
    const start = performance.now();
    let emitted = 0;
    let lastAt = start;
    const tick = () => {
      const due = Math.min(total, Math.floor(((performance.now() - start) / 1000) * rate) + 1);
      while (emitted < due) emit(emitted++);
      lastAt = performance.now();
      if (emitted >= total) {
        clearInterval(timer);
        resolve({ emitted, seconds: (lastAt - start) / 1000 });
      }
    };
    const timer = setInterval(tick, 2);
    tick();
  });
}

export const fanoutEvent = (tag: string, seq: number) => `bench fan-out ${tag} #${seq} at ${clockMs().toFixed(3)}`;
const EVENT_RE = /^bench fan-out (\S+) #(\d+) at (\d+\.\d+)$/;
const DROPPED_RE = /^(\d+) log lines? dropped/;

/**
 * How far the child's clock is ahead of ours, in ms: the reading with the shortest IPC round
 * trip of `samples`, against the middle of that round trip (error at most half of it).
 */
export async function clockOffset(child: Child, samples = 30): Promise<{ offsetMs: number; rttMs: number }> {
  let best = { offsetMs: 0, rttMs: Infinity };
  for (let i = 0; i < samples; i++) {
    const t0 = clockMs();
    const theirs = await child.call<number>('clock');
    const t1 = clockMs();
    if (t1 - t0 < best.rttMs) best = { offsetMs: theirs - (t0 + t1) / 2, rttMs: t1 - t0 };
  }
  return best;
}

export interface Subscribers {
  count: number;
  /** Starts recording entries of this tag (others, e.g. a warm-up's, are ignored). */
  record(tag: string): void;
  /** Waits until every subscriber has `expected` entries of the tag (or a dropped notice for the rest), or `idleMs` without any message. */
  settle(expected: number, idleMs?: number, maxMs?: number): Promise<void>;
  /** `offsetMs`: the emitter's clock minus ours; `expected`: entries emitted. */
  stats(offsetMs: number, expected: number): DeliveryStats;
  close(): Promise<void>;
}

export interface DeliveryStats {
  /** Entries of the tag received, over all subscribers. */
  delivered: number;
  /** Lines the server said it dropped (sum of "N log lines dropped" notices). */
  dropped: number;
  /** Notices received. */
  droppedNotices: number;
  /** Subscribers that got every entry. */
  complete: number;
  /** Latency from emit to receipt, ms, over every delivered entry of every subscriber. */
  p50: number;
  p99: number;
  max: number;
  /** From the first entry's emit to the last receipt, ms. */
  spanMs: number;
  /** Entries whose sequence number came out of order on a subscriber. */
  outOfOrder: number;
}

/** `count` subscribers on `url`, all connected when this resolves. */
export async function subscribe(url: string, count: number, headers: Record<string, string>): Promise<Subscribers> {
  let tag: string | undefined;
  let latencies = new Float64Array(1 << 18);
  let n = 0;
  let firstEmit = Infinity;
  let lastReceipt = 0;
  let lastMessage = performance.now();
  const perSubscriber = new Array<number>(count).fill(0);
  const droppedBy = new Array<number>(count).fill(0);
  const lastSeq = new Array<number>(count).fill(-1);
  let droppedNotices = 0;
  let outOfOrder = 0;
  const sockets: WebSocket[] = [];
  const onMessage = (i: number, data: WebSocket.RawData) => {
    const now = clockMs();
    lastMessage = performance.now();
    if (tag === undefined) return;
    const entry = JSON.parse(data.toString()) as { event: string };
    const m = EVENT_RE.exec(entry.event);
    if (m === null) {
      const d = DROPPED_RE.exec(entry.event);
      if (d !== null) {
        droppedBy[i]! += Number(d[1]);
        droppedNotices++;
      }
      return;
    }
    if (m[1] !== tag) return;
    const seq = Number(m[2]);
    const emitted = Number(m[3]);
    if (seq <= lastSeq[i]!) outOfOrder++;
    lastSeq[i] = seq;
    perSubscriber[i]!++;
    if (n === latencies.length) {
      const bigger = new Float64Array(latencies.length * 2);
      bigger.set(latencies);
      latencies = bigger;
    }
    // `emitted` is on the emitter's clock; the offset is applied in stats().
    latencies[n++] = now - emitted;
    if (emitted < firstEmit) firstEmit = emitted;
    lastReceipt = now;
  };
  await Promise.all(
    Array.from(
      { length: count },
      (_, i) =>
        new Promise<void>((resolve, reject) => {
          const ws = new WebSocket(url, { headers, perMessageDeflate: false });
          sockets.push(ws);
          ws.on('message', (data) => onMessage(i, data));
          ws.once('open', () => resolve());
          ws.once('error', reject);
          ws.once('unexpected-response', (_req, res) => reject(new Error(`subscriber ${i}: the upgrade answered ${res.statusCode}`)));
        }),
    ),
  );
  return {
    count,
    record(t) {
      tag = t;
      n = 0;
      firstEmit = Infinity;
      lastReceipt = 0;
      perSubscriber.fill(0);
      droppedBy.fill(0);
      lastSeq.fill(-1);
      droppedNotices = 0;
      outOfOrder = 0;
    },
    async settle(expected, idleMs = 2000, maxMs = 60_000) {
      const started = performance.now();
      for (;;) {
        if (perSubscriber.every((got, i) => got + droppedBy[i]! >= expected)) return;
        if (performance.now() - lastMessage > idleMs || performance.now() - started > maxMs) return;
        await new Promise((r) => setTimeout(r, 20));
      }
    },
    stats(offsetMs, expected) {
      const sorted = latencies
        .subarray(0, n)
        .map((l) => l + offsetMs)
        .sort();
      const at = (q: number) => (n === 0 ? NaN : sorted[Math.min(n - 1, Math.floor(q * n))]!);
      return {
        delivered: n,
        dropped: droppedBy.reduce((a, b) => a + b, 0),
        droppedNotices,
        complete: perSubscriber.filter((got) => got === expected).length,
        p50: at(0.5),
        p99: at(0.99),
        max: n === 0 ? NaN : sorted[n - 1]!,
        spanMs: n === 0 ? 0 : lastReceipt - (firstEmit - offsetMs),
        outOfOrder,
      };
    },
    async close() {
      await Promise.all(
        sockets.map(
          (ws) =>
            new Promise<void>((resolve) => {
              if (ws.readyState === WebSocket.CLOSED) return resolve();
              const timer = setTimeout(() => {
                ws.terminate();
                resolve();
              }, 2000);
              ws.once('close', () => {
                clearTimeout(timer);
                resolve();
              });
              ws.close();
            }),
        ),
      );
    },
  };
}
