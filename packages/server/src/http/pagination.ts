// limit/offset pagination with absolute next/previous links (DRF's page shape).
import type { FieldProblem } from './problem.ts';

export interface Page {
  limit: number;
  offset: number;
}

export const DEFAULT_LIMIT = 20;
export const MAX_LIMIT = 1000;
const MAX_OFFSET = 10_000_000;

export function parsePage(query: Partial<Record<string, string>>, errors: FieldProblem[]): Page {
  const limit = parseCount(query.limit, DEFAULT_LIMIT, 1, MAX_LIMIT);
  const offset = parseCount(query.offset, 0, 0, MAX_OFFSET);
  if (limit === undefined) errors.push({ field: 'limit', message: `must be an integer from 1 to ${MAX_LIMIT}` });
  if (offset === undefined) errors.push({ field: 'offset', message: `must be an integer from 0 to ${MAX_OFFSET}` });
  return { limit: limit ?? DEFAULT_LIMIT, offset: offset ?? 0 };
}

function parseCount(text: string | undefined, fallback: number, min: number, max: number): number | undefined {
  if (text === undefined) return fallback;
  if (!/^\d{1,9}$/.test(text)) return undefined;
  const n = Number(text);
  return n >= min && n <= max ? n : undefined;
}

/**
 * How far a list that grows without bound (commands, notes) counts its matching rows exactly,
 * past the page's offset (docs/api.md, "Pagination"); CHARTA_LIST_COUNT_CAP changes it.
 */
export const DEFAULT_LIST_COUNT_CAP = 10_000;

/** An exact count says whether rows follow the page. */
export const moreAfter = (page: Page, count: number) => page.offset + page.limit < count;

/** `next` (when `hasNext`) and `previous` as absolute URLs keeping every other query parameter. */
export function pageLinks(baseUrl: string, path: string, query: Partial<Record<string, string>>, page: Page, hasNext: boolean) {
  const link = (offset: number) => {
    const params = new URLSearchParams();
    for (const [k, v] of Object.entries(query)) if (v !== undefined && k !== 'offset' && k !== 'limit') params.set(k, v);
    params.set('limit', String(page.limit));
    params.set('offset', String(offset));
    return `${baseUrl}${path}?${params.toString()}`;
  };
  return {
    next: hasNext ? link(page.offset + page.limit) : null,
    previous: page.offset > 0 ? link(Math.max(0, page.offset - page.limit)) : null,
  };
}

/** One page of a list whose count is capped (commands, notes, patients; docs/api.md, "Pagination"). */
export interface CappedList<T> {
  page: Page;
  hasNext: boolean;
  /** Exact, or `offset + countCap` with `countIsEstimate` when more rows match. */
  count: number;
  countIsEstimate: boolean;
  results: T[];
}

/** A capped list as the wire page: count, count_is_estimate, next, previous, results. */
export function cappedPageBody<T>(baseUrl: string, path: string, query: Partial<Record<string, string>>, list: CappedList<T>) {
  return {
    count: list.count,
    count_is_estimate: list.countIsEstimate,
    ...pageLinks(baseUrl, path, query, list.page, list.hasNext),
    results: list.results,
  };
}
