// One way to page a list (docs/api.md, "Pagination"): `limit` and `offset` in the querystring,
// validated by the route's TypeBox schema (@charta/api PageParams; query strings are coerced to
// integers, app.ts), one page shape on the wire (count, count_is_estimate, next, previous,
// results), and the absolute next/previous links built here only. An operation answers a List;
// its route turns it into the page with pageBody.
import { DEFAULT_LIMIT } from '@charta/api/constants';

export interface Page {
  limit: number;
  offset: number;
}

/** The page a validated querystring asks for, defaults filled in. */
export const pageOf = (query: { limit?: number; offset?: number }): Page => ({ limit: query.limit ?? DEFAULT_LIMIT, offset: query.offset ?? 0 });

/**
 * How far a list that grows without bound (commands, notes) counts its matching rows exactly,
 * past the page's offset (docs/api.md, "Pagination"); CHARTA_LIST_COUNT_CAP changes it.
 */
export const DEFAULT_LIST_COUNT_CAP = 10_000;

/** One page of a list, as an operation answers it. */
export interface List<T> {
  page: Page;
  hasNext: boolean;
  /** Exact, or `offset + countCap` with `countIsEstimate` when more rows match (a capped count). */
  count: number;
  countIsEstimate: boolean;
  results: T[];
}

/** A page of a list whose count is exact. */
export const exactList = <T>(page: Page, count: number, results: T[]): List<T> => ({
  page,
  hasNext: page.offset + page.limit < count,
  count,
  countIsEstimate: false,
  results,
});

/** The wire page of `list`, its `next` and `previous` absolute URLs keeping every other query parameter. */
export function pageBody<T>(baseUrl: string, path: string, query: object, list: List<T>) {
  const { page } = list;
  const link = (offset: number) => {
    const params = new URLSearchParams();
    for (const [k, v] of Object.entries(query)) if (v !== undefined && k !== 'offset' && k !== 'limit') params.set(k, String(v));
    params.set('limit', String(page.limit));
    params.set('offset', String(offset));
    return `${baseUrl}${path}?${params.toString()}`;
  };
  return {
    count: list.count,
    count_is_estimate: list.countIsEstimate,
    next: list.hasNext ? link(page.offset + page.limit) : null,
    previous: page.offset > 0 ? link(Math.max(0, page.offset - page.limit)) : null,
    results: list.results,
  };
}
