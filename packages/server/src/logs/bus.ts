// The in-process log bus (docs/architecture.md, "Code layout": events flow operation → bus → log stream): entries
// are stamped, kept in a bounded ring of recent history for `since` replay, and handed to every
// subscriber (log stream consumers) and relay (PostgreSQL NOTIFY) at once. Never throws.
import crypto from 'node:crypto';
import os from 'node:os';
import { isoMicros, nowMicros, parseTimestampMicros } from '../lib/time.ts';

export const LEVELS = ['debug', 'info', 'warning', 'error'] as const;
export type LogLevel = (typeof LEVELS)[number];
export type LogSource = 'server' | 'plugin';

export interface LogEntry {
  /** One line of text. */
  event: string;
  level: LogLevel;
  /** ISO 8601 with microseconds, UTC. */
  timestamp: string;
  source: LogSource;
  plugin?: string;
  request_id?: string;
  /** The plugin handler a line is about (`<entry>:<export>`). */
  handler?: string;
  /** The event the handler was given, e.g. `PLAN_COMMAND__POST_COMMIT`. */
  event_type?: string;
  /** false on every line that reports a failure of a plugin (docs/plugins.md, "Faults"); absent elsewhere. */
  success?: boolean;
}

/** The optional members of an entry, in the order a line shows them. */
export const OPTIONAL_MEMBERS = ['plugin', 'request_id', 'handler', 'event_type', 'success'] as const;

export type LogInput = Omit<LogEntry, 'timestamp' | 'source'> & { source?: LogSource };

export interface LogFilter {
  plugin?: string;
  /** Minimum level. */
  level?: LogLevel;
  /** Only entries at or after this time (microseconds). */
  sinceMicros?: number;
}

/** A subscriber gets the entry and its JSON line (serialised once for every consumer). */
export type LogListener = (entry: LogEntry, line: string) => void;

interface Recorded {
  entry: LogEntry;
  line: string;
  micros: number;
}

export const MAX_EVENT_CHARS = 2000;
const DEFAULT_CAPACITY = 1000;

const rank = (level: LogLevel) => LEVELS.indexOf(level);

export function isLevel(value: unknown): value is LogLevel {
  return typeof value === 'string' && (LEVELS as readonly string[]).includes(value);
}

export function matches(entry: LogEntry, filter: LogFilter, micros?: number): boolean {
  if (filter.plugin !== undefined && entry.plugin !== filter.plugin) return false;
  if (filter.level !== undefined && rank(entry.level) < rank(filter.level)) return false;
  if (filter.sinceMicros !== undefined && (micros ?? parseTimestampMicros(entry.timestamp) ?? 0) < filter.sinceMicros) return false;
  return true;
}

/** One line: control characters (newlines included) become spaces; at most MAX_EVENT_CHARS. */
export function oneLine(text: string): string {
  const flat = text.replace(/[\u0000-\u001f\u007f\u2028\u2029]+/g, ' ');
  return flat.length > MAX_EVENT_CHARS ? `${flat.slice(0, MAX_EVENT_CHARS - 1)}…` : flat;
}

/** Copies the optional members that have the right type from `from` to `to`. */
export function copyOptional(from: Record<string, unknown> | LogInput, to: LogEntry): void {
  const source = from as Record<string, unknown>;
  for (const key of OPTIONAL_MEMBERS) {
    const value = source[key];
    if (key === 'success' ? typeof value === 'boolean' : typeof value === 'string') (to as unknown as Record<string, unknown>)[key] = value;
  }
}

export class LogBus {
  /** Names this bus across processes (host, pid, random): a relay skips its own entries. */
  readonly origin = `${os.hostname()}:${process.pid}:${crypto.randomBytes(4).toString('hex')}`;
  private readonly ring: Array<Recorded | undefined>;
  private next = 0;
  private readonly listeners = new Set<LogListener>();
  private readonly relays = new Set<(entry: LogEntry) => void>();

  constructor(readonly capacity = DEFAULT_CAPACITY) {
    this.ring = new Array<Recorded | undefined>(capacity);
  }

  /** An entry of this process: recorded, delivered, and relayed to other processes. */
  emit(input: LogInput): LogEntry {
    const micros = nowMicros();
    const entry: LogEntry = { event: oneLine(input.event), level: input.level, timestamp: isoMicros(micros), source: input.source ?? 'server' };
    copyOptional(input, entry);
    this.deliver(entry, micros);
    for (const relay of this.relays) {
      try {
        relay(entry);
      } catch {
        // A relay's trouble never reaches the operation that logged.
      }
    }
    return entry;
  }

  /** An entry from another process: recorded and delivered, not relayed again. */
  receive(entry: LogEntry): void {
    this.deliver({ ...entry, event: oneLine(entry.event) }, parseTimestampMicros(entry.timestamp) ?? nowMicros());
  }

  /** Live entries from now on; returns the unsubscribe function. */
  subscribe(listener: LogListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Entries emitted by this process (for the PostgreSQL relay); returns the stop function. */
  onLocal(relay: (entry: LogEntry) => void): () => void {
    this.relays.add(relay);
    return () => this.relays.delete(relay);
  }

  /** Recorded entries matching the filter, oldest first. */
  recent(filter: LogFilter): Array<{ entry: LogEntry; line: string }> {
    const out: Array<{ entry: LogEntry; line: string }> = [];
    for (let i = 0; i < this.capacity; i++) {
      const r = this.ring[(this.next + i) % this.capacity];
      if (r !== undefined && matches(r.entry, filter, r.micros)) out.push({ entry: r.entry, line: r.line });
    }
    return out;
  }

  get subscribers(): number {
    return this.listeners.size;
  }

  private deliver(entry: LogEntry, micros: number): void {
    const line = JSON.stringify(entry);
    this.ring[this.next] = { entry, line, micros };
    this.next = (this.next + 1) % this.capacity;
    for (const listener of this.listeners) {
      try {
        listener(entry, line);
      } catch {
        // One broken consumer never stops the others.
      }
    }
  }
}
