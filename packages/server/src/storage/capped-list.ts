// A page of a list that grows without bound (commands, notes), and its count, with a cost that
// does not grow with the table (docs/api.md, "Pagination"). The page is read with one row more
// than asked: that row says whether a next page exists. The total is counted only up to
// `offset + cap` matching rows; past that the answer is that bound, flagged as an estimate. On the
// last page the rows themselves give the exact total, and nothing is counted.
import { sql, type Kysely, type SelectQueryBuilder } from 'kysely';
import type { Database } from './schema.ts';

export interface CappedList<R> {
  rows: R[];
  /** More rows match after this page. */
  hasNext: boolean;
  /** The number of matching rows, or `offset + cap` when more match (then `countIsEstimate`). */
  count: number;
  countIsEstimate: boolean;
}

export interface CappedListQuery<R> {
  /** The page's rows, `limit` of them from `offset`. */
  page(limit: number, offset: number): Promise<R[]>;
  /** How many rows match, counting no further than `max` (countQuery). */
  count(max: number): Promise<number>;
}

export async function cappedList<R>(query: CappedListQuery<R>, limit: number, offset: number, cap: number): Promise<CappedList<R>> {
  const rows = await query.page(limit + 1, offset);
  const hasNext = rows.length > limit;
  if (hasNext) rows.length = limit;
  if (!hasNext && (rows.length > 0 || offset === 0)) return { rows, hasNext, count: offset + rows.length, countIsEstimate: false };
  const bound = offset + cap;
  const count = await query.count(bound + 1);
  return count > bound ? { rows, hasNext, count: bound, countIsEstimate: true } : { rows, hasNext, count, countIsEstimate: false };
}

/** How many rows `matching` selects, counting no further than `max`: separate so tests can EXPLAIN it. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- any table of the schema, nothing selected
export function countQuery(db: Kysely<Database>, matching: SelectQueryBuilder<Database, any, object>, max: number) {
  return db
    .selectFrom(
      matching
        .select(sql<number>`1`.as('one'))
        .limit(max)
        .as('matching'),
    )
    .select((eb) => eb.fn.countAll<number | string>().as('n'));
}

/** The number a countQuery read (PostgreSQL's count is a bigint, which pg returns as a string). */
export const countOf = (rows: Array<{ n: number | string }>): number => Number(rows[0]!.n);
