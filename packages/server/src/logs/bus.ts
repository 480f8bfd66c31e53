// The in-process log bus (docs/architecture.md, "Code layout": events flow operation → bus → log stream): entries
// are stamped, kept in a bounded ring of recent history for `since` replay, and handed to every
// subscriber (log stream consumers) and relay (PostgreSQL NOTIFY) at once. Each plugin's fault
// lines are also kept apart (its last ones, and counts over the last hour and day), so that no
// other plugin's flood pushes them out of the history (docs/plugins.md, "Faults"). Never throws.
import { isoMicros, nowMicros, parseTimestampMicros } from '../lib/time.ts';
import { processOrigin } from '../lib/ids.ts';
import { rewordLogs } from '../lib/test-hooks.ts';

import { LOG_LEVELS as LEVELS, OPTIONAL_MEMBERS, type LogEntry, type LogLevel, type LogSource } from '@charta/api';

// The entry's shape is the wire's (@charta/api); the bus's own modules and tests name it from here.
export type { LogEntry, LogLevel, LogSource };

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
  /** The entry's JSON, made when first asked for (lineOf): most entries are never read as a line. */
  line?: string;
  micros: number;
  /** Its place in this bus's history (the order of `recent`). */
  seq: number;
}

/** A plugin's faults over the last hour and day, and its last one (docs/plugins.md, "Faults"). */
export interface FaultCounts {
  lastHour: { failures: number; timeouts: number };
  lastDay: { failures: number; timeouts: number };
  lastError: { timestamp: string; message: string; fault: string | null; handler: string | null; event_type: string | null } | null;
}

export const MAX_EVENT_CHARS = 2000;
const DEFAULT_CAPACITY = 1000;
/** Fault lines kept per plugin apart from the shared history. */
const FAULTS_KEPT = 100;
/** Plugins whose faults are kept (the ones faulted least recently are forgotten first). */
const PLUGINS_KEPT = 1000;
const MINUTE_MICROS = 60_000_000;

/** One plugin's faults: its last fault lines, and counts per minute of the last day. */
class PluginFaults {
  readonly kept: Recorded[] = [];
  /** Minute (since the epoch) → failures and timeouts in it; minutes older than a day are dropped. */
  private readonly minutes = new Map<number, { failures: number; timeouts: number }>();

  add(recorded: Recorded): void {
    this.kept.push(recorded);
    if (this.kept.length > FAULTS_KEPT) this.kept.shift();
    const minute = Math.floor(recorded.micros / MINUTE_MICROS);
    const count = this.minutes.get(minute) ?? { failures: 0, timeouts: 0 };
    count.failures++;
    if (recorded.entry.fault === 'timeout') count.timeouts++;
    this.minutes.set(minute, count);
    for (const m of this.minutes.keys()) if (m <= minute - 24 * 60) this.minutes.delete(m);
  }

  counts(nowMicros: number): FaultCounts {
    const now = Math.floor(nowMicros / MINUTE_MICROS);
    const hour = { failures: 0, timeouts: 0 };
    const day = { failures: 0, timeouts: 0 };
    for (const [minute, count] of this.minutes) {
      if (minute <= now - 24 * 60) continue;
      day.failures += count.failures;
      day.timeouts += count.timeouts;
      if (minute > now - 60) {
        hour.failures += count.failures;
        hour.timeouts += count.timeouts;
      }
    }
    const last = this.kept.at(-1)?.entry;
    return {
      lastHour: hour,
      lastDay: day,
      lastError:
        last === undefined
          ? null
          : { timestamp: last.timestamp, message: last.event, fault: last.fault ?? null, handler: last.handler ?? null, event_type: last.event_type ?? null },
    };
  }
}

const NO_FAULTS: FaultCounts = { lastHour: { failures: 0, timeouts: 0 }, lastDay: { failures: 0, timeouts: 0 }, lastError: null };

/** A line that reports a failure of a plugin (docs/plugins.md, "Faults"). */
const isFault = (entry: LogEntry): entry is LogEntry & { plugin: string } => entry.plugin !== undefined && entry.success === false;

const rank = (level: LogLevel) => LEVELS.indexOf(level);

/** A recorded entry's line, the JSON the log stream sends: made once, when a subscriber or a reader of the history first needs it. */
const lineOf = (r: Recorded): string => (r.line ??= JSON.stringify(r.entry));

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
  readonly origin = processOrigin();
  private readonly ring: Array<Recorded | undefined>;
  private next = 0;
  private seq = 0;
  /** Each plugin's faults, the plugin that faulted last at the end. */
  private readonly faults = new Map<string, PluginFaults>();
  private readonly listeners = new Set<LogListener>();
  private readonly relays = new Set<(entry: LogEntry) => void>();
  /** Tests only (lib/test-hooks.ts, CHARTA_TEST_REWORD_LOGS): every line's text reworded. */
  private readonly reword = rewordLogs();

  constructor(readonly capacity = DEFAULT_CAPACITY) {
    this.ring = new Array<Recorded | undefined>(capacity);
  }

  /** An entry of this process: recorded, delivered, and relayed to other processes. */
  emit(input: LogInput): LogEntry {
    const micros = nowMicros();
    const event = this.reword === undefined ? input.event : this.reword(input.event);
    const entry: LogEntry = { event: oneLine(event), level: input.level, timestamp: isoMicros(micros), source: input.source ?? 'server' };
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

  /**
   * Recorded entries matching the filter, oldest first: the shared history, and each plugin's last
   * fault lines even when the shared history has moved past them.
   */
  recent(filter: LogFilter): Array<{ entry: LogEntry; line: string }> {
    const found: Recorded[] = [];
    for (let i = 0; i < this.capacity; i++) {
      const r = this.ring[(this.next + i) % this.capacity];
      if (r !== undefined && matches(r.entry, filter, r.micros)) found.push(r);
    }
    // The ring holds the newest entries: a kept fault older than its oldest match is either gone
    // from it or did not match there (and does not here).
    const oldest = found[0]?.seq ?? Infinity;
    const kept = filter.plugin === undefined ? [...this.faults.values()] : [this.faults.get(filter.plugin)].filter((f) => f !== undefined);
    const older = kept.flatMap((f) => f.kept.filter((r) => r.seq < oldest && matches(r.entry, filter, r.micros)));
    if (older.length > 0) {
      found.push(...older);
      found.sort((a, b) => a.seq - b.seq);
    }
    return found.map((r) => ({ entry: r.entry, line: lineOf(r) }));
  }

  /** A plugin's faults over the last hour and day, and its last fault line (on this process, with those relayed from others). */
  faultsOf(plugin: string, now = nowMicros()): FaultCounts {
    return this.faults.get(plugin)?.counts(now) ?? NO_FAULTS;
  }

  private keepFault(plugin: string, recorded: Recorded): void {
    let faults = this.faults.get(plugin);
    if (faults === undefined) {
      faults = new PluginFaults();
      if (this.faults.size >= PLUGINS_KEPT) this.faults.delete(this.faults.keys().next().value!);
    } else this.faults.delete(plugin);
    this.faults.set(plugin, faults);
    faults.add(recorded);
  }

  get subscribers(): number {
    return this.listeners.size;
  }

  /** Lines dropped for slow log stream subscribers, all of them together since the start (docs/operations.md, "Monitoring"). */
  droppedLines = 0;

  /** A subscriber dropped a line (logs/consumer.ts). */
  dropped(): void {
    this.droppedLines += 1;
  }

  private deliver(entry: LogEntry, micros: number): void {
    const recorded: Recorded = { entry, micros, seq: ++this.seq };
    this.ring[this.next] = recorded;
    this.next = (this.next + 1) % this.capacity;
    if (isFault(entry)) this.keepFault(entry.plugin, recorded);
    // Written as JSON only for live subscribers (or a later read of the history): a write logged
    // with nobody watching costs no JSON.stringify (docs/performance.md, "Log lines made when read").
    if (this.listeners.size === 0) return;
    const line = lineOf(recorded);
    for (const listener of this.listeners) {
      try {
        listener(entry, line);
      } catch {
        // One broken consumer never stops the others.
      }
    }
  }
}
