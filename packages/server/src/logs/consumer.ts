// One log stream subscriber's outgoing queue. Lines go straight to the socket while its send
// buffer is below the high-water mark; otherwise they wait here, at most `maxQueued` of them.
// When the queue is full the oldest line is dropped and counted; once the socket drains, one
// warning line says how many were dropped. Memory per consumer stays bounded either way.
import { isoMicros, nowMicros } from '../lib/time.ts';
import type { LogEntry } from './bus.ts';

/** What a consumer needs of a WebSocket (ws's WebSocket has all of it). */
export interface LineSocket {
  readonly bufferedAmount: number;
  readonly readyState: number;
  send(data: string, cb?: (err?: Error) => void): void;
}

export interface ConsumerLimits {
  /** Bytes in the socket's send buffer above which lines are queued instead of sent. */
  highWaterBytes: number;
  /** Lines queued at most; beyond it the oldest are dropped. */
  maxQueued: number;
}

export const DEFAULT_CONSUMER_LIMITS: ConsumerLimits = { highWaterBytes: 1 << 20, maxQueued: 1000 };

const OPEN = 1;

export class Consumer {
  private readonly queue: string[] = [];
  private head = 0;
  private dropped = 0;
  /** Lines dropped in all, over the consumer's life. */
  droppedTotal = 0;
  private readonly afterSend = (err?: Error) => {
    if (err === undefined) this.flush();
  };

  constructor(
    private readonly socket: LineSocket,
    private readonly limits: ConsumerLimits = DEFAULT_CONSUMER_LIMITS,
    /** Told of each line dropped (the bus's count, for the metrics). */
    private readonly onDrop: () => void = () => undefined,
  ) {}

  get queued(): number {
    return this.queue.length - this.head;
  }

  push(line: string): void {
    if (this.socket.readyState !== OPEN) return;
    if (this.queued === 0 && this.dropped === 0 && this.socket.bufferedAmount < this.limits.highWaterBytes) {
      this.socket.send(line, this.afterSend);
      return;
    }
    this.queue.push(line);
    if (this.queued > this.limits.maxQueued) {
      this.head++;
      this.dropped++;
      this.droppedTotal++;
      this.onDrop();
    }
    this.compact();
  }

  /** Sends what the socket's buffer has room for; called whenever a send completes. */
  flush(): void {
    if (this.socket.readyState !== OPEN) return;
    while ((this.queued > 0 || this.dropped > 0) && this.socket.bufferedAmount < this.limits.highWaterBytes) {
      if (this.dropped > 0) {
        const notice: LogEntry = {
          event: `${this.dropped} log line${this.dropped === 1 ? '' : 's'} dropped (slow consumer)`,
          level: 'warning',
          timestamp: isoMicros(nowMicros()),
          source: 'server',
        };
        this.dropped = 0;
        this.socket.send(JSON.stringify(notice), this.afterSend);
        continue;
      }
      const line = this.queue[this.head]!;
      this.head++;
      this.socket.send(line, this.afterSend);
    }
    this.compact();
  }

  private compact(): void {
    if (this.head === this.queue.length) {
      this.queue.length = 0;
      this.head = 0;
    } else if (this.head > 1024 && this.head * 2 > this.queue.length) {
      this.queue.splice(0, this.head);
      this.head = 0;
    }
  }
}
