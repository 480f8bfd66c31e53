// What the bench's scenarios share to report their figures: the median of a few rounds, a number's
// cells, the text and Markdown tables (docs/performance.md: every table of bench/results/latest.md),
// and one request's load measured in several rounds folded into its medians.
import type { LoadResult } from './load.ts';
import type { CpuShare } from './cpu.ts';

/** The median of the finite values (the mean of the middle two of an even count); NaN of none. */
export function median(xs: number[]): number {
  const s = xs.filter(Number.isFinite).sort((a, b) => a - b);
  return s.length === 0 ? NaN : s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
}

export const f0 = (n: number) => (Number.isFinite(n) ? Math.round(n).toLocaleString('en-US') : '–');
export const f1 = (n: number) => (Number.isFinite(n) ? n.toFixed(1) : '–');
export const f2 = (n: number) => (Number.isFinite(n) ? n.toFixed(2) : '–');

/** A plain-text table: the first `textColumns` columns flush left, the others right. */
export function table<R>(head: string[], rows: R[], cellsOf: (r: R) => string[], textColumns: number): string {
  const body = rows.map(cellsOf);
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((b) => b[i]!.length)));
  const line = (c: string[]) => c.map((v, i) => (i < textColumns ? v.padEnd(widths[i]!) : v.padStart(widths[i]!))).join('  ');
  return [line(head), widths.map((w) => '-'.repeat(w)).join('  '), ...body.map(line)].join('\n');
}

/** The same as a Markdown table. */
export function mdTable<R>(head: string[], rows: R[], cellsOf: (r: R) => string[], textColumns: number): string {
  const align = head.map((_, i) => (i < textColumns ? ':--' : '--:'));
  return [`| ${head.join(' | ')} |`, `| ${align.join(' | ')} |`, ...rows.map((r) => `| ${cellsOf(r).join(' | ')} |`)].join('\n');
}

/** A request's load with its CPU, as one round measured it. */
export type RoundResult = LoadResult & { cpu: CpuShare; serverMicrosPerRequest: number };

/** Rounds of one request folded: the last round's figures with the medians of rates, latencies and CPU, and the failures of every round. */
export function mergeRounds<M extends RoundResult>(rounds: M[]): M {
  const last = rounds[rounds.length - 1]!;
  const pick = (of: (m: M) => number) => median(rounds.map(of));
  return {
    ...last,
    okPerSecond: pick((m) => m.okPerSecond),
    p50: pick((m) => m.p50),
    p99: pick((m) => m.p99),
    non2xx: rounds.reduce((n, m) => n + m.non2xx, 0),
    errors: rounds.reduce((n, m) => n + m.errors, 0),
    timeouts: rounds.reduce((n, m) => n + m.timeouts, 0),
    cpu: {
      ...last.cpu,
      client: pick((m) => m.cpu.client),
      server: pick((m) => m.cpu.server),
      postgres: pick((m) => m.cpu.postgres),
      other: pick((m) => m.cpu.other),
    },
    serverMicrosPerRequest: pick((m) => m.serverMicrosPerRequest),
  };
}
