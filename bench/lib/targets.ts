// Issue 12's targets, printed beside the measured figures (docs/performance.md, "The targets").
// SQLite: each Commands path's req/s as a ratio to the bare-Fastify GET /noop baseline of the same
// run. PostgreSQL: each path's req/s as a ratio to its bare-pg twin (lib/bare-pg.ts). Autocomplete:
// p99 at one connection.
import type { Row } from './report.ts';

/** SQLite, 50 connections: the least ratio to the baseline per path, and a p99 bound (ms) where the issue sets one. */
export const SQLITE_TARGETS: Record<string, { ratio: number; p99?: number }> = {
  get: { ratio: 0.5 },
  patch: { ratio: 0.3 },
  create: { ratio: 0.3 },
  commit: { ratio: 0.25 },
  list: { ratio: 0.3, p99: 20 },
  'list-created': { ratio: 0.3, p99: 20 },
};

/** PostgreSQL: every Commands path against its bare-pg twin. */
export const BARE_PG_TARGET = 0.6;

/** Autocomplete at one connection: p99 below this many ms, on these engines. */
export const AUTOCOMPLETE_P99_MS = 5;
const AUTOCOMPLETE_TARGETS: Record<string, string[]> = {
  sqlite: ['autocomplete-two-words (1 conn)'],
  postgres: ['autocomplete-word (1 conn)', 'autocomplete-code (1 conn)'],
};

const f2 = (n: number) => (Number.isFinite(n) ? n.toFixed(2) : '–');
const mark = (met: boolean) => (met ? 'met' : 'not met');

/** The target cell of a row: the measured figure, the target, and whether it is met; '–' where the issue sets none. */
export function targetCell(r: Row): string {
  if (r.barePg) return `${f2(r.barePg.ratio)} of twin ≥ ${f2(r.barePg.target)}: ${mark(r.barePg.ratio >= r.barePg.target)}`;
  const sqlite = r.engine === 'sqlite' ? SQLITE_TARGETS[r.scenario] : undefined;
  if (sqlite) {
    const ratioMet = r.ratio >= sqlite.ratio;
    if (sqlite.p99 === undefined) return `≥ ${f2(sqlite.ratio)}: ${mark(ratioMet)}`;
    return `≥ ${f2(sqlite.ratio)}, p99 < ${sqlite.p99} ms: ${mark(ratioMet && r.p99 < sqlite.p99)}`;
  }
  if (AUTOCOMPLETE_TARGETS[r.engine]?.includes(r.scenario)) return `p99 < ${AUTOCOMPLETE_P99_MS} ms: ${mark(r.p99 < AUTOCOMPLETE_P99_MS)}`;
  return '–';
}
