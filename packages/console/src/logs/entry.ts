// One line of the log stream as the live logs page holds it (docs/console.md, "Live logs"): the
// entry the server sent (docs/api.md, "Log stream"), its JSON, and what the filters look at.
// The server's own "N log lines dropped (slow consumer)" notices are rows of their own kind.

import { LOG_LEVELS, type LogLevel } from '@charta/api/constants';

export type { LogEntry } from '@charta/api';
import type { LogEntry } from '@charta/api';

export const LEVELS = LOG_LEVELS;
export type Level = LogLevel;

export interface Row {
  /** Increasing in arrival order. */
  id: number;
  entry: LogEntry;
  /** Lines the server reported dropped, on its notice rows; 0 on every other row. */
  dropped: number;
  /** Lower-case text the free-text filter searches (hayOf): made the first time a text filter looks. */
  hay?: string;
  /** Rank of the level (an unknown level ranks as info). */
  rank: number;
  /** A line reporting a failure: `success: false`, or level error. */
  failure: boolean;
}

export interface Filters {
  /** '' for every plugin. */
  plugin: string;
  level: Level;
  failuresOnly: boolean;
  /** Free text, matched case-insensitively. */
  text: string;
}

export const NO_FILTERS: Filters = { plugin: '', level: 'debug', failuresOnly: false, text: '' };

/** What the server sends when it dropped lines for this (slow) consumer (docs/api.md, "Log stream"). */
const DROPPED = /^(\d+) log lines? dropped \(slow consumer\)$/;

const rankOf = (level: string) => {
  const i = (LEVELS as readonly string[]).indexOf(level);
  return i < 0 ? 1 : i;
};

/** A parsed message as a row, or undefined when it is not a log entry. */
export function rowOf(id: number, message: unknown): Row | undefined {
  if (typeof message !== 'object' || message === null) return undefined;
  const e = message as LogEntry;
  if (typeof e.event !== 'string' || typeof e.level !== 'string' || typeof e.timestamp !== 'string') return undefined;
  const notice = e.source === 'server' && e.plugin === undefined ? DROPPED.exec(e.event) : null;
  return { id, entry: e, dropped: notice ? Number(notice[1]) : 0, rank: rankOf(e.level), failure: e.success === false || e.level === 'error' };
}

/** The text the free-text filter searches: the event and the optional members, in lower case. */
function hayOf(row: Row): string {
  const e = row.entry;
  row.hay ??= [e.event, e.plugin, e.handler, e.event_type, e.request_id, e.level]
    .filter((x) => typeof x === 'string')
    .join(' ')
    .toLowerCase();
  return row.hay;
}

/** Whether a row shows under the filters. The server's dropped-lines notices always show. */
export function passes(row: Row, f: Filters, needle = f.text.trim().toLowerCase()): boolean {
  if (row.dropped > 0) return true;
  if (f.plugin !== '' && row.entry.plugin !== f.plugin) return false;
  if (row.rank < rankOf(f.level)) return false;
  if (f.failuresOnly && !row.failure) return false;
  return needle === '' || hayOf(row).includes(needle);
}

/** `HH:MM:SS.mmm` of an ISO timestamp (UTC, as the server writes it). */
export function clock(timestamp: string): string {
  return timestamp.slice(11, 23);
}
