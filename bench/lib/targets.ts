// The targets, printed beside the measured figures (docs/performance.md, "The targets").
// Each Commands path's req/s as a ratio to its bare twin on the same engine (lib/bare-pg.ts,
// lib/bare-sqlite.ts) where the twin ran; otherwise, on SQLite, issue 12's ratio to the
// bare-Fastify GET /noop baseline of the same run. Autocomplete: p99 at one connection.
import { f2 } from './format.ts';
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

/** Every Commands path against its bare twin, on both engines (issue "Speed, second pass"; issue 12 asked 0.6 of PostgreSQL's). */
export const BARE_TWIN_TARGET = 0.7;

/** Autocomplete at one connection: p99 below this many ms, on these engines. */
export const AUTOCOMPLETE_P99_MS = 5;
const AUTOCOMPLETE_TARGETS: Record<string, string[]> = {
  sqlite: ['autocomplete-two-words (1 conn)'],
  postgres: ['autocomplete-word (1 conn)', 'autocomplete-code (1 conn)'],
};

const mark = (met: boolean) => (met ? 'met' : 'not met');

/** The target cell of a row: the measured figure, the target, and whether it is met; '–' where the issue sets none. */
export function targetCell(r: Row): string {
  if (r.twin)
    return (
      `${f2(r.twin.ratio)} of twin ≥ ${f2(r.twin.target)}: ${mark(r.twin.ratio >= r.twin.target)}` +
      (r.twin.rounds === undefined ? '' : ` (median of ${r.twin.rounds.map(f2).join(', ')})`)
    );
  const sqlite = r.engine === 'sqlite' ? SQLITE_TARGETS[r.scenario] : undefined;
  if (sqlite) {
    const ratioMet = r.ratio >= sqlite.ratio;
    if (sqlite.p99 === undefined) return `≥ ${f2(sqlite.ratio)}: ${mark(ratioMet)}`;
    return `≥ ${f2(sqlite.ratio)}, p99 < ${sqlite.p99} ms: ${mark(ratioMet && r.p99 < sqlite.p99)}`;
  }
  if (AUTOCOMPLETE_TARGETS[r.engine]?.includes(r.scenario)) return `p99 < ${AUTOCOMPLETE_P99_MS} ms: ${mark(r.p99 < AUTOCOMPLETE_P99_MS)}`;
  return '–';
}
