// The live logs page's memory (docs/console.md, "Live logs"): at most CAPACITY rows, oldest
// evicted first; the rows the filters let through, kept in step; and while paused, the rows held
// back (at most CAPACITY of them too, with a count of all). No DOM here: the page renders from it.
import { NO_FILTERS, passes, type Filters, type Row } from './entry.ts';

/** Rows kept in all (about 6 MB at most). */
export const CAPACITY = 10_000;
/** Plugin names remembered for the plugin filter. */
const MAX_PLUGINS = 200;

export class LogBuffer {
  /** Every row kept, oldest first. */
  rows: Row[] = [];
  /** The rows the filters let through, oldest first (a subsequence of `rows`). */
  shown: Row[] = [];
  filters: Filters = NO_FILTERS;
  paused = false;
  /** Rows held back while paused, oldest first (at most CAPACITY). */
  private held: Row[] = [];
  /** Rows arrived since the pause (held, or discarded beyond CAPACITY). */
  heldCount = 0;
  /** Lines the server reported dropped, in all. */
  droppedByServer = 0;
  /** Rows received in all. */
  received = 0;
  /** Shown rows evicted from the front so far (the list keeps a reader's place with it). */
  shownEvicted = 0;
  /** Plugin names seen in the stream. */
  readonly plugins = new Set<string>();

  constructor(readonly capacity = CAPACITY) {}

  /** New rows, in arrival order. */
  add(batch: Row[]): void {
    this.received += batch.length;
    for (const row of batch) {
      this.droppedByServer += row.dropped;
      const p = row.entry.plugin;
      if (p !== undefined && this.plugins.size < MAX_PLUGINS) this.plugins.add(p);
    }
    if (this.paused) {
      this.heldCount += batch.length;
      this.held.push(...batch);
      if (this.held.length > this.capacity) this.held.splice(0, this.held.length - this.capacity);
      return;
    }
    this.append(batch);
  }

  pause(): void {
    this.paused = true;
  }

  /** Shows what was held back. */
  resume(): void {
    this.paused = false;
    const held = this.held;
    this.held = [];
    this.heldCount = 0;
    this.append(held);
  }

  setFilters(filters: Filters): void {
    this.filters = filters;
    const needle = filters.text.trim().toLowerCase();
    this.shown = this.rows.filter((r) => passes(r, filters, needle));
  }

  clear(): void {
    this.rows = [];
    this.shown = [];
    this.held = [];
    this.heldCount = 0;
  }

  private append(batch: Row[]): void {
    if (batch.length === 0) return;
    const needle = this.filters.text.trim().toLowerCase();
    for (const row of batch) {
      this.rows.push(row);
      if (passes(row, this.filters, needle)) this.shown.push(row);
    }
    const excess = this.rows.length - this.capacity;
    if (excess <= 0) return;
    const firstKept = this.rows[excess]!.id;
    this.rows.splice(0, excess);
    let gone = 0;
    while (gone < this.shown.length && this.shown[gone]!.id < firstKept) gone++;
    if (gone > 0) this.shown.splice(0, gone);
    this.shownEvicted += gone;
  }
}

/** The index of the row `id` in `rows` (sorted by id), or -1. */
export function indexOfId(rows: Row[], id: number): number {
  let lo = 0;
  let hi = rows.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const at = rows[mid]!.id;
    if (at === id) return mid;
    if (at < id) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}
